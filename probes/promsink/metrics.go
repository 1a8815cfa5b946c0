// Package promsink is the Prometheus sink of the probe engine: every metric
// family of the probes, declared once (NewMetrics), and each probe's series,
// which its hooks update from the engine's events (package event). It is the
// only package of the engine that knows Prometheus.
package promsink

import (
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// Metrics defines every probe metric once. One Metrics serves all probes: it
// is their sink (event.Sink), each probe's hook holding its own series,
// removed when the probe stops.
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
	replication     *replicationMetrics // replica.go
	share           *shareMetrics       // share.go
	rebalance       *rebalanceMetrics   // rebalance.go
	txn             *txnMetrics         // txn.go
	catchUp         *catchUpMetrics     // catchup.go
}

var _ event.Sink = (*Metrics)(nil)

// NewMetrics creates and registers the probe metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		info: family.Gauge("kafka_bench_probe_info", "Settings of a probe, as labels; always 1.", "topic", "acks", "compression",
			"record_size_bytes", "batch_size_bytes", "linger_ms", "partitions", "replication_factor", "group"),
		targetRate:      family.Gauge("kafka_bench_probe_target_rate_records_per_second", "Configured produce rate of the probe in records per second; 0 means as fast as possible."),
		up:              family.Gauge("kafka_bench_probe_up", "1 if the probe produced (and, with a consumer, consumed) within the last window (2 × lag_interval, or 3 rounds at low rates; a read_committed consumer of transactions has the time between two commits on top), else 0."),
		produced:        family.Counter("kafka_bench_produced_records_total", "Records acknowledged by the brokers."),
		producedBytes:   family.Counter("kafka_bench_produced_bytes_total", "Record value bytes acknowledged by the brokers."),
		produceFailed:   family.Counter("kafka_bench_produce_failed_total", "Records that failed to produce, by reason: "+strings.Join(event.FailureReasons, ", ")+".", "reason"),
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
		clientFailed:    family.Counter("kafka_bench_probe_client_failed_total", "Attempts of a probe to build or start one of its clients that failed and will be retried with backoff, 1 s doubling to 30 s (probe_up is 0 meanwhile), by client ("+strings.Join(event.ClientNames, ", ")+") and reason ("+strings.Join(event.ClientFailureReasons, ", ")+").", "client", "reason"),
	}
	family.Register(reg, m.families()...)
	m.replication = newReplicationMetrics(reg)
	m.share = newShareMetrics(reg)
	m.rebalance = newRebalanceMetrics(reg)
	m.txn = newTxnMetrics(reg)
	m.catchUp = newCatchUpMetrics(reg)
	return m
}

// families lists every probe family of this file.
func (m *Metrics) families() []family.Vec {
	return []family.Vec{m.info, m.targetRate, m.up, m.produced, m.producedBytes, m.produceFailed, m.produceLatency,
		m.sendDelay, m.consumed, m.consumedBytes, m.fetchedRecords, m.e2eLatency, m.commitLatency, m.commitFailed, m.lost,
		m.duplicated, m.outOfOrder, m.foreign, m.lagRecords, m.lagSeconds, m.lagStable, m.groupLagRecords, m.groupLagSeconds, m.clientFailed}
}

// probe is one probe's series, looked up once so the hot path does no
// label hashing.
type probe struct {
	m             *Metrics
	cfg           config.Probe
	name          string
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
	leaders       atomic.Pointer[leaderObservers]  // leaders.go
	reb           *rebalanceProbe                  // rebalance.go
	share         *shareProbe                      // consumer.kind share only
	txn           *txnProbe                        // producer.transactional.id only
	link          *linkProbe                       // a replica block only
	catchUp       map[string]*catchUpWindow        // by window (catchup.go); nil without catch_up
}

// ForProbe creates (at zero, so failures are visible from the first
// scrape) every series of the probe cfg but the lag gauges: they appear once
// a lag is known, as a 0 would read "caught up".
func (m *Metrics) ForProbe(cfg config.Probe) event.Hook {
	name := cfg.Name
	p := &probe{
		m:             m,
		cfg:           cfg,
		name:          name,
		up:            m.up.WithLabelValues(name),
		produced:      m.produced.WithLabelValues(name),
		producedBytes: m.producedBytes.WithLabelValues(name),
		failed:        make(map[string]prometheus.Counter, len(event.FailureReasons)),
		sendDelay:     m.sendDelay.WithLabelValues(name),
		consumed:      m.consumed.WithLabelValues(name),
		consumedBytes: m.consumedBytes.WithLabelValues(name),
		commitLatency: m.commitLatency.WithLabelValues(name),
		commitFailed:  m.commitFailed.WithLabelValues(name),
		lost:          m.lost.WithLabelValues(name),
		duplicated:    m.duplicated.WithLabelValues(name),
		outOfOrder:    m.outOfOrder.WithLabelValues(name),
		foreign:       m.foreign.WithLabelValues(name),
		clientFailed:  map[[2]string]prometheus.Counter{},
	}
	for _, r := range event.FailureReasons {
		p.failed[r] = m.produceFailed.WithLabelValues(name, r)
	}
	for _, c := range event.ClientNames {
		for _, r := range event.ClientFailureReasons {
			p.clientFailed[[2]string{c, r}] = m.clientFailed.WithLabelValues(name, c, r)
		}
	}
	m.targetRate.WithLabelValues(name).Set(cfg.Rate)
	p.reb = m.rebalance.forProbe(cfg)
	if cfg.Consumer.Enabled && cfg.Consumer.IsShare() {
		p.share = m.share.forProbe(name)
	}
	if cfg.Producer.Transactional() {
		p.txn = m.txn.forProbe(name)
	}
	if cfg.Replica != nil {
		p.link = m.replication.forLink(name, cfg.Replica.Link())
	}
	p.catchUp = m.catchUp.forProbe(cfg)
	return p
}

