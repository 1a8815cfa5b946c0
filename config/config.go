// Package config holds the exporter's configuration: the YAML file, its
// defaults and its validation. Probe client settings use Kafka's own property
// names (acks, linger.ms, batch.size, ...) so that every row of a hand-made
// kafka-producer-perf-test table maps onto a probe one to one.
package config

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/kafka-bench/kafka_bench_exporter/kafkaprops"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// HeaderSize is the size of the header every probe record starts with:
// record_size may not be smaller. Its layout is probes/payload's, which
// fills exactly these bytes (a compile-time check there).
const HeaderSize = 36

// BatchOverhead bounds the bytes a record batch adds around one record value
// (batch header 61 bytes plus record framing), so batch and request limits
// can be checked against record_size.
const BatchOverhead = 128

// Config is the whole configuration file.
type Config struct {
	Kafka Kafka `yaml:"kafka"`
	// Probes absent (nil) means the default probe; an explicit empty list
	// (probes: []) runs none: host-agent mode (HostAgent).
	Probes []Probe `yaml:"probes" default:"(absent: the {default} probe of the {--probe.*} flags)" values:"{[]}: no probe, host-agent mode" doc:"the probes, each a steady producer/consumer pair"`
	Host   Host    `yaml:"host"`
	// ConfigPollInterval is how often broker and probe topic configurations
	// are read to notice changes (exporter/configwatch); 0 turns it off.
	ConfigPollInterval model.Duration `yaml:"config_poll_interval" values:"≥ 0 (a negative value: {must not be negative})" doc:"how often broker and probe topic configurations are read (Configuration changes); 0 = off"`
	// Groups exports every consumer group's lag (package groups).
	Groups Groups `yaml:"groups"`
}

// Kafka says how to reach the cluster.
type Kafka struct {
	// Brokers is the bootstrap list; empty starts the embedded cluster.
	Brokers  []string `yaml:"brokers" doc:"bootstrap list; empty starts the embedded cluster"`
	ClientID string   `yaml:"client_id" values:"at most 256 characters, including the {-capacity-<probe>} suffix of capacity clients (franz-go)" doc:"client.id of every client"`
	TLS      TLS      `yaml:"tls"`
	SASL     SASL     `yaml:"sasl"`
	// PropertiesFile is a Kafka client properties file merged under this
	// configuration when it is loaded (Load; clientprops.go).
	PropertiesFile string `yaml:"properties_file" default:"(none)" doc:"a Kafka client properties file (the {client.properties} of {kafka-producer-perf-test --producer.config}): its connection, TLS and SASL keys apply to this block, its producer and consumer keys to every probe's {producer} and {consumer}; a key this file sets too keeps this file's value; relative paths in it are relative to it; see Configuration"`
}

// Probe is one named steady-state producer/consumer pair.
type Probe struct {
	Name        string      `yaml:"name" default:"(required)" values:"{[a-z0-9_-]+}, at most 64 characters, unique" doc:"becomes the {probe} label"`
	Topic       string      `yaml:"topic" default:"{kafka-bench-<name>}" doc:"one topic per probe (sequence numbers are per probe)"`
	CreateTopic CreateTopic `yaml:"create_topic"`
	// Rate is the target in records/s; 0 sends as fast as buffer.memory allows.
	Rate       float64 `yaml:"rate" values:"0, or 1e-9 … 10000000 (1e7), a finite number (NaN and Inf are refused)" doc:"records/s; 0 = as fast as {buffer.memory} allows"`
	RecordSize int     `yaml:"record_size" values:"36 … 104856576 (100 MiB − 1 KiB: a record's batch in a produce request must fit franz-go's 100 MiB request limit, Kafka's default {socket.request.max.bytes}; the topic's {max.message.bytes} and {buffer.memory} must be raised to match)" doc:"record value bytes, at least the 36-byte probe header; with {payload.kind: file} it is set from the file (header + longest entry)"`
	// Payload is what follows the header; with kind file, Resolve sets
	// RecordSize to the largest record the file makes.
	Payload Payload `yaml:"payload"`
	// LossGracePeriod is how long a record Kafka acknowledged may stay
	// missing, once the consumer read past it, before it counts as lost.
	// It runs from the acknowledgement, so it needs no relation to
	// delivery.timeout.ms: a record still in flight is never lost.
	LossGracePeriod model.Duration `yaml:"loss_grace_period" values:"> 0" doc:"an acknowledged record the consumer read past and that is still missing this long after its acknowledgement counts as lost; runs from the acknowledgement, so it needs no relation to {delivery.timeout.ms}"`
	// LagInterval is how often consumer lag and probe_up are refreshed.
	LagInterval model.Duration `yaml:"lag_interval" values:"> 0" doc:"how often lag, loss and {probe_up} are updated"`
	// RoundInterval is the time between two rounds of records: every
	// record of a round shares its intended time and one wake-up of the
	// producer (0 = one record at a time).
	RoundInterval model.Duration `yaml:"round_interval" values:"0 … 10s" doc:"records are sent in rounds this far apart, all of a round sharing its intended time (at most one {batch.size} per partition per round); {0} = one record at a time; see How it measures"`
	Producer      Producer       `yaml:"producer"`
	Consumer      Consumer       `yaml:"consumer"`
	// Capacity, when set, runs the capacity canary (see Capacity).
	Capacity *Capacity `yaml:"capacity,omitempty" default:"(off)" values:"present = on" doc:"the capacity canary"`
	// Replica, when set, also reads the probe's records from the cluster
	// a replicator copies the topic to (see Replica).
	Replica *Replica `yaml:"replica,omitempty" default:"(off)" values:"present = on" doc:"the cross-cluster canary: also read the probe's records from the cluster a replicator (MirrorMaker 2, a cluster link) copies the topic to; see Cross-cluster"`
	// CatchUp are the probe's catch-up windows (see CatchUp); none by
	// default.
	CatchUp []CatchUp `yaml:"catch_up,omitempty" default:"(none)" values:"a list of windows, each its own {from}" doc:"catch-up reads: every {interval} a reader without a group reads a window of the probe's own topic from a given age back (or from its start), checks every record and measures the throughput of reading a backlog, from disk or from the remote tier; see How it measures"`
}

