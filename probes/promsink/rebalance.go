package promsink

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// rebalanceMetrics are the families of the consumer group's rebalances.
type rebalanceMetrics struct {
	protocolInfo *prometheus.GaugeVec
	rebalances   *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	assigned     *prometheus.CounterVec
	revoked      *prometheus.CounterVec
	lost         *prometheus.CounterVec
	e2e          *prometheus.HistogramVec
}

func newRebalanceMetrics(reg prometheus.Registerer) *rebalanceMetrics {
	m := &rebalanceMetrics{
		protocolInfo: family.Gauge("kafka_bench_consumer_group_protocol_info", "The group protocol of the probe's consumer group: configured (consumer.group.protocol) and the one the coordinator runs (protocol: consumer when it describes the group as a KIP-848 consumer group, classic otherwise); always 1. Absent until the group is first described.", "group", "configured", "protocol"),
		rebalances:   family.Counter("kafka_bench_consumer_rebalances_total", "Rebalances of the probe's consumer group as its members saw them (one per member it changed), by the group protocol in use and the cause a member can observe: "+joinCauses()+".", "protocol", "cause"),
		duration:     family.Histogram("kafka_bench_consumer_rebalance_duration_seconds", "Time from a running member's first revoke or lost callback (or, for a member only given partitions, its assign callback) to its first records after the rebalance, by group protocol; a member's own join is left out.", "protocol"),
		assigned:     family.Counter("kafka_bench_consumer_partitions_assigned_total", "Partitions assigned to the probe's consumers (franz-go's OnPartitionsAssigned)."),
		revoked:      family.Counter("kafka_bench_consumer_partitions_revoked_total", "Partitions revoked from the probe's consumers in a rebalance (OnPartitionsRevoked)."),
		lost:         family.Counter("kafka_bench_consumer_partitions_lost_total", "Partitions the probe's consumers lost without a rebalance handing them over (OnPartitionsLost: session timed out, fenced)."),
		e2e:          family.Histogram("kafka_bench_consumer_rebalance_end_to_end_latency_seconds", "End-to-end latency of the probe records whose intended send time fell within a rebalance of the group (from its start at one member to that member's first records after it): the pause a user of the group sees."),
	}
	family.Register(reg, m.families()...)
	return m
}

func joinCauses() string { return strings.Join(event.RebalanceCauses, ", ") }

func (m *rebalanceMetrics) families() []family.Vec {
	return []family.Vec{m.protocolInfo, m.rebalances, m.duration, m.assigned, m.revoked, m.lost, m.e2e}
}

func (m *rebalanceMetrics) deleteProbe(name string) { family.DeleteProbe(name, m.families()...) }

// rebalanceProbe are one probe's rebalance series.
type rebalanceProbe struct {
	group, configured string
	e2e               prometheus.Observer
	partAs            prometheus.Counter
	partRv            prometheus.Counter
	partLo            prometheus.Counter
}

// forProbe creates the probe's series at zero: with a consumer, its
// rebalances by cause and their durations under the configured protocol.
func (m *rebalanceMetrics) forProbe(p config.Probe) *rebalanceProbe {
	r := &rebalanceProbe{group: p.Consumer.GroupID, configured: p.Consumer.GroupProtocol,
		e2e:    m.e2e.WithLabelValues(p.Name),
		partAs: m.assigned.WithLabelValues(p.Name),
		partRv: m.revoked.WithLabelValues(p.Name),
		partLo: m.lost.WithLabelValues(p.Name),
	}
	if p.Consumer.Enabled {
		for _, c := range event.RebalanceCauses {
			m.rebalances.WithLabelValues(p.Name, p.Consumer.GroupProtocol, c)
		}
		m.duration.WithLabelValues(p.Name, p.Consumer.GroupProtocol)
	}
	return r
}

// OnRebalance counts a rebalance by protocol and cause and observes its
// duration (not for a member's own join).
func (p *probe) OnRebalance(r event.Rebalance) {
	p.m.rebalance.rebalances.WithLabelValues(p.name, r.Protocol, r.Cause).Inc()
	if r.Cause != event.CauseJoined {
		p.m.rebalance.duration.WithLabelValues(p.name, r.Protocol).Observe(r.Took.Seconds())
	}
}

// OnGroupProtocol replaces the protocol info series.
func (p *probe) OnGroupProtocol(protocol string) {
	m := p.m.rebalance
	m.protocolInfo.DeletePartialMatch(prometheus.Labels{"probe": p.name})
	m.protocolInfo.WithLabelValues(p.name, p.reb.group, p.reb.configured, protocol).Set(1)
}

// OnPartitions counts partitions assigned, revoked and lost.
func (p *probe) OnPartitions(assigned, revoked, lost int) {
	p.reb.partAs.Add(float64(assigned))
	p.reb.partRv.Add(float64(revoked))
	p.reb.partLo.Add(float64(lost))
}
