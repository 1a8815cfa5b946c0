package promsink

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// brokerUnknown is the broker label of a partition whose leader the probe
// has not seen yet (a partition added since the last lag tick).
const brokerUnknown = "unknown"

// leaderObservers are, per partition, the latency histograms labelled with
// the partition's leader. They are replaced when the engine reports new
// leaders (at start and each lag tick), so the hot path indexes a slice and
// never hashes labels.
type leaderObservers struct {
	leaders []int32
	produce []prometheus.Observer
	e2e     []prometheus.Observer
}

// OnLeaders builds the per-partition observers of the new leaders.
func (p *probe) OnLeaders(leaders []int32) {
	lo := &leaderObservers{leaders: leaders, produce: make([]prometheus.Observer, len(leaders)), e2e: make([]prometheus.Observer, len(leaders))}
	for i, l := range leaders {
		broker := brokerUnknown
		if l >= 0 {
			broker = strconv.Itoa(int(l))
		}
		lo.produce[i] = p.m.produceLatency.WithLabelValues(p.name, broker)
		lo.e2e[i] = p.m.e2eLatency.WithLabelValues(p.name, broker)
	}
	p.leaders.Store(lo)
}

// leaderLabel is the broker label of partition's leader.
func (p *probe) leaderLabel(partition int32) string {
	if lo := p.leaders.Load(); lo != nil && partition >= 0 && int(partition) < len(lo.leaders) && lo.leaders[partition] >= 0 {
		return strconv.Itoa(int(lo.leaders[partition]))
	}
	return brokerUnknown
}

// produceLatency is the produce latency histogram of partition's leader.
func (p *probe) produceLatency(partition int32) prometheus.Observer {
	if lo := p.leaders.Load(); lo != nil && partition >= 0 && int(partition) < len(lo.produce) {
		return lo.produce[partition]
	}
	return p.m.produceLatency.WithLabelValues(p.name, brokerUnknown)
}

// e2eLatency is the end-to-end latency histogram of partition's leader.
func (p *probe) e2eLatency(partition int32) prometheus.Observer {
	if lo := p.leaders.Load(); lo != nil && partition >= 0 && int(partition) < len(lo.e2e) {
		return lo.e2e[partition]
	}
	return p.m.e2eLatency.WithLabelValues(p.name, brokerUnknown)
}

// OnFetched counts the records of a fetched batch by the partition's leader
// and the broker that served it: with client.rack a follower in the
// consumer's rack serves it (KIP-392) once the leader names it the
// preferred read replica. Once per batch, not per record.
func (p *probe) OnFetched(partition, fetchBroker int32, records int) {
	p.m.fetchedRecords.WithLabelValues(p.name, p.leaderLabel(partition), strconv.Itoa(int(fetchBroker))).Add(float64(records))
}
