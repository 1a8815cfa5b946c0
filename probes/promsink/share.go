package promsink

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// Label values of the share-group families: fixed sets, so their
// cardinality is bounded.
var (
	// ShareOutcomes are the acknowledgements the probe sends (outcome).
	ShareOutcomes = []string{"accept", "release", "reject"}
	// ShareCauses are why a record was delivered again (cause).
	ShareCauses = []string{tracker.CauseReleased.String(), tracker.CauseLockExpired.String()}
	// ShareArchiveReasons are why the broker archived a record without
	// accepting it (reason).
	ShareArchiveReasons = []string{"rejected", "delivery_limit"}
	// ShareUnknownResolutions are how an acknowledgement of unknown
	// outcome was settled (resolution).
	ShareUnknownResolutions = []string{tracker.UnknownApplied.String(), tracker.UnknownNotApplied.String()}
)

// maxDeliveryCountLabel bounds the delivery_count label: the broker's
// delivery attempt limit is at most 10.
const maxDeliveryCountLabel = 10

// shareMetrics are the families of a probe with consumer.kind share. Their
// series exist only for such probes.
type shareMetrics struct {
	deliveryLatency *prometheus.HistogramVec
	ackLatency      *prometheus.HistogramVec
	deliveries      *prometheus.CounterVec
	redeliveries    *prometheus.CounterVec
	acks            *prometheus.CounterVec
	ackFailed       *prometheus.CounterVec
	ackUnknown      *prometheus.CounterVec
	archived        *prometheus.CounterVec
	lagRecords      *prometheus.GaugeVec
	members         *prometheus.GaugeVec
}

func newShareMetrics(reg prometheus.Registerer) *shareMetrics {
	m := &shareMetrics{
		deliveryLatency: family.Histogram("kafka_bench_share_delivery_latency_seconds", "Time from a probe record's intended send time to its first delivery to a member of the probe's share group (same host clock)."),
		ackLatency:      family.Histogram("kafka_bench_share_ack_latency_seconds", "Time from sending a poll's acknowledgements to the share group until the broker confirmed them."),
		deliveries:      family.Counter("kafka_bench_share_deliveries_total", "Probe records delivered to the share group's members, by the broker's delivery count (1: first delivery; 10 includes more).", "delivery_count"),
		redeliveries:    family.Counter("kafka_bench_share_redeliveries_total", "Probe records delivered again before an accept of them was confirmed, by cause: released (the probe released it) or lock_expired (it came back without a release: its acquisition lock expired or its member went away).", "cause"),
		acks:            family.Counter("kafka_bench_share_acks_total", "Acknowledgements of probe records the broker confirmed, by outcome: "+strings.Join(ShareOutcomes, ", ")+".", "outcome"),
		ackFailed:       family.Counter("kafka_bench_share_ack_failed_total", "Acknowledgements of probe records the broker did not confirm (a lock already expired, a session ended), by outcome.", "outcome"),
		ackUnknown:      family.Counter("kafka_bench_share_ack_unknown_total", "Acknowledgements of probe records whose outcome the broker did not tell (an answer lost, late or not matched to them), by resolution: not_applied (the record was delivered again within the record lock duration plus loss_grace_period, or the broker refused it late) or applied (it was not, or the broker confirmed it late).", "resolution"),
		archived:        family.Counter("kafka_bench_share_records_archived_total", "Probe records the broker archived without accepting them, by reason: rejected (by the probe) or delivery_limit (released or left to its lock at the delivery attempt limit).", "reason"),
		lagRecords:      family.Gauge("kafka_bench_share_group_lag_records", "Records of the probe topic not yet acknowledged by the share group (the broker's share-partition lag, summed over partitions)."),
		members:         family.Gauge("kafka_bench_share_group_members", "Members of the probe's share group, as the group coordinator describes it."),
	}
	family.Register(reg, m.collectors()...)
	return m
}

func (m *shareMetrics) collectors() []family.Vec {
	return []family.Vec{m.deliveryLatency, m.ackLatency, m.deliveries, m.redeliveries, m.acks, m.ackFailed,
		m.ackUnknown, m.archived, m.lagRecords, m.members}
}

func (m *shareMetrics) deleteProbe(name string) { family.DeleteProbe(name, m.collectors()...) }

