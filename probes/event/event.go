// Package event is what the probe engine reports: one small interface per
// kind of event (a record produced, acknowledged, failed, consumed, a gap, a
// transaction ended, a rebalance, a share acknowledgement, …), which a sink
// implements for the events it wants, as franz-go's hooks are. The engine
// hears of every sink of a probe once, when the probe is made (New), and
// calls each event's sinks through Hooks: a slice per kind, no assertion
// and no allocation per event. The Prometheus families (probes/promsink),
// the bench's exact histograms (bench/run) are sinks; a new measurement is
// a sink method, nothing in the engine's hot path.
//
// Every hook is called from the probe's goroutines (the producer's promises,
// each consumer, the lag ticker) at once: a sink is safe for concurrent use,
// and fast, as the hot path waits for it.
package event

import (
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// Sink makes the hooks of each probe it is given to (probes.Options.Sinks).
type Sink interface {
	// ForProbe is called once, when the probe cfg is made; the Hook it
	// returns hears of that probe's events until OnProbeStopped.
	ForProbe(cfg config.Probe) Hook
}

// Hook is one probe's receiver of events: any value implementing one or
// more of the *Hook interfaces below. What it does not implement it is not
// told.
type Hook any

// RecordID names one probe record: its producer's run, its partition and
// its sequence number there.
type RecordID struct {
	Run       uint64
	Partition int32
	Seq       uint64
}

// Produced is a record the cluster acknowledged. Now is the
// acknowledgement's time on the probe's steady clock, the reading Latency
// was taken from (from the record's intended send time).
type Produced struct {
	Now     time.Time
	Latency time.Duration
	Bytes   int // the record's value
	ID      RecordID
}

// Consumed is a record a member of the probe's consumer group read, at Now
// (its poll, the probe's steady clock).
type Consumed struct {
	Now time.Time
	// EndToEnd is from the record's intended send time; set only for
	// Own records.
	EndToEnd time.Duration
	Bytes    int // the record's value
	// ID is the record's; zero for a Foreign record.
	ID RecordID
	// Own: a record of this run (or of BenchOptions.WorkerRuns).
	Own bool
	// Foreign: not a probe record.
	Foreign bool
	// InRebalance: an own record whose intended time fell within a
	// rebalance of the group.
	InRebalance bool
}

// Anomaly is what the sequence tracker found wrong with records.
type Anomaly uint8

const (
	// Duplicated is a record received again.
	Duplicated Anomaly = iota
	// OutOfOrder is a record received after a later one of its partition.
	OutOfOrder
	// Lost is acknowledged records not received within the grace period.
	Lost
	// AbortedRead is a record of an aborted transaction read by a
	// read_committed consumer.
	AbortedRead
)

// Gauge is a value that may be unknown: an unknown value's series is
// dropped, as a stale one would mislead.
type Gauge struct {
	Value float64
	Known bool
}

// Lag is the consumer group's lag, as the lag ticker read it.
type Lag struct {
	// Records and Seconds are from the consumer's own positions; Stable
	// from them to the last stable offsets (read_committed only).
	Records, Seconds, Stable Gauge
	// GroupRecords and GroupSeconds are from the group's committed offsets.
	GroupRecords, GroupSeconds Gauge
}

// Rebalance is one rebalance a member of the group went through, under
// Protocol, for Cause (one of RebalanceCauses). A member's own first join
// (CauseJoined) has no duration: Took is 0.
type Rebalance struct {
	Protocol, Cause string
	Took            time.Duration
}

// Transaction outcomes (TxnEnd.Outcome).
const (
	TxnCommitted = "committed"
	TxnAborted   = "aborted" // on purpose (transaction.abort.ratio)
	TxnFailed    = "failed"  // a record failed, or the end was refused or unconfirmed
)

// TxnEnd is a transaction of the producer that ended.
type TxnEnd struct {
	// Outcome is TxnCommitted, TxnAborted or TxnFailed.
	Outcome string
	// Abort says the end asked for was an abort; Took is how long it
	// took, when Timed (an end that reached the broker and succeeded).
	Abort bool
	Timed bool
	Took  time.Duration
	// Records are those of the transaction that will not be read:
	// aborted, or of an unknown fate; 0 when committed.
	Records uint64
}

// ShareDelivery is a record delivered to a member of the probe's share
// group, at Now.
type ShareDelivery struct {
	Now   time.Time
	Bytes int
	// ID is the record's; zero for a Foreign record.
	ID RecordID
	// Own: a record of this run; Foreign: not a probe record.
	Own, Foreign bool
	// DeliveryCount is the broker's delivery count.
	DeliveryCount int32
	// First: the record's first delivery (own records), Latency then from
	// its intended send time.
	First   bool
	Latency time.Duration
	// Redelivery: delivered again before an accept was confirmed, for
	// Cause.
	Redelivery bool
	Cause      tracker.Cause
	// Duplicate: delivered again after it was accepted.
	Duplicate bool
}

// Failure reasons of a record given up on (FailedHook): a fixed set, so a
// label of them has a bounded cardinality whatever the broker answers.
const (
	ReasonTimeout           = "timeout"
	ReasonRetriesExhausted  = "retries_exhausted"
	ReasonNotLeader         = "not_leader"
	ReasonNotEnoughReplicas = "not_enough_replicas"
	ReasonTopicMissing      = "topic_missing"
	ReasonAuth              = "auth"
	ReasonMessageTooLarge   = "message_too_large"
	ReasonBehindSchedule    = "behind_schedule"
	ReasonClientClosed      = "client_closed"
	ReasonTransaction       = "transaction"
	ReasonOther             = "other"
)

// FailureReasons lists every reason, in exposition order.
var FailureReasons = []string{ReasonTimeout, ReasonRetriesExhausted, ReasonNotLeader, ReasonNotEnoughReplicas,
	ReasonTopicMissing, ReasonAuth, ReasonMessageTooLarge, ReasonBehindSchedule, ReasonClientClosed, ReasonTransaction, ReasonOther}

// The clients of ClientFailedHook: the probe's Kafka clients (with
// "replica", its replica reader's on the target cluster), and "group", the
// setting of its group's start offsets.
const (
	ClientAdmin    = kclient.RoleAdmin
	ClientProducer = kclient.RoleProducer
	ClientConsumer = kclient.RoleConsumer
	ClientReplica  = kclient.RoleReplica
	ClientGroup    = "group"
)

// The reasons of ClientFailedHook: "config" (the client could not be built
// from the configuration, e.g. a TLS file that went away after start),
// "auth" (the cluster refused who we are or what we may do, e.g. a denied
// group ACL) and "other".
const (
	ClientReasonConfig = "config"
	ClientReasonAuth   = ReasonAuth
	ClientReasonOther  = ReasonOther
)

// ClientNames and ClientFailureReasons list the clients and reasons.
var (
	ClientNames          = []string{ClientAdmin, ClientProducer, ClientConsumer, ClientReplica, ClientGroup}
	ClientFailureReasons = []string{ClientReasonConfig, ClientReasonAuth, ClientReasonOther}
)

// Causes of a rebalance, as one member of the probe's group observes it
// (Rebalance.Cause).
const (
	// CauseJoined: the member's own first assignment, when it starts.
	CauseJoined = "joined"
	// CauseLost: the member lost its partitions (session timed out,
	// fenced), franz-go's OnPartitionsLost.
	CauseLost = "lost"
	// CauseChurn: the extra member of consumer.churn joined or left
	// shortly before.
	CauseChurn = "churn"
	// CausePartitionsAdded: the topic grew shortly before.
	CausePartitionsAdded = "partitions_added"
	// CauseReassigned: the coordinator moved partitions to or from the
	// member for a reason it cannot see (a member joined or left).
	CauseReassigned = "reassigned"
)

// RebalanceCauses lists every cause, in exposition order.
var RebalanceCauses = []string{CauseJoined, CauseLost, CauseChurn, CausePartitionsAdded, CauseReassigned}

// Results of a capacity run (CapacityRun.Result).
const (
	CapacityOK      = "ok"      // the ramp ran to a limit
	CapacityAborted = "aborted" // stopped by reload or shutdown
	CapacityError   = "error"   // could not ramp: no client, no topic, the cluster down during a step
)

// Limits: why a capacity run stopped (CapacityRun.Limit).
const (
	LimitLatency = "latency" // a step's p99 exceeded the SLO
	LimitRate    = "rate"    // a step achieved less than minAchieved of its target
	LimitErrors  = "errors"  // a step had produce (or, with end_to_end_slo, consume) errors
	LimitCeiling = "ceiling" // the step at max_rate / max_bytes_per_second passed
)

// CapacityResults and CapacityLimits list the values, in exposition order.
var (
	CapacityResults = []string{CapacityOK, CapacityAborted, CapacityError}
	CapacityLimits  = []string{LimitLatency, LimitRate, LimitErrors, LimitCeiling}
)

// CapacityRun is the outcome of one run of a probe's capacity canary, ended
// at End.
type CapacityRun struct {
	// Result is one of CapacityResults; Limit one of CapacityLimits, ""
	// when the run reached none.
	Result, Limit string
	// The capacity found, set when Result is CapacityOK.
	RecordsPerSecond, BytesPerSecond float64
	P99                              time.Duration
	End                              time.Time
}

// CapacitySink hears of the runs of the capacity canaries
// (capacity.Options.Metrics).
type CapacitySink interface {
	// ForCapacity is called once per canary, for probe, whose runs are
	// interval apart.
	ForCapacity(probe string, interval time.Duration) CapacityHook
}

// CapacityHook hears of one canary's runs until it stops.
type CapacityHook interface {
	OnCapacityRun(CapacityRun)
	OnCapacityStopped()
}

// Tiers of a record a catch-up read read (CatchUpReadHook): the brokers'
// local log, the remote tier (below the local log start, KIP-405), or
// unknown (the brokers do not answer ListOffsets for the earliest local
// offset, KIP-1005).
const (
	CatchUpLocal   = "local"
	CatchUpRemote  = "remote"
	CatchUpUnknown = "unknown"
)

// Why a catch-up read ended (CatchUpRun.End).
const (
	CatchUpEndOffsets   = "end_offsets" // read up to the end offsets found at the start
	CatchUpEndRecords   = "max_records"
	CatchUpEndBytes     = "max_bytes"
	CatchUpEndDuration  = "max_duration"
	CatchUpEndRetention = "retention" // retention deleted offsets the read had yet to read
	CatchUpEndError     = "error"     // the offsets could not be listed or the reader built
)

// CatchUpTiers and CatchUpEnds list the values, in exposition order.
var (
	CatchUpTiers = []string{CatchUpLocal, CatchUpRemote, CatchUpUnknown}
	CatchUpEnds  = []string{CatchUpEndOffsets, CatchUpEndRecords, CatchUpEndBytes, CatchUpEndDuration, CatchUpEndRetention, CatchUpEndError}
)

// CatchUpRun is one catch-up read of a probe's window (config.CatchUp,
// named by its From) that ended.
type CatchUpRun struct {
	// Window is the window's From.
	Window string
	// End is one of CatchUpEnds.
	End string
	// Start is when the reader started, First and Last when it read its
	// first and last record (the probe's steady clock); First and Last
	// are set only when Records > 0.
	Start, First, Last time.Time
	// Ended is when the read ended, on the wall clock.
	Ended time.Time
	// Records and Bytes (record values) the read read.
	Records, Bytes int64
	// Age is that of the first record read, at the read's start.
	Age time.Duration
	// Remote: the read started below a partition's local log start;
	// known only when RemoteKnown (the brokers told the local log start).
	Remote, RemoteKnown bool
	// Missing: probe records of this process missing between two records
	// read, less those the producer gave up on and those of aborted
	// transactions. OutOfOrder: read after a later record of the same
	// partition and run. Duplicated: read more than once. Unchecked: read
	// but with gaps that cannot be checked (another run's, not probe
	// records, a run with too many records given up on to keep).
	Missing, OutOfOrder, Duplicated, Unchecked uint64
}
