package probes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// brokerUnknown is the broker label of a partition whose leader the probe
// has not seen yet (a partition added since the last lag tick).
const brokerUnknown = "unknown"

// leaderObservers are, per partition, the latency histograms labelled with
// the partition's leader.
type leaderObservers struct {
	leaders []int32
	produce []prometheus.Observer
	e2e     []prometheus.Observer
}

// leaderLatency picks a probe's latency histograms by partition leader. The
// observers are replaced when metadata shows a new leader (at start and
// each lag tick), so the hot path indexes a slice and never hashes labels.
type leaderLatency struct {
	probe   string
	metrics *Metrics
	cur     atomic.Pointer[leaderObservers]
}

// set refreshes the per-partition observers from a topic description. A
// partition without a leader (an election in progress) keeps its previous
// one: its records most likely went there.
func (ll *leaderLatency) set(parts kadm.PartitionDetails) {
	old := ll.cur.Load()
	n := 0
	for part := range parts {
		n = max(n, int(part)+1)
	}
	leaders := make([]int32, n)
	for i := range leaders {
		leaders[i] = -1
		if pd, ok := parts[int32(i)]; ok {
			leaders[i] = pd.Leader
		}
		if leaders[i] < 0 && old != nil && i < len(old.leaders) {
			leaders[i] = old.leaders[i]
		}
	}
	if old != nil && slices.Equal(old.leaders, leaders) {
		return
	}
	lo := &leaderObservers{leaders: leaders, produce: make([]prometheus.Observer, n), e2e: make([]prometheus.Observer, n)}
	for i, l := range leaders {
		broker := brokerUnknown
		if l >= 0 {
			broker = strconv.Itoa(int(l))
		}
		lo.produce[i] = ll.metrics.produceLatency.WithLabelValues(ll.probe, broker)
		lo.e2e[i] = ll.metrics.e2eLatency.WithLabelValues(ll.probe, broker)
	}
	ll.cur.Store(lo)
}

// leaderLabel is the broker label of partition's leader.
func (ll *leaderLatency) leaderLabel(partition int32) string {
	if lo := ll.cur.Load(); lo != nil && partition >= 0 && int(partition) < len(lo.leaders) && lo.leaders[partition] >= 0 {
		return strconv.Itoa(int(lo.leaders[partition]))
	}
	return brokerUnknown
}

// produce is the produce latency histogram of partition's leader.
func (ll *leaderLatency) produce(partition int32) prometheus.Observer {
	if lo := ll.cur.Load(); lo != nil && partition >= 0 && int(partition) < len(lo.produce) {
		return lo.produce[partition]
	}
	return ll.metrics.produceLatency.WithLabelValues(ll.probe, brokerUnknown)
}

// e2e is the end-to-end latency histogram of partition's leader.
func (ll *leaderLatency) e2e(partition int32) prometheus.Observer {
	if lo := ll.cur.Load(); lo != nil && partition >= 0 && int(partition) < len(lo.e2e) {
		return lo.e2e[partition]
	}
	return ll.metrics.e2eLatency.WithLabelValues(ll.probe, brokerUnknown)
}

// spreadTimeout bounds putting a leader on every broker: reassigning the
// replicas of a small probe topic takes seconds.
const spreadTimeout = time.Minute

// spreadLeaders makes every broker lead at least one partition of the probe
// topic (create_topic.leader_on_every_broker), so the probe measures every
// broker: it adds partitions up to the broker count, makes each broker the
// preferred leader of one partition (reordering replicas where it is one,
// reassigning otherwise) and runs a preferred leader election. Managed
// clusters often deny these requests: that is a WARN, and the probe keeps
// running with the placement it has.
func (p *Probe) spreadLeaders(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, spreadTimeout)
	defer cancel()
	leaders, err := p.spreadLeadersOnce(ctx)
	if err != nil {
		if ctx.Err() == nil || errors.Is(err, context.DeadlineExceeded) {
			p.logger.Warn("create_topic.leader_on_every_broker: could not put a leader on every broker; "+
				"the probe keeps running with the current placement", "topic", p.cfg.Topic, "err", err)
		}
		return
	}
	p.logger.Info("every broker leads a partition of the probe topic", "topic", p.cfg.Topic, "leaders", fmt.Sprint(leaders))
	if err := p.ensureTopicOnce(ctx); err != nil { // the new partition count, info and leaders
		p.logger.Warn("describing the probe topic after spreading leaders failed", "err", err)
	}
}

// followBrokers runs the leader spread again when a broker that the last
// spread did not see is in the metadata: brokers added while the probe
// runs are covered without a restart. A broker that restarts leaves the
// metadata while it is fenced and comes back with its id, so it is never
// new; a removed one needs nothing, the others still lead. A spread the
// cluster denied is tried again only when a new broker joins. Run by
// watch (its goroutine, after the spread of the run loop).
func (p *Probe) followBrokers(ctx context.Context) {
	if !p.cfg.CreateTopic.LeaderOnEveryBroker {
		return
	}
	mdCtx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.LagInterval))
	md, err := p.admin.BrokerMetadata(mdCtx)
	cancel()
	if err != nil {
		p.logger.Debug("listing the brokers failed", "err", err)
		return
	}
	var added []int32
	for _, b := range md.Brokers.NodeIDs() {
		if !p.seenBrokers[b] {
			added = append(added, b)
		}
	}
	if len(added) == 0 {
		return
	}
	slices.Sort(added)
	p.logger.Info("brokers joined the cluster: putting a leader of the probe topic on each", "topic", p.cfg.Topic, "brokers", fmt.Sprint(added))
	p.spreadLeaders(ctx)
}