// CreateTopic says how the probe topic is created when it is missing.
type CreateTopic struct {
	Enabled           bool              `yaml:"enabled" doc:"create the topic when missing; an existing topic that differs is logged (WARN) and shown in {kafka_bench_probe_info}, never altered"`
	Partitions        int32             `yaml:"partitions" values:"≥ 1" doc:"partitions of a created topic"`
	ReplicationFactor int16             `yaml:"replication_factor" values:"≥ 1, or -1 for the broker default" doc:"replication factor of a created topic"`
	Configs           map[string]string `yaml:"configs" doc:"topic configs of a created topic, e.g. {min.insync.replicas}, {retention.ms}"`
	// LeaderOnEveryBroker adds partitions up to the broker count and
	// moves replicas so that every broker leads one (probes/leaders.go).
	LeaderOnEveryBroker bool `yaml:"leader_on_every_broker" values:"needs {create_topic.enabled}" doc:"add partitions up to the broker count and move replicas so every broker leads one; see Broker coverage"`
}

// Producer holds Kafka producer properties, by Kafka's names.
type Producer struct {
	Acks              string `yaml:"acks" values:"{0}, {1}, {all} ({-1})" doc:"with {0} the lag-in-seconds gauges are absent (see How it measures)"`
	LingerMS          int    `yaml:"linger.ms"`
	BatchSize         int    `yaml:"batch.size" values:"> 0, at most 104857600 (franz-go's request limit)" doc:"franz-go always batches; Kafka's 0 (one record per batch) is refused; the batch limit is max(batch.size, record_size + 128), which franz-go needs ≥ 512"`
	BufferMemory      int64  `yaml:"buffer.memory" values:"≥ record_size"`
	CompressionType   string `yaml:"compression.type" values:"{none}, {gzip}, {snappy}, {lz4}, {zstd}"`
	EnableIdempotence *bool  `yaml:"enable.idempotence" default:"true with acks=all and retries > 0, else false" values:"true requires acks=all and retries > 0"`
	MaxInFlight       int    `yaml:"max.in.flight.requests.per.connection" values:"≥ 1; ≤ 5 with idempotence"`
	RequestTimeoutMS  int    `yaml:"request.timeout.ms"`
	DeliveryTimeoutMS int    `yaml:"delivery.timeout.ms"`
	Retries           int    `yaml:"retries" values:"≥ 0"`
	// MaxRequestSize, when set, bounds every request to a broker; unset,
	// franz-go's 100 MiB.
	MaxRequestSize *int32 `yaml:"max.request.size"`
	// Compression levels apply with their compression.type; unset, the
	// codec's default.
	CompressionGzipLevel *int `yaml:"compression.gzip.level" default:"unset: gzip's default" values:"-1, 1 … 9" doc:"applies with {compression.type: gzip}"`
	CompressionLz4Level  *int `yaml:"compression.lz4.level" default:"unset: franz-go's fastest" values:"1 … 9 (franz-go's lz4; Kafka's go to 17)" doc:"applies with {compression.type: lz4}"`
	CompressionZstdLevel *int `yaml:"compression.zstd.level" default:"unset: zstd's default" values:"-131072 … 22" doc:"applies with {compression.type: zstd}; franz-go's zstd has four speeds, a level picks the nearest"`
	MetadataMaxAgeMS     int  `yaml:"metadata.max.age.ms"`
	// ConnectionsMaxIdleMS unset is franz-go's 30 s.
	ConnectionsMaxIdleMS *int `yaml:"connections.max.idle.ms"`
	EnableMetricsPush    bool `yaml:"enable.metrics.push"`
	// Props are the plain properties without a field (kafkaprops.Plain).
	Props Props `yaml:",inline" kafka:"producer"`
	// TransactionalID, when set, makes the producer transactional (see
	// How it measures): records are written in transactions of
	// TransactionDurationMS, a share TransactionAbortRatio of them aborted.
	TransactionalID string `yaml:"transactional.id" default:"unset: no transactions" values:"not blank" doc:"the producer writes in transactions; the id the broker sees is {<transactional.id>-<probe>-<host name>}, so that two exporters or two probes never fence each other; requires {enable.idempotence}"`
	// TransactionTimeoutMS is the broker's limit on an open transaction.
	TransactionTimeoutMS int `yaml:"transaction.timeout.ms" values:"> transaction.duration.ms, at most the brokers' transaction.max.timeout.ms" doc:"applies with {transactional.id}"`
	// TransactionDurationMS is how long the probe keeps a transaction
	// open (ProducerPerformance's --transaction-duration-ms).
	TransactionDurationMS int `yaml:"transaction.duration.ms" values:"≥ 1" doc:"applies with {transactional.id}: each transaction holds the records due in this time, then commits (or aborts); a {read_committed} consumer reads them at the end, so it adds up to this much to their end-to-end latency"`
	// TransactionAbortRatio is the share of transactions aborted on
	// purpose, spread evenly (every 1/ratio-th).
	TransactionAbortRatio float64 `yaml:"transaction.abort.ratio" values:"0 … 1" doc:"with {transactional.id}: this share of the transactions is aborted on purpose; a {read_committed} consumer must read none of their records ({kafka_bench_transaction_aborted_records_read_total}), and none counts as lost"`
}

