package probes

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/family"
)

// LatencyBuckets are the classic buckets of every latency histogram
// (family.LatencyBuckets).
var LatencyBuckets = family.LatencyBuckets

// Failure reasons of kafka_bench_produce_failed_total: a fixed set, so the
// label's cardinality is bounded whatever the broker answers.
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

// Metrics defines every probe metric once. One Metrics serves all probes;
// each probe takes its own children with ForProbe and removes them on stop.
type Metrics struct {
	info            *prometheus.GaugeVec
	targetRate      *prometheus.GaugeVec
	up              *prometheus.GaugeVec
	produced        *prometheus.CounterVec
	producedBytes   *prometheus.CounterVec
	produceFailed   *prometheus.CounterVec
	produceLatency  *prometheus.HistogramVec
	sendDelay       *prometheus.HistogramVec
	consumed        *prometheus.CounterVec
	consumedBytes   *prometheus.CounterVec
	fetchedRecords  *prometheus.CounterVec
	e2eLatency      *prometheus.HistogramVec
	commitLatency   *prometheus.HistogramVec
	commitFailed    *prometheus.CounterVec
	lost            *prometheus.CounterVec
	duplicated      *prometheus.CounterVec
	outOfOrder      *prometheus.CounterVec
	foreign         *prometheus.CounterVec
	lagRecords      *prometheus.GaugeVec
	lagSeconds      *prometheus.GaugeVec
	lagStable       *prometheus.GaugeVec
	groupLagRecords *prometheus.GaugeVec
	groupLagSeconds *prometheus.GaugeVec
	clientFailed    *prometheus.CounterVec
	replication     *replicationMetrics // replica_metrics.go
	share           *shareMetrics       // share_metrics.go
	rebalance       *rebalanceMetrics   // rebalance.go
	txn             *txnMetrics         // txn_metrics.go
	catchUp         *catchUpMetrics     // catchup_metrics.go
	// discard, for UnreadMetrics only, stands in for every series the
	// probe touches per record or per fetch; nil otherwise.
	discard *discard
}