// OnProbeStopped removes every series of the probe.
func (p *probe) OnProbeStopped() {
	family.DeleteProbe(p.name, p.m.families()...)
	p.m.replication.deleteProbe(p.name)
	p.m.share.deleteProbe(p.name)
	p.m.rebalance.deleteProbe(p.name)
	p.m.txn.deleteProbe(p.name)
	p.m.catchUp.deleteProbe(p.name)
}

// OnTopic replaces the probe's info series (the partition count and
// replication factor are the topic's actual ones, known after start).
func (p *probe) OnTopic(partitions int32, rf int16) {
	c := p.cfg
	p.m.info.DeletePartialMatch(prometheus.Labels{"probe": c.Name})
	p.m.info.WithLabelValues(c.Name, c.Topic, c.Producer.Acks, c.Producer.CompressionType,
		strconv.Itoa(c.RecordSize), strconv.Itoa(c.Producer.BatchSize), strconv.Itoa(c.Producer.LingerMS),
		strconv.Itoa(int(partitions)), strconv.Itoa(int(rf)), consumerGroup(c)).Set(1)
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

// OnUp sets kafka_bench_probe_up.
func (p *probe) OnUp(up bool) {
	if up {
		p.up.Set(1)
	} else {
		p.up.Set(0)
	}
}

func (p *probe) OnClientFailed(client, reason string) {
	p.clientFailed[[2]string{client, reason}].Inc()
}

func (p *probe) OnSent(sendDelay time.Duration) {
	p.sendDelay.Observe(max(sendDelay, 0).Seconds())
}

func (p *probe) OnProduced(e event.Produced) {
	p.produceLatency(e.ID.Partition).Observe(e.Latency.Seconds())
	p.produced.Inc()
	p.producedBytes.Add(float64(e.Bytes))
}

func (p *probe) OnFailed(reason string, n int) { p.failed[reason].Add(float64(n)) }

func (p *probe) OnConsumed(e event.Consumed) {
	p.consumedBytes.Add(float64(e.Bytes))
	if e.Foreign {
		p.foreign.Inc()
		return
	}
	if e.Own {
		s := e.EndToEnd.Seconds()
		p.e2eLatency(e.ID.Partition).Observe(s)
		if e.InRebalance {
			p.reb.e2e.Observe(s)
		}
	}
}

func (p *probe) OnPolled(records int) { p.consumed.Add(float64(records)) }

func (p *probe) OnAnomaly(a event.Anomaly, n uint64) {
	switch a {
	case event.Duplicated:
		p.duplicated.Add(float64(n))
	case event.OutOfOrder:
		p.outOfOrder.Add(float64(n))
	case event.Lost:
		p.lost.Add(float64(n))
	case event.AbortedRead:
		if p.txn != nil {
			p.txn.abortedRead.Add(float64(n))
		}
	}
}

func (p *probe) OnCommit(took time.Duration, failed bool) {
	if failed {
		p.commitFailed.Inc()
		return
	}
	p.commitLatency.Observe(took.Seconds())
}

// OnLag sets the lag gauges; an unknown value's series is dropped until it
// is known again.
func (p *probe) OnLag(l event.Lag) {
	p.gauge(p.m.lagRecords, l.Records)
	p.gauge(p.m.lagSeconds, l.Seconds)
	p.gauge(p.m.lagStable, l.Stable)
	p.gauge(p.m.groupLagRecords, l.GroupRecords)
	p.gauge(p.m.groupLagSeconds, l.GroupSeconds)
}

// gauge sets the probe's series of vec to g, or drops it when unknown.
func (p *probe) gauge(vec *prometheus.GaugeVec, g event.Gauge) {
	if g.Known {
		vec.WithLabelValues(p.name).Set(g.Value)
	} else {
		vec.DeleteLabelValues(p.name)
	}
}