// Transactional reports a producer with transactional.id.
func (p *Producer) Transactional() bool { return p.TransactionalID != "" }

// ReadCommitted reports isolation.level read_committed.
func (c *Consumer) ReadCommitted() bool { return c.IsolationLevel == "read_committed" }

// Consumer holds Kafka consumer properties, by Kafka's names, plus the number
// of group members (the seeds' consumer threads).
type Consumer struct {
	Enabled                bool   `yaml:"enabled" doc:"false: produce only"`
	GroupID                string `yaml:"group.id" default:"{kafka-bench-<name>}" values:"not empty"`
	FetchMinBytes          int32  `yaml:"fetch.min.bytes"`
	FetchMaxBytes          int32  `yaml:"fetch.max.bytes"`
	MaxPartitionFetchBytes int32  `yaml:"max.partition.fetch.bytes"`
	FetchMaxWaitMS         int    `yaml:"fetch.max.wait.ms"`
	MaxPollRecords         int    `yaml:"max.poll.records"`
	AutoCommitIntervalMS   int    `yaml:"auto.commit.interval.ms"`
	// SessionTimeoutMS and HeartbeatIntervalMS belong to the classic
	// protocol: unset, Kafka's defaults (SessionTimeout, HeartbeatInterval).
	SessionTimeoutMS    *int   `yaml:"session.timeout.ms" default:"{45000}" values:"100 … 2147483647 (franz-go); with {group.protocol: classic} only, as in Kafka"`
	HeartbeatIntervalMS *int   `yaml:"heartbeat.interval.ms" default:"{3000}" values:"≥ 1, below session.timeout.ms; with {group.protocol: classic} only, as in Kafka"`
	AutoOffsetReset     string `yaml:"auto.offset.reset" values:"{earliest}, {latest}" doc:"applies to a committed offset out of range: partitions found at start begin at their end, partitions added later at their start (see How it measures)"`
	// GroupProtocol is classic or consumer (KIP-848).
	GroupProtocol       string `yaml:"group.protocol" values:"{classic}, {consumer}" doc:"{consumer}: the KIP-848 protocol, where the broker assigns (Kafka 4.0+; franz-go falls back to classic when the broker lacks it: {kafka_bench_consumer_group_protocol_info} shows the one in use)"`
	GroupRemoteAssignor string `yaml:"group.remote.assignor" default:"unset: {uniform}" values:"{uniform}, {range}; with {group.protocol: consumer} only" doc:"the broker's assignor of the group"`
	// PartitionAssignmentStrategy is a comma-separated list of assignors,
	// in order of preference; empty is cooperative-sticky.
	PartitionAssignmentStrategy string `yaml:"partition.assignment.strategy" default:"unset: {cooperative-sticky}" values:"comma-separated {range}, {roundrobin}, {sticky}, {cooperative-sticky} (or Java class names); with {group.protocol: classic} only" doc:"the client-side assignors, in order of preference; Java's default is {range, cooperative-sticky}"`
	GroupInstanceID             string `yaml:"group.instance.id" default:"unset: dynamic membership" values:"not blank" doc:"static membership (KIP-345): a restarted member gets its partitions back without a rebalance; with several consumers, member i's id ends in {-i}"`
	IsolationLevel              string `yaml:"isolation.level" values:"{read_uncommitted}, {read_committed}"`
	CheckCRCs                   bool   `yaml:"check.crcs"`
	ClientRack                  string `yaml:"client.rack" default:"unset: no rack" doc:"the consumer's rack: fetches from a replica in it where the brokers' replica selector allows (KIP-392), and rack-aware assignment with the classic range and sticky assignors (KIP-881)"`
	// MaxPollIntervalMS unset is franz-go's rebalance timeout, 60 s.
	MaxPollIntervalMS     *int `yaml:"max.poll.interval.ms" default:"unset: franz-go's 60000" values:"100 … 2147483647 (franz-go)" doc:"the rebalance timeout the member sends when it joins"`
	AllowAutoCreateTopics bool `yaml:"allow.auto.create.topics"`
	MetadataMaxAgeMS      int  `yaml:"metadata.max.age.ms"`
	// ConnectionsMaxIdleMS unset is franz-go's 30 s.
	ConnectionsMaxIdleMS *int `yaml:"connections.max.idle.ms"`
	EnableMetricsPush    bool `yaml:"enable.metrics.push"`
	// Props are the plain properties without a field (kafkaprops.Plain).
	Props     Props `yaml:",inline" kafka:"consumer"`
	Consumers int   `yaml:"consumers" values:"1 … 256" doc:"group members, each its own client (the seeds' consumer threads)"`
	// Churn, when set, makes rebalances happen on a schedule (see Churn).
	Churn *Churn `yaml:"churn,omitempty" default:"(off)" values:"present = on" doc:"one more member joins the probe's group every {interval} and leaves after {duration}, reading and committing as the probe's own members do: two rebalances per interval, measured as any other ({cause} {churn} at the other members)"`
	// Kind is ConsumerKindGroup (a consumer group) or ConsumerKindShare
	// (a share group, configured in Share).
	Kind  string `yaml:"kind" values:"{group}, {share}" doc:"{group}: a consumer group; {share}: a share group (KIP-932, Kafka 4.2+), whose members share every partition and acknowledge each record (see How it measures); with {share}, {isolation.level} is set as the group's {share.isolation.level} at every start, group.id, auto.commit.interval.ms and the session and heartbeat keys do not apply, and auto.offset.reset, group.protocol, group.remote.assignor, partition.assignment.strategy, group.instance.id, max.poll.interval.ms and churn are refused (a consumer group's alone); the other consumer keys apply to both"`
	Share Share  `yaml:"share"`
}