func (p *Probe) spreadLeadersOnce(ctx context.Context) (leaders []int32, err error) {
	topic := p.cfg.Topic
	md, err := p.admin.Metadata(ctx, topic)
	if err != nil {
		return nil, err
	}
	brokers := md.Brokers.NodeIDs()
	slices.Sort(brokers)
	p.seenBrokers = map[int32]bool{}
	for _, b := range brokers {
		p.seenBrokers[b] = true
	}
	td, err := p.describeTopic(ctx)
	if err != nil {
		return nil, err
	}
	if n := len(td.Partitions); n < len(brokers) {
		resp, err := p.admin.UpdatePartitions(ctx, len(brokers), topic)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("adding partitions (%d -> %d): %w", n, len(brokers), err)
		}
		p.logger.Info("added partitions so that every broker can lead one", "topic", topic, "partitions", len(brokers), "brokers", len(brokers))
		if td, err = kclient.WaitTopic(ctx, p.admin, topic, func(td kadm.TopicDetail) bool { return len(td.Partitions) >= len(brokers) }); err != nil {
			return nil, err
		}
	}
	if covers(leaderIDs(td), brokers) {
		return leaderIDs(td), nil
	}
	if plan := planLeaders(brokers, td.Partitions.Sorted()); len(plan) > 0 {
		req := kadm.AlterPartitionAssignmentsReq{}
		for part, replicas := range plan {
			req.Assign(topic, part, replicas)
		}
		resp, err := p.admin.AlterPartitionAssignments(ctx, req)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("reassigning replicas: %w", err)
		}
		p.logger.Info("reassigning replicas so that every broker is a preferred leader", "topic", topic, "replicas", fmt.Sprint(plan))
		if err := p.waitReassigned(ctx, td); err != nil {
			return nil, err
		}
	}
	parts := make([]int32, 0, len(td.Partitions))
	for part := range td.Partitions {
		parts = append(parts, part)
	}
	res, err := p.admin.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: setOf(parts)})
	if err != nil {
		return nil, fmt.Errorf("preferred leader election: %w", err)
	}
	for _, r := range res[topic] {
		if r.Err != nil && !errors.Is(r.Err, kerr.ElectionNotNeeded) {
			return nil, fmt.Errorf("preferred leader election of partition %d: %w", r.Partition, r.Err)
		}
	}
	td, err = kclient.WaitTopic(ctx, p.admin, topic, func(td kadm.TopicDetail) bool { return covers(leaderIDs(td), brokers) })
	if err != nil {
		return nil, fmt.Errorf("waiting for a leader on every broker: %w", err)
	}
	return leaderIDs(td), nil
}

// planLeaders returns new replica lists (by partition) that make broker
// i % len(brokers) the preferred leader of the i-th partition: the replica
// order changes where the broker already holds a replica (no data moves),
// else it replaces the last replica. Unchanged partitions are left out.
func planLeaders(brokers []int32, parts []kadm.PartitionDetail) map[int32][]int32 {
	plan := map[int32][]int32{}
	if len(brokers) == 0 {
		return plan
	}
	for i, pd := range parts {
		if len(pd.Replicas) == 0 {
			continue
		}
		want := brokers[i%len(brokers)]
		replicas := []int32{want}
		if slices.Contains(pd.Replicas, want) {
			for _, r := range pd.Replicas {
				if r != want {
					replicas = append(replicas, r)
				}
			}
		} else {
			replicas = append(replicas, pd.Replicas[:len(pd.Replicas)-1]...)
		}
		if !slices.Equal(replicas, pd.Replicas) {
			plan[pd.Partition] = replicas
		}
	}
	return plan
}

func leaderIDs(td kadm.TopicDetail) []int32 {
	var ids []int32
	for _, pd := range td.Partitions.Sorted() {
		ids = append(ids, pd.Leader)
	}
	return ids
}

// covers reports whether every broker is among leaders.
func covers(leaders, brokers []int32) bool {
	for _, b := range brokers {
		if !slices.Contains(leaders, b) {
			return false
		}
	}
	return true
}

func setOf(parts []int32) map[int32]struct{} {
	m := make(map[int32]struct{}, len(parts))
	for _, p := range parts {
		m[p] = struct{}{}
	}
	return m
}

// waitReassigned waits until no reassignment of the topic is in progress.
func (p *Probe) waitReassigned(ctx context.Context, td kadm.TopicDetail) error {
	parts := make([]int32, 0, len(td.Partitions))
	for part := range td.Partitions {
		parts = append(parts, part)
	}
	for {
		rs, err := p.admin.ListPartitionReassignments(ctx, kadm.TopicsSet{p.cfg.Topic: setOf(parts)})
		if err == nil {
			n := len(rs[p.cfg.Topic])
			if n == 0 {
				return nil
			}
			err = fmt.Errorf("%d partitions still moving", n)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the reassignment: %w (last: %w)", ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