// shareProbe are one share probe's children.
type shareProbe struct {
	deliveryLatency prometheus.Observer
	ackLatency      prometheus.Observer
	deliveries      [maxDeliveryCountLabel + 1]prometheus.Counter // by delivery count, [0] unused
	redeliveries    map[tracker.Cause]prometheus.Counter
	acks            map[tracker.ShareAction]prometheus.Counter
	ackFailed       map[tracker.ShareAction]prometheus.Counter
	unknown         map[tracker.UnknownResolution]prometheus.Counter
	archivedReject  prometheus.Counter
	archivedLimit   prometheus.Counter
}

// forProbe creates, at zero, every series of a share probe but the group
// gauges, which appear once known.
func (m *shareMetrics) forProbe(name string) *shareProbe {
	pm := &shareProbe{
		deliveryLatency: m.deliveryLatency.WithLabelValues(name),
		ackLatency:      m.ackLatency.WithLabelValues(name),
		redeliveries: map[tracker.Cause]prometheus.Counter{
			tracker.CauseReleased:    m.redeliveries.WithLabelValues(name, tracker.CauseReleased.String()),
			tracker.CauseLockExpired: m.redeliveries.WithLabelValues(name, tracker.CauseLockExpired.String()),
		},
		acks:      map[tracker.ShareAction]prometheus.Counter{},
		ackFailed: map[tracker.ShareAction]prometheus.Counter{},
		unknown: map[tracker.UnknownResolution]prometheus.Counter{
			tracker.UnknownApplied:    m.ackUnknown.WithLabelValues(name, ShareUnknownResolutions[0]),
			tracker.UnknownNotApplied: m.ackUnknown.WithLabelValues(name, ShareUnknownResolutions[1]),
		},
		archivedReject: m.archived.WithLabelValues(name, ShareArchiveReasons[0]),
		archivedLimit:  m.archived.WithLabelValues(name, ShareArchiveReasons[1]),
	}
	for i, a := range []tracker.ShareAction{tracker.Accept, tracker.Release, tracker.Reject} {
		pm.acks[a] = m.acks.WithLabelValues(name, ShareOutcomes[i])
		pm.ackFailed[a] = m.ackFailed.WithLabelValues(name, ShareOutcomes[i])
	}
	for dc := 1; dc <= maxDeliveryCountLabel; dc++ {
		pm.deliveries[dc] = m.deliveries.WithLabelValues(name, strconv.Itoa(dc))
	}
	return pm
}

// delivered counts a delivery with the broker's delivery count.
func (pm *shareProbe) delivered(deliveryCount int32) {
	pm.deliveries[min(max(int(deliveryCount), 1), maxDeliveryCountLabel)].Inc()
}

// OnShareDelivered accounts a delivery to a member of the share group.
func (p *probe) OnShareDelivered(d event.ShareDelivery) {
	p.consumedBytes.Add(float64(d.Bytes))
	if d.Foreign {
		p.foreign.Inc()
	}
	sm := p.share
	if !d.Own || sm == nil {
		return
	}
	sm.delivered(d.DeliveryCount)
	if d.First {
		sm.deliveryLatency.Observe(d.Latency.Seconds())
	}
	if d.Redelivery {
		sm.redeliveries[d.Cause].Inc()
	}
	if d.Duplicate {
		p.duplicated.Inc()
	}
}

// OnShareAcked counts an acknowledgement the broker confirmed, or not.
func (p *probe) OnShareAcked(action tracker.ShareAction, confirmed bool) {
	if p.share == nil {
		return
	}
	if confirmed {
		p.share.acks[action].Inc()
	} else {
		p.share.ackFailed[action].Inc()
	}
}

// OnShareAckLatency observes a set of acknowledgements' round trip.
func (p *probe) OnShareAckLatency(took time.Duration) {
	if p.share != nil {
		p.share.ackLatency.Observe(took.Seconds())
	}
}

// OnShareArchived counts records archived without an accept.
func (p *probe) OnShareArchived(rejected bool, n uint64) {
	switch {
	case p.share == nil:
	case rejected:
		p.share.archivedReject.Add(float64(n))
	default:
		p.share.archivedLimit.Add(float64(n))
	}
}

// OnShareUnknown counts acknowledgements of unknown outcome settled.
func (p *probe) OnShareUnknown(r tracker.UnknownResolution, n uint64) {
	if p.share == nil {
		return
	}
	if c := p.share.unknown[r]; c != nil {
		c.Add(float64(n))
	}
}

// OnShareGroup sets the share group's lag and member count.
func (p *probe) OnShareGroup(lag, members event.Gauge) {
	p.gauge(p.m.share.lagRecords, lag)
	p.gauge(p.m.share.members, members)
}