// Churn has one more member join the probe's group every Interval and
// leave after Duration, so that the group rebalances twice per interval
// and rebalance time is measured all the time.
type Churn struct {
	Interval model.Duration `yaml:"interval" values:"> 0" doc:"time from one join of the extra member to the next"`
	Duration model.Duration `yaml:"duration" values:"> 0, below {interval}" doc:"how long the extra member stays in the group"`
}

// Defaults of a churn block.
const (
	DefaultChurnInterval = 10 * time.Minute
	DefaultChurnDuration = time.Minute
)

// SetDefaults fills a churn block's defaults.
func (c *Churn) SetDefaults() {
	c.Interval = model.Duration(DefaultChurnInterval)
	c.Duration = model.Duration(DefaultChurnDuration)
}

// UnmarshalYAML fills the defaults of the keys the block leaves out.
func (c *Churn) UnmarshalYAML(n *yaml.Node) error {
	c.SetDefaults()
	type plain Churn
	return n.Decode((*plain)(c))
}

func (c *Churn) validate(s string) error {
	switch {
	case c.Interval <= 0:
		return FieldError(s, "consumer.churn.interval", c.Interval, "must be > 0")
	case c.Duration <= 0:
		return FieldError(s, "consumer.churn.duration", c.Duration, "must be > 0")
	case c.Duration >= c.Interval:
		return FieldError(s, "consumer.churn.duration", c.Duration, fmt.Sprintf("must be shorter than churn.interval (%v): the member joins again after it", c.Interval))
	}
	return nil
}

// ProbeOwnClientKeys are the keys of producer: and consumer: that are the
// probe's own, not Kafka properties ("<block> <key>").
var ProbeOwnClientKeys = []string{"consumer enabled", "consumer consumers", "consumer churn.interval", "consumer churn.duration",
	"consumer kind", "consumer share.group.id", "consumer share.record.lock.duration.ms", "consumer share.delivery.count.limit",
	"consumer share.faults.release_fraction", "consumer share.faults.reject_fraction", "consumer share.faults.hold",
	"consumer share.faults.hold_interval", "producer transaction.duration.ms", "producer transaction.abort.ratio"}

// Group protocols (group.protocol).
const (
	GroupProtocolClassic  = "classic"
	GroupProtocolConsumer = "consumer"
)

// Assignors of partition.assignment.strategy, by their short names; the
// Java class names are accepted too (Assignors).
const (
	AssignorRange             = "range"
	AssignorRoundRobin        = "roundrobin"
	AssignorSticky            = "sticky"
	AssignorCooperativeSticky = "cooperative-sticky"
)

var assignorClasses = map[string]string{
	"org.apache.kafka.clients.consumer.RangeAssignor":             AssignorRange,
	"org.apache.kafka.clients.consumer.RoundRobinAssignor":        AssignorRoundRobin,
	"org.apache.kafka.clients.consumer.StickyAssignor":            AssignorSticky,
	"org.apache.kafka.clients.consumer.CooperativeStickyAssignor": AssignorCooperativeSticky,
}

// Assignors are partition.assignment.strategy's assignors by their short
// names, in order; an unknown name is returned as written (validate
// refuses it). Empty is cooperative-sticky.
func (c *Consumer) Assignors() []string {
	if strings.TrimSpace(c.PartitionAssignmentStrategy) == "" {
		return []string{AssignorCooperativeSticky}
	}
	var out []string
	for a := range strings.SplitSeq(c.PartitionAssignmentStrategy, ",") {
		a = strings.TrimSpace(a)
		if short, ok := assignorClasses[a]; ok {
			a = short
		}
		out = append(out, a)
	}
	return out
}

// RemoteAssignor is group.remote.assignor, uniform when unset.
func (c *Consumer) RemoteAssignor() string {
	if c.GroupRemoteAssignor == "" {
		return "uniform"
	}
	return c.GroupRemoteAssignor
}

// Host selects the host metrics read at scrape time.
type Host struct {
	Enabled    bool   `yaml:"enabled" doc:"host CPU, memory, disk and network metrics"`
	Disks      string `yaml:"disks" values:"regex" doc:"block devices to report; the default matches whole disks only ({sda}, {nvme0n1}), not partitions ({sda1}, {nvme0n1p1}), whose IO is also their disk's and would count twice"`
	Interfaces string `yaml:"interfaces" values:"regex" doc:"network interfaces to report, by name"`
}

// Defaults, named so README, flags and tests share one value each.
const (
	DefaultTopicPrefix = "kafka-bench-"
	DefaultClientID    = "kafka_bench_exporter"
	DefaultRate        = 100
	DefaultRecordSize  = 1024
	// DefaultDisks matches whole devices only (sda, vdb, xvdc, nvme0n1),
	// not their partitions (sda1, nvme0n1p1): a partition's IO is also
	// its device's, so matching both counts it twice.
	DefaultDisks       = `^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)$`
	DefaultInterfaces  = "^(eth|en|lo)"
	DefaultPartitions  = 3
	DefaultLossGrace   = 30 * time.Second
	DefaultLagInterval = 5 * time.Second
	DefaultRound       = 200 * time.Millisecond
	maxRound           = 10 * time.Second
	DefaultConfigPoll  = 60 * time.Second
	// maxRecordSize keeps a record's batch, framed in a produce request,
	// within franz-go's 100 MiB request limit (Kafka's default
	// socket.request.max.bytes): 1 KiB is left for the batch, request,
	// client id and topic framing.
	maxRecordSize       = 100<<20 - 1024
	maxConsumers        = 256
	maxProbeNameLength  = 64
	defaultBatchSize    = 16384
	defaultBufferMemory = 32 << 20
)

