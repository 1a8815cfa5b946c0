package event

import (
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// The probe's life.
type (
	// TopicHook is told: the probe topic was described: its partition count and
	// replication factor (at start, and after its partitions changed).
	TopicHook interface {
		OnTopic(partitions int32, replicationFactor int16)
	}
	// LeadersHook is told: the partitions' leaders changed; leaders[p] is the
	// leader of partition p, -1 when none is known yet. The slice is
	// never changed afterwards.
	LeadersHook interface{ OnLeaders(leaders []int32) }
	// UpHook is told: whether records were produced and consumed within the up
	// window, at each check.
	UpHook interface{ OnUp(up bool) }
	// ClientFailedHook is told: building or starting one of the probe's clients
	// failed and will be retried (client of ClientNames, reason of
	// ClientFailureReasons).
	ClientFailedHook interface{ OnClientFailed(client, reason string) }
	// StoppedHook is told: the probe stopped; no event follows.
	StoppedHook interface{ OnProbeStopped() }
)

// The producer's.
type (
	// SentHook is told: a record was handed to the client sendDelay after its
	// intended send time.
	SentHook interface{ OnSent(sendDelay time.Duration) }
	// ProducedHook is told: a record was acknowledged.
	ProducedHook interface{ OnProduced(Produced) }
	// FailedHook is told: n records were given up on, for a reason of
	// FailureReasons.
	FailedHook interface{ OnFailed(reason string, n int) }
	// TxnEndedHook is told: a transaction ended.
	TxnEndedHook interface{ OnTxnEnded(TxnEnd) }
	// NotCommittedHook is told: records [lo, hi) of partition, produced by run
	// and acknowledged, whose transaction was aborted or did not end: no
	// consumer is to expect them.
	NotCommittedHook interface {
		OnNotCommitted(run uint64, partition int32, lo, hi uint64)
	}
)

// The consumer group's.
type (
	// ConsumedHook is told: a record was read.
	ConsumedHook interface{ OnConsumed(Consumed) }
	// PolledHook is told: a poll returned records (transaction markers left out).
	PolledHook interface{ OnPolled(records int) }
	// AnomalyHook is told: n records were duplicated, out of order, lost or read
	// from aborted transactions (the consumer's and the share group's).
	AnomalyHook interface{ OnAnomaly(a Anomaly, n uint64) }
	// CommitHook is told: an offset commit succeeded after took, or failed.
	CommitHook interface {
		OnCommit(took time.Duration, failed bool)
	}
	// FetchedHook is told: a fetched batch of records of partition, served by
	// broker fetchBroker (a follower with a rack-aware replica selector).
	FetchedHook interface {
		OnFetched(partition, fetchBroker int32, records int)
	}
	// LagHook is told: the group's lag, at each lag tick.
	LagHook interface{ OnLag(Lag) }
	// RebalanceHook is told: a member of the group went through a rebalance.
	RebalanceHook interface{ OnRebalance(Rebalance) }
	// GroupProtocolHook is told: the coordinator described the group as running
	// protocol (consumer or classic).
	GroupProtocolHook interface{ OnGroupProtocol(protocol string) }
	// PartitionsHook is told: partitions assigned to, revoked from or lost by a
	// member.
	PartitionsHook interface {
		OnPartitions(assigned, revoked, lost int)
	}
)

// The share group's (consumer.kind share).
type (
	// ShareDeliveredHook is told: a record was delivered to a member.
	ShareDeliveredHook interface{ OnShareDelivered(ShareDelivery) }
	// ShareAckedHook is told: the acknowledgement action of an own record was
	// confirmed by the broker, or not.
	ShareAckedHook interface {
		OnShareAcked(action tracker.ShareAction, confirmed bool)
	}
	// ShareAckLatencyHook is told: a partition's set of a poll's
	// acknowledgements was confirmed took after it was sent.
	ShareAckLatencyHook interface{ OnShareAckLatency(took time.Duration) }
	// ShareArchivedHook is told: n records were archived without being accepted:
	// rejected, or at the delivery attempt limit.
	ShareArchivedHook interface {
		OnShareArchived(rejected bool, n uint64)
	}
	// ShareUnknownHook is told: n acknowledgements of own records whose
	// outcome the broker did not tell were settled, as r says.
	ShareUnknownHook interface {
		OnShareUnknown(r tracker.UnknownResolution, n uint64)
	}
	// ShareGroupHook is told: the share group's lag and member count, at each lag
	// tick.
	ShareGroupHook interface{ OnShareGroup(lag, members Gauge) }
)

// The replica reader's (a replica block).
type (
	// ReplicaReadHook is told: a record of this run was read from the replica
	// cluster, latency after its intended send time.
	ReplicaReadHook interface{ OnReplicaRead(latency time.Duration) }
	// ReplicaAnomalyHook is told: as AnomalyHook, on the replica cluster.
	ReplicaAnomalyHook interface {
		OnReplicaAnomaly(a Anomaly, n uint64)
	}
	// ReplicaLagHook is told: records acknowledged by the source and not yet read
	// from the replica, and the age of the oldest of them.
	ReplicaLagHook interface {
		OnReplicaLag(records, seconds float64)
	}
)

// The catch-up reads' (catch_up windows).
type (
	// CatchUpReadHook is told: a poll of a catch-up read of window read
	// records of bytes (record values) served by tier (of CatchUpTiers).
	CatchUpReadHook interface {
		OnCatchUpRead(window, tier string, records, bytes int64)
	}
	// CatchUpFetchHook is told: a fetch of a catch-up reader of window
	// took latency, from writing its request to reading its response.
	CatchUpFetchHook interface {
		OnCatchUpFetch(window string, latency time.Duration)
	}
	// CatchUpRunHook is told: a catch-up read ended.
	CatchUpRunHook interface{ OnCatchUpRun(CatchUpRun) }
)

// Hooks are a probe's hooks, by kind: the engine calls an event's method
// here, which calls every hook of that kind. It is made once (New) and
// never changed, so its methods are safe for concurrent use.
type Hooks struct {
	topic         []TopicHook
	leaders       []LeadersHook
	up            []UpHook
	clientFailed  []ClientFailedHook
	stopped       []StoppedHook
	sent          []SentHook
	produced      []ProducedHook
	failed        []FailedHook
	txnEnded      []TxnEndedHook
	notCommitted  []NotCommittedHook
	consumed      []ConsumedHook
	polled        []PolledHook
	anomaly       []AnomalyHook
	commit        []CommitHook
	fetched       []FetchedHook
	lag           []LagHook
	rebalance     []RebalanceHook
	groupProtocol []GroupProtocolHook
	partitions    []PartitionsHook
	shareDeliv    []ShareDeliveredHook
	shareAcked    []ShareAckedHook
	shareAckLat   []ShareAckLatencyHook
	shareArchived []ShareArchivedHook
	shareUnknown  []ShareUnknownHook
	shareGroup    []ShareGroupHook
	replicaRead   []ReplicaReadHook
	replicaAnom   []ReplicaAnomalyHook
	replicaLag    []ReplicaLagHook
	catchUpRead   []CatchUpReadHook
	catchUpFetch  []CatchUpFetchHook
	catchUpRun    []CatchUpRunHook
}

// add appends h to *s when it implements H.
func add[H any](s *[]H, h Hook) {
	if x, ok := h.(H); ok {
		*s = append(*s, x)
	}
}

// New sorts hooks by the kinds each implements; nil hooks are skipped.
func New(hooks ...Hook) *Hooks {
	hs := &Hooks{}
	for _, h := range hooks {
		if h == nil {
			continue
		}
		add(&hs.topic, h)
		add(&hs.leaders, h)
		add(&hs.up, h)
		add(&hs.clientFailed, h)
		add(&hs.stopped, h)
		add(&hs.sent, h)
		add(&hs.produced, h)
		add(&hs.failed, h)
		add(&hs.txnEnded, h)
		add(&hs.notCommitted, h)
		add(&hs.consumed, h)
		add(&hs.polled, h)
		add(&hs.anomaly, h)
		add(&hs.commit, h)
		add(&hs.fetched, h)
		add(&hs.lag, h)
		add(&hs.rebalance, h)
		add(&hs.groupProtocol, h)
		add(&hs.partitions, h)
		add(&hs.shareDeliv, h)
		add(&hs.shareAcked, h)
		add(&hs.shareAckLat, h)
		add(&hs.shareArchived, h)
		add(&hs.shareUnknown, h)
		add(&hs.shareGroup, h)
		add(&hs.replicaRead, h)
		add(&hs.replicaAnom, h)
		add(&hs.replicaLag, h)
		add(&hs.catchUpRead, h)
		add(&hs.catchUpFetch, h)
		add(&hs.catchUpRun, h)
	}
	return hs
}

// Topic calls every TopicHook.
func (hs *Hooks) Topic(partitions int32, rf int16) {
	for _, h := range hs.topic {
		h.OnTopic(partitions, rf)
	}
}

// Leaders calls every LeadersHook.
func (hs *Hooks) Leaders(leaders []int32) {
	for _, h := range hs.leaders {
		h.OnLeaders(leaders)
	}
}

// Up calls every UpHook.
func (hs *Hooks) Up(up bool) {
	for _, h := range hs.up {
		h.OnUp(up)
	}
}

// ClientFailed calls every ClientFailedHook.
func (hs *Hooks) ClientFailed(client, reason string) {
	for _, h := range hs.clientFailed {
		h.OnClientFailed(client, reason)
	}
}

// Stopped calls every StoppedHook.
func (hs *Hooks) Stopped() {
	for _, h := range hs.stopped {
		h.OnProbeStopped()
	}
}

// Sent calls every SentHook.
func (hs *Hooks) Sent(sendDelay time.Duration) {
	for _, h := range hs.sent {
		h.OnSent(sendDelay)
	}
}

// Produced calls every ProducedHook.
func (hs *Hooks) Produced(e Produced) {
	for _, h := range hs.produced {
		h.OnProduced(e)
	}
}

// Failed calls every FailedHook.
func (hs *Hooks) Failed(reason string, n int) {
	for _, h := range hs.failed {
		h.OnFailed(reason, n)
	}
}

// TxnEnded calls every TxnEndedHook.
func (hs *Hooks) TxnEnded(e TxnEnd) {
	for _, h := range hs.txnEnded {
		h.OnTxnEnded(e)
	}
}

// NotCommitted calls every NotCommittedHook.
func (hs *Hooks) NotCommitted(run uint64, partition int32, lo, hi uint64) {
	for _, h := range hs.notCommitted {
		h.OnNotCommitted(run, partition, lo, hi)
	}
}

// Consumed calls every ConsumedHook.
func (hs *Hooks) Consumed(e Consumed) {
	for _, h := range hs.consumed {
		h.OnConsumed(e)
	}
}

// Polled calls every PolledHook.
func (hs *Hooks) Polled(records int) {
	for _, h := range hs.polled {
		h.OnPolled(records)
	}
}

// Anomaly calls every AnomalyHook; n 0 calls none.
func (hs *Hooks) Anomaly(a Anomaly, n uint64) {
	if n == 0 {
		return
	}
	for _, h := range hs.anomaly {
		h.OnAnomaly(a, n)
	}
}

// Commit calls every CommitHook.
func (hs *Hooks) Commit(took time.Duration, failed bool) {
	for _, h := range hs.commit {
		h.OnCommit(took, failed)
	}
}

// WantsFetched says a hook hears of fetched batches: without one the
// consumers install no fetch hook in their clients.
func (hs *Hooks) WantsFetched() bool { return len(hs.fetched) > 0 }

// Fetched calls every FetchedHook.
func (hs *Hooks) Fetched(partition, fetchBroker int32, records int) {
	for _, h := range hs.fetched {
		h.OnFetched(partition, fetchBroker, records)
	}
}

// Lag calls every LagHook.
func (hs *Hooks) Lag(l Lag) {
	for _, h := range hs.lag {
		h.OnLag(l)
	}
}

// Rebalance calls every RebalanceHook.
func (hs *Hooks) Rebalance(r Rebalance) {
	for _, h := range hs.rebalance {
		h.OnRebalance(r)
	}
}

// GroupProtocol calls every GroupProtocolHook.
func (hs *Hooks) GroupProtocol(protocol string) {
	for _, h := range hs.groupProtocol {
		h.OnGroupProtocol(protocol)
	}
}

// Partitions calls every PartitionsHook.
func (hs *Hooks) Partitions(assigned, revoked, lost int) {
	for _, h := range hs.partitions {
		h.OnPartitions(assigned, revoked, lost)
	}
}

// ShareDelivered calls every ShareDeliveredHook.
func (hs *Hooks) ShareDelivered(d ShareDelivery) {
	for _, h := range hs.shareDeliv {
		h.OnShareDelivered(d)
	}
}

// ShareAcked calls every ShareAckedHook.
func (hs *Hooks) ShareAcked(action tracker.ShareAction, confirmed bool) {
	for _, h := range hs.shareAcked {
		h.OnShareAcked(action, confirmed)
	}
}

// ShareAckLatency calls every ShareAckLatencyHook.
func (hs *Hooks) ShareAckLatency(took time.Duration) {
	for _, h := range hs.shareAckLat {
		h.OnShareAckLatency(took)
	}
}

// ShareArchived calls every ShareArchivedHook; n 0 calls none.
func (hs *Hooks) ShareArchived(rejected bool, n uint64) {
	if n == 0 {
		return
	}
	for _, h := range hs.shareArchived {
		h.OnShareArchived(rejected, n)
	}
}

// ShareUnknown calls every ShareUnknownHook; n 0 calls none.
func (hs *Hooks) ShareUnknown(r tracker.UnknownResolution, n uint64) {
	if n == 0 {
		return
	}
	for _, h := range hs.shareUnknown {
		h.OnShareUnknown(r, n)
	}
}

// ShareGroup calls every ShareGroupHook.
func (hs *Hooks) ShareGroup(lag, members Gauge) {
	for _, h := range hs.shareGroup {
		h.OnShareGroup(lag, members)
	}
}

// ReplicaRead calls every ReplicaReadHook.
func (hs *Hooks) ReplicaRead(latency time.Duration) {
	for _, h := range hs.replicaRead {
		h.OnReplicaRead(latency)
	}
}

// ReplicaAnomaly calls every ReplicaAnomalyHook; n 0 calls none.
func (hs *Hooks) ReplicaAnomaly(a Anomaly, n uint64) {
	if n == 0 {
		return
	}
	for _, h := range hs.replicaAnom {
		h.OnReplicaAnomaly(a, n)
	}
}

// ReplicaLag calls every ReplicaLagHook.
func (hs *Hooks) ReplicaLag(records, seconds float64) {
	for _, h := range hs.replicaLag {
		h.OnReplicaLag(records, seconds)
	}
}

// CatchUpRead calls every CatchUpReadHook; records 0 calls none.
func (hs *Hooks) CatchUpRead(window, tier string, records, bytes int64) {
	if records == 0 {
		return
	}
	for _, h := range hs.catchUpRead {
		h.OnCatchUpRead(window, tier, records, bytes)
	}
}

// CatchUpFetch calls every CatchUpFetchHook.
func (hs *Hooks) CatchUpFetch(window string, latency time.Duration) {
	for _, h := range hs.catchUpFetch {
		h.OnCatchUpFetch(window, latency)
	}
}

// CatchUpRun calls every CatchUpRunHook.
func (hs *Hooks) CatchUpRun(r CatchUpRun) {
	for _, h := range hs.catchUpRun {
		h.OnCatchUpRun(r)
	}
}
