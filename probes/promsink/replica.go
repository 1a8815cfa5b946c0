package promsink

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// ReplicationLatencyBuckets reach further than LatencyBuckets: a replicator
// batches, restarts and rebalances, and a paused link shows as minutes.
var ReplicationLatencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300}

// replicationMetrics are the families of the cross-cluster canary, labelled
// by probe and link (source_alias->target_alias): one link per probe, so
// the link label adds no series of its own.
type replicationMetrics struct {
	latency    *prometheus.HistogramVec
	consumed   *prometheus.CounterVec
	lost       *prometheus.CounterVec
	duplicated *prometheus.CounterVec
	outOfOrder *prometheus.CounterVec
	lagRecords *prometheus.GaugeVec
	lagSeconds *prometheus.GaugeVec
}

func newReplicationMetrics(reg prometheus.Registerer) *replicationMetrics {
	labels := []string{"probe", "link"}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	m := &replicationMetrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:                            "kafka_bench_replication_latency_seconds",
			Help:                            "Time from a probe record's intended send time on the source cluster to its read from the replica cluster (same process, monotonic clock).",
			Buckets:                         ReplicationLatencyBuckets,
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  100,
			NativeHistogramMinResetDuration: time.Hour,
		}, labels),
		consumed:   counter("kafka_bench_replication_consumed_records_total", "Probe records of this run read from the replica cluster."),
		lost:       counter("kafka_bench_replication_records_lost_total", "Probe records acknowledged by the source cluster and not read from the replica cluster within replica.loss_grace_period after their acknowledgement."),
		duplicated: counter("kafka_bench_replication_records_duplicated_total", "Probe records read more than once from the replica cluster (replicators deliver at least once), or read after they were counted lost."),
		outOfOrder: counter("kafka_bench_replication_records_out_of_order_total", "Probe records read from the replica cluster after a later record of the same partition."),
		lagRecords: gauge("kafka_bench_replication_lag_records", "Probe records acknowledged by the source cluster and not yet read from the replica cluster."),
		lagSeconds: gauge("kafka_bench_replication_lag_seconds", "Time since the source cluster acknowledged the oldest probe record not yet read from the replica cluster; 0 when caught up."),
	}
	family.Register(reg, m.collectors()...)
	return m
}

func (m *replicationMetrics) collectors() []family.Vec {
	return []family.Vec{m.latency, m.consumed, m.lost, m.duplicated, m.outOfOrder, m.lagRecords, m.lagSeconds}
}

// deleteProbe removes a stopped probe's series.
func (m *replicationMetrics) deleteProbe(name string) {
	family.DeleteProbe(name, m.collectors()...)
}

// linkProbe are one probe's children, created at zero so the first scrape
// shows them, but the lag gauges: they appear with the first lag known (a
// replica run's first tick), as a 0 before would read "caught up".
type linkProbe struct {
	latency    prometheus.Observer
	consumed   prometheus.Counter
	lost       prometheus.Counter
	duplicated prometheus.Counter
	outOfOrder prometheus.Counter
	lagRecords *prometheus.GaugeVec
	lagSeconds *prometheus.GaugeVec
	labels     [2]string // probe, link
}

// setLag sets the link's lag, creating its series on the first call.
func (m *linkProbe) setLag(records, seconds float64) {
	m.lagRecords.WithLabelValues(m.labels[:]...).Set(records)
	m.lagSeconds.WithLabelValues(m.labels[:]...).Set(seconds)
}

func (m *replicationMetrics) forLink(probe, link string) *linkProbe {
	return &linkProbe{
		latency:    m.latency.WithLabelValues(probe, link),
		consumed:   m.consumed.WithLabelValues(probe, link),
		lost:       m.lost.WithLabelValues(probe, link),
		duplicated: m.duplicated.WithLabelValues(probe, link),
		outOfOrder: m.outOfOrder.WithLabelValues(probe, link),
		lagRecords: m.lagRecords,
		lagSeconds: m.lagSeconds,
		labels:     [2]string{probe, link},
	}
}

// OnReplicaRead observes the replication latency of a record of this run.
func (p *probe) OnReplicaRead(latency time.Duration) {
	p.link.latency.Observe(max(latency, 0).Seconds())
	p.link.consumed.Inc()
}

// OnReplicaAnomaly counts the replica's duplicates, reorders and losses.
func (p *probe) OnReplicaAnomaly(a event.Anomaly, n uint64) {
	switch a {
	case event.Duplicated:
		p.link.duplicated.Add(float64(n))
	case event.OutOfOrder:
		p.link.outOfOrder.Add(float64(n))
	case event.Lost:
		p.link.lost.Add(float64(n))
	}
}

// OnReplicaLag sets the link's lag, creating its series on the first call.
func (p *probe) OnReplicaLag(records, seconds float64) { p.link.setLag(records, seconds) }