// MaxRate is the highest rate in records/s a probe, a capacity ceiling or a
// bench scenario may ask for: far above what one producer client sends, and
// low enough that the pacer's schedule stays exact to the nanosecond.
const MaxRate = 1e7

// MinRate is the lowest rate in records/s other than 0 (as fast as
// possible): one record every 10^9 s (about 32 years). Below about 1.1e-10
// the time between two records, 1e9/rate ns, no longer fits a
// time.Duration, and for a rate near the smallest float it is +Inf, which
// makes the first round's time NaN.
const MinRate = 1e-9

// CheckRate refuses a rate that is not a finite number in [lowest, MaxRate]
// (NaN and ±Inf would pass a comparison with lowest), and one above 0 but
// below MinRate, whose interval between records does not fit a
// time.Duration.
func CheckRate(scope, key string, v, lowest float64, problem string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lowest {
		return FieldError(scope, key, v, problem)
	}
	if v > MaxRate {
		return FieldError(scope, key, v, fmt.Sprintf("must be <= %g records/s", float64(MaxRate)))
	}
	if v > 0 && v < MinRate {
		zero := ""
		if lowest <= 0 {
			zero = "0 or "
		}
		return FieldError(scope, key, v, fmt.Sprintf("must be %s>= %g records/s: slower, the time between two records does not fit a duration", zero, float64(MinRate)))
	}
	return nil
}

var probeNameRE = regexp.MustCompile(`^[a-z0-9_-]+$`)

// SetDefaults fills what the file does not set. It runs before decoding, so a
// key present in the file always wins over its default.
func (c *Config) SetDefaults() {
	c.Kafka.SetDefaults()
	c.Host.SetDefaults()
	c.ConfigPollInterval = model.Duration(DefaultConfigPoll)
	c.Groups.SetDefaults()
}

// SetDefaults fills Kafka connection defaults.
func (k *Kafka) SetDefaults() { k.ClientID = DefaultClientID }

// SetDefaults fills host collector defaults.
func (h *Host) SetDefaults() {
	h.Enabled = true
	h.Disks = DefaultDisks
	h.Interfaces = DefaultInterfaces
}

// SetDefaults fills probe defaults that do not depend on other keys.
func (p *Probe) SetDefaults() {
	p.Rate = DefaultRate
	p.RecordSize = DefaultRecordSize
	p.LossGracePeriod = model.Duration(DefaultLossGrace)
	p.LagInterval = model.Duration(DefaultLagInterval)
	p.Payload.SetDefaults()
	p.RoundInterval = model.Duration(DefaultRound)
	p.CreateTopic.SetDefaults()
	p.Producer.SetDefaults()
	p.Consumer.SetDefaults()
}

// SetDefaults creates the topic when missing, with the broker's default
// replication factor (-1), as kafka-topics.sh does.
func (t *CreateTopic) SetDefaults() {
	t.Enabled = true
	t.Partitions = DefaultPartitions
	t.ReplicationFactor = -1
}

// SetDefaults uses the Apache Kafka 4.x Java producer's defaults.
func (p *Producer) SetDefaults() {
	setPlainDefaults("producer", reflect.ValueOf(p), &p.Props)
	p.Acks = "all"
	p.BatchSize = defaultBatchSize
	p.BufferMemory = defaultBufferMemory
	p.CompressionType = "none"
	p.MaxInFlight = 5
	p.Retries = 2147483647
	p.TransactionTimeoutMS = 60000
	p.TransactionDurationMS = defaultTransactionDuration
}

// defaultTransactionDuration is ProducerPerformance's
// --transaction-duration-ms default.
const defaultTransactionDuration = 3000

// SetDefaults uses the Kafka consumer's defaults, except the commit interval
// (1 s, so lag in the metrics stays fresh).
func (c *Consumer) SetDefaults() {
	setPlainDefaults("consumer", reflect.ValueOf(c), &c.Props)
	c.Enabled = true
	c.AutoOffsetReset = "earliest"
	c.GroupProtocol = GroupProtocolClassic
	c.IsolationLevel = "read_uncommitted"
	c.Consumers = 1
	c.Kind = ConsumerKindGroup
	c.Share.SetDefaults()
}

// Resolve fills the defaults that depend on other keys (topic and group from
// the probe name; idempotence from acks, as the Java producer does when it is
// not set explicitly).
func (p *Probe) Resolve() {
	if p.Topic == "" {
		p.Topic = DefaultTopicPrefix + p.Name
	}
	if p.Consumer.GroupID == "" {
		p.Consumer.GroupID = DefaultTopicPrefix + p.Name
	}
	if p.Consumer.Share.GroupID == "" {
		p.Consumer.Share.GroupID = DefaultTopicPrefix + p.Name + "-share"
	}
	if p.Producer.EnableIdempotence == nil {
		// As ProducerConfig: unset, idempotence yields to acks and
		// retries that conflict with it.
		v := (p.Producer.Acks == "all" || p.Producer.Acks == "-1") && p.Producer.Retries != 0
		p.Producer.EnableIdempotence = &v
	}
	if p.Capacity != nil && p.Capacity.Topic == "" {
		p.Capacity.Topic = p.Topic + CapacityTopicSuffix
	}
}

// HostAgent reports host-agent mode: no probes at all, only the host
// collector (and the configuration watcher when brokers are set).
func (c *Config) HostAgent() bool { return c.Probes != nil && len(c.Probes) == 0 }