// NewMetrics creates and registers the probe metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		info: family.Gauge("kafka_bench_probe_info", "Settings of a probe, as labels; always 1.", "topic", "acks", "compression",
			"record_size_bytes", "batch_size_bytes", "linger_ms", "partitions", "replication_factor", "group"),
		targetRate:      family.Gauge("kafka_bench_probe_target_rate_records_per_second", "Configured produce rate of the probe in records per second; 0 means as fast as possible."),
		up:              family.Gauge("kafka_bench_probe_up", "1 if the probe produced (and, with a consumer, consumed) within the last window (2 × lag_interval, or 3 rounds at low rates; a read_committed consumer of transactions has the time between two commits on top), else 0."),
		produced:        family.Counter("kafka_bench_produced_records_total", "Records acknowledged by the brokers."),
		producedBytes:   family.Counter("kafka_bench_produced_bytes_total", "Record value bytes acknowledged by the brokers."),
		produceFailed:   family.Counter("kafka_bench_produce_failed_total", "Records that failed to produce, by reason: "+strings.Join(FailureReasons, ", ")+".", "reason"),
		produceLatency:  family.Histogram("kafka_bench_produce_latency_seconds", "Time from a record's intended send time to its acknowledgement (coordinated-omission free), by the partition's leader broker.", "broker"),
		sendDelay:       family.Histogram("kafka_bench_send_delay_seconds", "How far behind its intended send time a record was handed to the Kafka client."),
		consumed:        family.Counter("kafka_bench_consumed_records_total", "Records read by the probe's consumer group."),
		consumedBytes:   family.Counter("kafka_bench_consumed_bytes_total", "Record value bytes read by the probe's consumer group."),
		fetchedRecords:  family.Counter("kafka_bench_consumer_fetched_records_total", "Records the probe's consumer group fetched, by the partition's leader (broker) and the broker that served the fetch (fetch_broker): a follower in the consumer's rack with consumer.client.rack and a rack-aware replica selector (KIP-392), else the leader.", "broker", "fetch_broker"),
		e2eLatency:      family.Histogram("kafka_bench_end_to_end_latency_seconds", "Time from a record's intended send time to its consumption (same host clock), by the partition's leader broker.", "broker"),
		commitLatency:   family.Histogram("kafka_bench_commit_latency_seconds", "Duration of the consumer's synchronous offset commits."),
		commitFailed:    family.Counter("kafka_bench_commit_failed_total", "Offset commits that failed."),
		lost:            family.Counter("kafka_bench_records_lost_total", "Probe records acknowledged by Kafka that the consumer read past and did not receive within the loss grace period after their acknowledgement."),
		duplicated:      family.Counter("kafka_bench_records_duplicated_total", "Probe records received more than once."),
		outOfOrder:      family.Counter("kafka_bench_records_out_of_order_total", "Probe records received after a later record of the same partition."),
		foreign:         family.Counter("kafka_bench_records_foreign_total", "Records in the probe topic that are not probe records."),
		lagRecords:      family.Gauge("kafka_bench_consumer_lag_records", "End offsets minus the probe consumer's own position (the next offset it will read), summed over partitions; 0 when caught up."),
		lagSeconds:      family.Gauge("kafka_bench_consumer_lag_seconds", "Age of the oldest produced record the probe consumer has not read yet; 0 when caught up; absent with acks=0."),
		lagStable:       family.Gauge("kafka_bench_consumer_lag_stable_records", "Last stable offsets minus the probe consumer's own position, summed over partitions: what its read_committed consumer can read now; kafka_bench_consumer_lag_records minus it is held back by open transactions. Only for probes with consumer.isolation.level read_committed."),
		groupLagRecords: family.Gauge("kafka_bench_consumer_group_lag_records", "End offsets minus the committed offsets of the probe's group, summed over partitions (the view of kafka_exporter and Burrow; trails the consumer by up to auto.commit.interval.ms)."),
		groupLagSeconds: family.Gauge("kafka_bench_consumer_group_lag_seconds", "Age of the oldest produced record past the committed offsets of the probe's group."),
		clientFailed:    family.Counter("kafka_bench_probe_client_failed_total", "Attempts of a probe to build or start one of its clients that failed and will be retried with backoff, 1 s doubling to 30 s (probe_up is 0 meanwhile), by client ("+strings.Join(clientNames, ", ")+") and reason ("+strings.Join(clientFailureReasons, ", ")+").", "client", "reason"),
	}
	family.Register(reg, m.families()...)
	m.replication = newReplicationMetrics(reg)
	m.share = newShareMetrics(reg)
	m.rebalance = newRebalanceMetrics(reg)
	m.txn = newTxnMetrics(reg)
	m.catchUp = newCatchUpMetrics(reg)
	return m
}

// UnreadMetrics are probe metrics for a run whose figures come from
// elsewhere and whose registry nobody gathers: a bench not serving /metrics
// (its results come from its recorder) and the capacity search's borrowed
// probe. The series a probe updates per record or per fetch (records and
// bytes produced and consumed, the produce, send-delay and end-to-end
// latency histograms, records fetched by broker) keep nothing, so such a
// run spends no CPU on them; the others are kept, in a registry of their
// own.
func UnreadMetrics() *Metrics {
	m := NewMetrics(prometheus.NewRegistry())
	m.discard = &discard{prometheus.NewCounter(prometheus.CounterOpts{Name: "kafka_bench_unread", Help: "Never registered."})}
	return m
}

// discard stands in for a per-record series of UnreadMetrics: a counter and
// a histogram observer that keep nothing. Its Counter, never registered,
// answers the Metric and Collector methods.
type discard struct{ prometheus.Counter }

func (*discard) Inc()            {}
func (*discard) Add(float64)     {}
func (*discard) Observe(float64) {}

// unread says these are UnreadMetrics.
func (m *Metrics) unread() bool { return m.discard != nil }

// perRecord is c, or discard for UnreadMetrics.
func (m *Metrics) perRecord(c prometheus.Counter) prometheus.Counter {
	if m.unread() {
		return m.discard
	}
	return c
}

// perRecordObserver is o, or discard for UnreadMetrics.
func (m *Metrics) perRecordObserver(o prometheus.Observer) prometheus.Observer {
	if m.unread() {
		return m.discard
	}
	return o
}