// SessionTimeout is session.timeout.ms, Kafka's 45000 when unset.
func (c *Consumer) SessionTimeout() int {
	if c.SessionTimeoutMS != nil {
		return *c.SessionTimeoutMS
	}
	return 45000
}

// HeartbeatInterval is heartbeat.interval.ms, Kafka's 3000 when unset.
func (c *Consumer) HeartbeatInterval() int {
	if c.HeartbeatIntervalMS != nil {
		return *c.HeartbeatIntervalMS
	}
	return 3000
}

// Idempotent reports enable.idempotence after Resolve.
func (p *Producer) Idempotent() bool {
	return p.EnableIdempotence != nil && *p.EnableIdempotence
}

// Validate checks every probe and the host section; the first problem is
// returned as one line naming the probe, the key and the value.
func (c *Config) Validate() error {
	seen := map[string]bool{}
	topics := map[string]string{}
	for i := range c.Probes {
		p := &c.Probes[i]
		if p.Name == "" {
			return FieldError(fmt.Sprintf("probes[%d]", i), "name", "", "every probe needs a name")
		}
		if err := p.Validate(); err != nil {
			return err
		}
		if seen[p.Name] {
			return FieldError(p.scope(), "name", p.Name, "duplicate probe name")
		}
		seen[p.Name] = true
		if other, ok := topics[p.Topic]; ok {
			return FieldError(p.scope(), "topic", p.Topic, fmt.Sprintf("already used by probe %q: each probe needs its own topic, or their sequence numbers collide", other))
		}
		topics[p.Topic] = p.Name
	}
	for i := range c.Probes {
		p := &c.Probes[i]
		if p.Capacity == nil {
			continue
		}
		if other, ok := topics[p.Capacity.Topic]; ok {
			return FieldError(p.scope(), "capacity.topic", p.Capacity.Topic, fmt.Sprintf("already used by probe %q: the capacity run needs a topic of its own", other))
		}
		topics[p.Capacity.Topic] = p.Name
	}
	if err := c.Kafka.Validate(); err != nil {
		return err
	}
	if c.ConfigPollInterval < 0 { // a file cannot spell one; code can
		return FieldError("", "config_poll_interval", c.ConfigPollInterval, "must not be negative")
	}
	if err := c.Groups.Validate(); err != nil {
		return err
	}
	return c.Host.Validate()
}

// Validate checks the host regexps.
func (h *Host) Validate() error {
	if _, err := regexp.Compile(h.Disks); err != nil {
		return FieldError("", "host.disks", h.Disks, "invalid regex: "+err.Error())
	}
	if _, err := regexp.Compile(h.Interfaces); err != nil {
		return FieldError("", "host.interfaces", h.Interfaces, "invalid regex: "+err.Error())
	}
	return nil
}

func (p *Probe) scope() string { return fmt.Sprintf("probe %q", p.Name) }

// Validate checks one probe after Probe.Resolve; it reads nothing (the
// resolve step reads its payload file).
func (p *Probe) Validate() error {
	s := p.scope()
	switch {
	case len(p.Name) > maxProbeNameLength:
		return FieldError(s, "name", p.Name, fmt.Sprintf("longer than %d characters", maxProbeNameLength))
	case !probeNameRE.MatchString(p.Name):
		return FieldError(s, "name", p.Name, "must match [a-z0-9_-]+ (it becomes the probe label)")
	case p.RecordSize < HeaderSize:
		return FieldError(s, "record_size", p.RecordSize, fmt.Sprintf("must be >= %d, the probe header size", HeaderSize))
	case p.RecordSize > maxRecordSize:
		return FieldError(s, "record_size", p.RecordSize, fmt.Sprintf("must be <= %d", maxRecordSize))
	case p.LossGracePeriod <= 0:
		return FieldError(s, "loss_grace_period", p.LossGracePeriod, "must be > 0")
	case p.LagInterval <= 0:
		return FieldError(s, "lag_interval", p.LagInterval, "must be > 0")
	case time.Duration(p.RoundInterval) > maxRound:
		return FieldError(s, "round_interval", p.RoundInterval, fmt.Sprintf("must be <= %v", model.Duration(maxRound)))
	}
	if err := CheckRate(s, "rate", p.Rate, 0, "must be a number >= 0 (0 = as fast as possible)"); err != nil {
		return err
	}
	if err := p.Payload.validate(s); err != nil {
		return err
	}
	if err := p.CreateTopic.validate(s); err != nil {
		return err
	}
	if err := p.Producer.validate(s, p.RecordSize); err != nil {
		return err
	}
	if p.Capacity != nil {
		if err := p.Capacity.validate(s, p.RecordSize); err != nil {
			return err
		}
	}
	if p.Replica != nil {
		if err := p.Replica.validate(s); err != nil {
			return err
		}
	}
	if err := validateCatchUps(s, p.CatchUp); err != nil {
		return err
	}
	return p.Consumer.validate(s)
}

func (t *CreateTopic) validate(s string) error {
	switch {
	case t.Partitions < 1:
		return FieldError(s, "create_topic.partitions", t.Partitions, "must be >= 1")
	case t.ReplicationFactor == 0 || t.ReplicationFactor < -1:
		return FieldError(s, "create_topic.replication_factor", t.ReplicationFactor, "must be >= 1, or -1 for the broker default")
	case t.LeaderOnEveryBroker && !t.Enabled:
		return FieldError(s, "create_topic.leader_on_every_broker", true, "requires create_topic.enabled: the probe only rearranges a topic it owns")
	}
	for k, v := range t.Configs {
		if k == "" {
			return FieldError(s, "create_topic.configs", v, "empty config name")
		}
	}
	return nil
}

var compressionTypes = map[string]bool{"none": true, "gzip": true, "snappy": true, "lz4": true, "zstd": true}

func (p *Producer) validate(s string, recordSize int) error {
	if err := validatePlain(s, "producer", reflect.ValueOf(p), p.Props); err != nil {
		return err
	}
	switch {
	case p.Acks != "0" && p.Acks != "1" && p.Acks != "all" && p.Acks != "-1":
		return FieldError(s, "producer.acks", p.Acks, `must be one of "0", "1", "all" (or "-1")`)
	case p.Acks == "0" && p.Idempotent():
		return FieldError(s, "producer.enable.idempotence", true, `requires acks=all; set enable.idempotence: false to use acks "0"`)
	case p.Acks == "1" && p.Idempotent():
		return FieldError(s, "producer.enable.idempotence", true, `requires acks=all; set enable.idempotence: false to use acks "1"`)
	case p.BatchSize <= 0:
		return FieldError(s, "producer.batch.size", p.BatchSize, "must be > 0 (franz-go always batches; Kafka's 0 means one record per batch)")
	case p.BufferMemory < int64(recordSize):
		return FieldError(s, "producer.buffer.memory", p.BufferMemory, fmt.Sprintf("must be >= record_size (%d)", recordSize))
	case !compressionTypes[p.CompressionType]:
		return FieldError(s, "producer.compression.type", p.CompressionType, "must be one of none, gzip, snappy, lz4, zstd")
	case p.MaxInFlight < 1:
		return FieldError(s, "producer.max.in.flight.requests.per.connection", p.MaxInFlight, "must be >= 1")
	case p.Idempotent() && p.MaxInFlight > 5:
		return FieldError(s, "producer.max.in.flight.requests.per.connection", p.MaxInFlight, "must be <= 5 with enable.idempotence")
	case p.DeliveryTimeoutMS < p.LingerMS+p.RequestTimeoutMS:
		return FieldError(s, "producer.delivery.timeout.ms", p.DeliveryTimeoutMS, fmt.Sprintf("must be >= linger.ms + request.timeout.ms (%d), as in Kafka", p.LingerMS+p.RequestTimeoutMS))
	case p.Retries < 0:
		return FieldError(s, "producer.retries", p.Retries, "must be >= 0")
	case p.Retries == 0 && p.Idempotent():
		return FieldError(s, "producer.enable.idempotence", true, "requires retries > 0, as in Kafka; set enable.idempotence: false to use retries 0")
	case p.MaxRequestSize != nil && int(*p.MaxRequestSize) < recordSize+BatchOverhead:
		return FieldError(s, "producer.max.request.size", *p.MaxRequestSize, fmt.Sprintf("must be >= record_size + %d (%d): a request holds at least one record's batch", BatchOverhead, recordSize+BatchOverhead))
	case p.CompressionGzipLevel != nil && *p.CompressionGzipLevel != -1 && (*p.CompressionGzipLevel < 1 || *p.CompressionGzipLevel > 9):
		return FieldError(s, "producer.compression.gzip.level", *p.CompressionGzipLevel, "must be -1 (gzip's default) or 1 … 9")
	case p.CompressionLz4Level != nil && (*p.CompressionLz4Level < 1 || *p.CompressionLz4Level > 9):
		return FieldError(s, "producer.compression.lz4.level", *p.CompressionLz4Level, "must be 1 … 9 (franz-go's lz4 has no levels above 9; Kafka's go to 17)")
	case p.CompressionZstdLevel != nil && (*p.CompressionZstdLevel < -131072 || *p.CompressionZstdLevel > 22):
		return FieldError(s, "producer.compression.zstd.level", *p.CompressionZstdLevel, "must be -131072 … 22, as in Kafka")
	}
	return p.validateTransactions(s)
}

// validateTransactions checks the transaction keys; without
// transactional.id only an abort ratio is refused, as it would do nothing.
func (p *Producer) validateTransactions(s string) error {
	switch {
	case p.TransactionAbortRatio < 0 || p.TransactionAbortRatio > 1:
		return FieldError(s, "producer.transaction.abort.ratio", p.TransactionAbortRatio, "must be between 0 and 1")
	case !p.Transactional() && p.TransactionAbortRatio > 0:
		return FieldError(s, "producer.transaction.abort.ratio", p.TransactionAbortRatio, "applies only with producer.transactional.id")
	case !p.Transactional():
		return nil
	case strings.TrimSpace(p.TransactionalID) == "":
		return FieldError(s, "producer.transactional.id", p.TransactionalID, "must not be blank")
	case !p.Idempotent():
		return FieldError(s, "producer.transactional.id", p.TransactionalID, "requires enable.idempotence (acks=all, retries > 0), as in Kafka")
	case p.TransactionDurationMS < 1:
		return FieldError(s, "producer.transaction.duration.ms", p.TransactionDurationMS, "must be >= 1")
	case p.TransactionTimeoutMS <= p.TransactionDurationMS:
		return FieldError(s, "producer.transaction.timeout.ms", p.TransactionTimeoutMS, fmt.Sprintf("must be above transaction.duration.ms (%d): the broker would abort every transaction", p.TransactionDurationMS))
	}
	return nil
}