// families lists every probe family.
func (m *Metrics) families() []family.Vec {
	return []family.Vec{m.info, m.targetRate, m.up, m.produced, m.producedBytes, m.produceFailed, m.produceLatency,
		m.sendDelay, m.consumed, m.consumedBytes, m.fetchedRecords, m.e2eLatency, m.commitLatency, m.commitFailed, m.lost,
		m.duplicated, m.outOfOrder, m.foreign, m.lagRecords, m.lagSeconds, m.lagStable, m.groupLagRecords, m.groupLagSeconds, m.clientFailed}
}

// probeMetrics are one probe's children, looked up once so the hot path does
// no label hashing.
type probeMetrics struct {
	targetRate    prometheus.Gauge
	up            prometheus.Gauge
	produced      prometheus.Counter
	producedBytes prometheus.Counter
	failed        map[string]prometheus.Counter
	sendDelay     prometheus.Observer
	consumed      prometheus.Counter
	consumedBytes prometheus.Counter
	commitLatency prometheus.Observer
	commitFailed  prometheus.Counter
	lost          prometheus.Counter
	duplicated    prometheus.Counter
	outOfOrder    prometheus.Counter
	foreign       prometheus.Counter
	clientFailed  map[[2]string]prometheus.Counter // by client and reason
}

// forProbe creates (at zero, so failures are visible from the first scrape)
// every series of one probe but the lag gauges: they appear once a lag is
// known (lag.go), as a 0 would read "caught up".
func (m *Metrics) forProbe(name string, rate float64) *probeMetrics {
	pm := &probeMetrics{
		targetRate:    m.targetRate.WithLabelValues(name),
		up:            m.up.WithLabelValues(name),
		produced:      m.perRecord(m.produced.WithLabelValues(name)),
		producedBytes: m.perRecord(m.producedBytes.WithLabelValues(name)),
		failed:        make(map[string]prometheus.Counter, len(FailureReasons)),
		sendDelay:     m.perRecordObserver(m.sendDelay.WithLabelValues(name)),
		consumed:      m.perRecord(m.consumed.WithLabelValues(name)),
		consumedBytes: m.perRecord(m.consumedBytes.WithLabelValues(name)),
		commitLatency: m.commitLatency.WithLabelValues(name),
		commitFailed:  m.commitFailed.WithLabelValues(name),
		lost:          m.lost.WithLabelValues(name),
		duplicated:    m.duplicated.WithLabelValues(name),
		outOfOrder:    m.outOfOrder.WithLabelValues(name),
		foreign:       m.foreign.WithLabelValues(name),
		clientFailed:  map[[2]string]prometheus.Counter{},
	}
	for _, r := range FailureReasons {
		pm.failed[r] = m.produceFailed.WithLabelValues(name, r)
	}
	for _, c := range clientNames {
		for _, r := range clientFailureReasons {
			pm.clientFailed[[2]string{c, r}] = m.clientFailed.WithLabelValues(name, c, r)
		}
	}
	pm.targetRate.Set(rate)
	return pm
}

// setInfo replaces the probe's info series (the partition count and
// replication factor are the topic's actual ones, known after start).
func (m *Metrics) setInfo(p config.Probe, partitions int32, rf int16) {
	m.info.DeletePartialMatch(prometheus.Labels{"probe": p.Name})
	m.info.WithLabelValues(p.Name, p.Topic, p.Producer.Acks, p.Producer.CompressionType,
		strconv.Itoa(p.RecordSize), strconv.Itoa(p.Producer.BatchSize), strconv.Itoa(p.Producer.LingerMS),
		strconv.Itoa(int(partitions)), strconv.Itoa(int(rf)), consumerGroup(p)).Set(1)
}

func consumerGroup(p config.Probe) string {
	switch {
	case !p.Consumer.Enabled:
		return ""
	case p.Consumer.IsShare():
		return p.Consumer.Share.GroupID
	}
	return p.Consumer.GroupID
}

// deleteProbe removes every series of a stopped probe.
func (m *Metrics) deleteProbe(name string) {
	family.DeleteProbe(name, m.families()...)
	m.replication.deleteProbe(name)
	m.share.deleteProbe(name)
	m.rebalance.deleteProbe(name)
	m.txn.deleteProbe(name)
	m.catchUp.deleteProbe(name)
}