func (c *Consumer) validate(s string) error {
	if c.GroupID == "" {
		return FieldError(s, "consumer.group.id", c.GroupID, "must not be empty")
	}
	if err := validatePlain(s, "consumer", reflect.ValueOf(c), c.Props); err != nil {
		return err
	}
	switch {
	case c.SessionTimeout() < 1:
		return FieldError(s, "consumer.session.timeout.ms", c.SessionTimeout(), "must be >= 1")
	case c.HeartbeatInterval() < 1 || c.HeartbeatInterval() >= c.SessionTimeout():
		return FieldError(s, "consumer.heartbeat.interval.ms", c.HeartbeatInterval(), "must be >= 1 and below session.timeout.ms")
	case c.AutoOffsetReset != "earliest" && c.AutoOffsetReset != "latest":
		return FieldError(s, "consumer.auto.offset.reset", c.AutoOffsetReset, "must be earliest or latest")
	case c.Consumers < 1 || c.Consumers > maxConsumers:
		return FieldError(s, "consumer.consumers", c.Consumers, fmt.Sprintf("must be between 1 and %d", maxConsumers))
	case c.Kind != ConsumerKindGroup && c.Kind != ConsumerKindShare:
		return FieldError(s, "consumer.kind", c.Kind, "must be group or share")
	case c.MaxPollIntervalMS != nil && *c.MaxPollIntervalMS < 1:
		return FieldError(s, "consumer.max.poll.interval.ms", *c.MaxPollIntervalMS, "must be >= 1")
	case c.IsolationLevel != "read_uncommitted" && c.IsolationLevel != "read_committed":
		return FieldError(s, "consumer.isolation.level", c.IsolationLevel, "must be read_uncommitted or read_committed")
	case c.GroupInstanceID != "" && strings.TrimSpace(c.GroupInstanceID) == "":
		return FieldError(s, "consumer.group.instance.id", c.GroupInstanceID, "must not be blank")
	}
	if c.IsShare() {
		if err := c.validateShareKind(s); err != nil {
			return err
		}
	}
	if err := c.validateGroup(s); err != nil {
		return err
	}
	if c.Churn != nil {
		if err := c.Churn.validate(s); err != nil {
			return err
		}
	}
	if c.IsShare() {
		return c.Share.validate(s)
	}
	return nil
}

// validateGroup checks the group protocol and its assignors as the Java
// consumer does: partition.assignment.strategy belongs to the classic
// protocol, group.remote.assignor to the consumer protocol.
func (c *Consumer) validateGroup(s string) error {
	switch c.GroupProtocol {
	case GroupProtocolClassic:
		if c.GroupRemoteAssignor != "" {
			return FieldError(s, "consumer.group.remote.assignor", c.GroupRemoteAssignor, "applies only with group.protocol: consumer (the broker assigns); with classic, set partition.assignment.strategy")
		}
		seen := map[string]bool{}
		for _, a := range c.Assignors() {
			switch a {
			case AssignorRange, AssignorRoundRobin, AssignorSticky, AssignorCooperativeSticky:
			default:
				return FieldError(s, "consumer.partition.assignment.strategy", c.PartitionAssignmentStrategy, fmt.Sprintf("unknown assignor %q: must be a comma-separated list of range, roundrobin, sticky, cooperative-sticky (or their Java class names)", a))
			}
			if seen[a] {
				return FieldError(s, "consumer.partition.assignment.strategy", c.PartitionAssignmentStrategy, fmt.Sprintf("assignor %q listed twice", a))
			}
			seen[a] = true
		}
	case GroupProtocolConsumer:
		// The broker's group.consumer.session.timeout.ms and
		// heartbeat interval apply; Java refuses the client's.
		for _, k := range []struct {
			key string
			v   *int
		}{{"session.timeout.ms", c.SessionTimeoutMS}, {"heartbeat.interval.ms", c.HeartbeatIntervalMS}} {
			if k.v != nil {
				return FieldError(s, "consumer."+k.key, *k.v, "must not be set with group.protocol: consumer (the broker's group.consumer."+k.key+" applies), as in Kafka")
			}
		}
		if c.PartitionAssignmentStrategy != "" {
			return FieldError(s, "consumer.partition.assignment.strategy", c.PartitionAssignmentStrategy, "must not be set with group.protocol: consumer (the broker assigns; choose its assignor with group.remote.assignor), as in Kafka")
		}
		if a := c.GroupRemoteAssignor; a != "" && a != "uniform" && a != "range" {
			return FieldError(s, "consumer.group.remote.assignor", a, "must be uniform or range (the assignors franz-go can name)")
		}
	default:
		return FieldError(s, "consumer.group.protocol", c.GroupProtocol, "must be classic or consumer")
	}
	return nil
}

// FieldError is the one shape of every configuration error:
// `<scope>: <key> = <value>: <problem>`. Every string it shows, the value
// and the problem (which may quote another error), goes through the one
// redaction rule (redact.Value, redact.Text), so that no caller can leak a
// secret or a URL's credentials into an error, a log line or a reload
// answer.
func FieldError(scope, key string, value any, problem string) error {
	prefix := ""
	if scope != "" {
		prefix = scope + ": "
	}
	return fmt.Errorf("%s%s = %s: %s", prefix, key, formatValue(key, value), redact.Text(problem))
}

func formatValue(key string, v any) string {
	// A property Kafka types PASSWORD is a secret whatever its name says
	// (kafkaprops, the one table of Kafka's properties).
	secret := kafkaprops.Secret(key)
	switch x := v.(type) {
	case string:
		if secret && x != "" {
			x = redact.Redacted
		}
		return fmt.Sprintf("%q", redact.Value(key, x))
	case RawValue:
		if x != "" && (secret || redact.SensitiveKey(key)) {
			return redact.Redacted // a secret written unquoted: 123456
		}
		return redact.Text(string(x))
	case model.Duration:
		return x.String()
	case Secret:
		if x == "" {
			return `""`
		}
		return redact.Redacted
	default:
		return redact.Text(fmt.Sprint(x))
	}
}
