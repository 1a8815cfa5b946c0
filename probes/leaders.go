package probes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// partitionLeaders are the leaders of the probe topic's partitions, as the
// sinks were last told (event.LeadersHook): they hear again only when a
// leader changed.
type partitionLeaders struct {
	mu  sync.Mutex
	cur []int32
	ev  *event.Hooks
}

// set reports the leaders of a topic description when they changed. A
// partition without a leader (an election in progress) keeps its previous
// one: its records most likely went there.
func (pl *partitionLeaders) set(parts kadm.PartitionDetails) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	old := pl.cur
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
		if leaders[i] < 0 && i < len(old) {
			leaders[i] = old[i]
		}
	}
	if old != nil && slices.Equal(old, leaders) {
		return
	}
	pl.cur = leaders
	pl.ev.Leaders(leaders)
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

// followBrokers runs the leader spread again when the brokers changed
// since the last spread: a broker it did not see is in the cluster (added
// while the probe runs: covered without a restart), or a broker it saw is
// no longer registered (removed: the probe topic's replicas on it move to
// the others). A broker that restarts is fenced while it is away and comes
// back with its id: it neither joined nor left. Kafka before 4.0 does not
// list fenced brokers, so there a removed broker cannot be told from a
// restarting one and is left alone (the others still lead). A spread the
// cluster denied is tried again only when the brokers change. Run by watch
// (its goroutine, after the spread of the run loop).
func (p *Probe) followBrokers(ctx context.Context) {
	if !p.cfg.CreateTopic.LeaderOnEveryBroker {
		return
	}
	mdCtx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.LagInterval))
	bs, err := p.describeBrokers(mdCtx)
	cancel()
	if err != nil {
		p.logger.Debug("listing the brokers failed", "err", err)
		return
	}
	var added, removed []int32
	for _, b := range bs.ids {
		if !p.seenBrokers[b] {
			added = append(added, b)
		}
	}
	for b := range p.seenBrokers {
		if bs.gone(b) {
			removed = append(removed, b)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return
	}
	slices.Sort(removed)
	if len(added) > 0 {
		p.logger.Info("brokers joined the cluster: putting a leader of the probe topic on each", "topic", p.cfg.Topic, "brokers", fmt.Sprint(added))
	}
	if len(removed) > 0 {
		p.logger.Info("brokers left the cluster: moving the probe topic's replicas off them", "topic", p.cfg.Topic, "brokers", fmt.Sprint(removed))
	}
	p.spreadLeaders(ctx)
}

// errDescribeClusterDenied stands for a DescribeCluster the cluster denied
// before.
var errDescribeClusterDenied = errors.New("DescribeCluster denied")

// brokerSet is what a leader spread knows of the cluster's brokers.
type brokerSet struct {
	ids   []int32          // the brokers that serve (unfenced), sorted
	racks map[int32]string // broker.rack of each broker listed, fenced ones too ("": none)
	// registered holds every broker the cluster has registered, fenced
	// (restarting) ones too; nil where the cluster does not say (Kafka
	// before 4.0, or DescribeCluster denied): then no broker is gone.
	registered map[int32]bool
}

// gone reports whether broker id is no longer registered (removed).
func (bs brokerSet) gone(id int32) bool {
	return bs.registered != nil && !bs.registered[id]
}

// describeBrokers lists the brokers with DescribeCluster, fenced ones
// included (v2, Kafka 4.0+), or, where that is denied or unsupported, with
// the metadata (no fenced brokers, so none is gone). A denial is
// remembered: the lag ticks ask the metadata only.
func (p *Probe) describeBrokers(ctx context.Context) (brokerSet, error) {
	bs := brokerSet{racks: map[int32]string{}}
	var resp *kmsg.DescribeClusterResponse
	err := errDescribeClusterDenied
	if !p.describeClusterDenied {
		req := kmsg.NewPtrDescribeClusterRequest()
		req.IncludeFencedBrokers = true
		if resp, err = req.RequestWith(ctx, p.adminClient); err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		p.describeClusterDenied = errors.Is(err, kerr.ClusterAuthorizationFailed)
	}
	if err != nil {
		if ctx.Err() != nil {
			return bs, err
		}
		md, mdErr := p.admin.BrokerMetadata(ctx)
		if mdErr != nil {
			return bs, mdErr
		}
		for _, b := range md.Brokers {
			bs.ids = append(bs.ids, b.NodeID)
			if b.Rack != nil {
				bs.racks[b.NodeID] = *b.Rack
			}
		}
		slices.Sort(bs.ids)
		return bs, nil
	}
	return brokersOf(resp), nil
}

// brokersOf is the brokerSet of a DescribeCluster response. A fenced
// broker (restarting) keeps its rack: its replicas stay, and a spread must
// know where they are to keep the replicas in distinct racks.
func brokersOf(resp *kmsg.DescribeClusterResponse) brokerSet {
	bs := brokerSet{racks: map[int32]string{}}
	if resp.Version >= 2 {
		bs.registered = map[int32]bool{}
	}
	for _, b := range resp.Brokers {
		if bs.registered != nil {
			bs.registered[b.NodeID] = true
		}
		if b.Rack != nil {
			bs.racks[b.NodeID] = *b.Rack
		}
		if !b.IsFenced {
			bs.ids = append(bs.ids, b.NodeID)
		}
	}
	slices.Sort(bs.ids)
	return bs
}

func (p *Probe) spreadLeadersOnce(ctx context.Context) (leaders []int32, err error) {
	topic := p.cfg.Topic
	bs, err := p.describeBrokers(ctx)
	if err != nil {
		return nil, err
	}
	brokers := bs.ids
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
	if covers(leaderIDs(td), brokers) && !onGoneBroker(bs, td) {
		return leaderIDs(td), nil
	}
	if plan := planLeaders(bs, td.Partitions.Sorted()); len(plan) > 0 {
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
// i % len(bs.ids) the preferred leader of the i-th partition, keep each
// partition's replication factor, and move replicas off brokers that are
// gone. The replica order changes where the broker already holds a replica
// (no data moves); else it takes the place of a gone replica or, with none,
// of one other replica: where the brokers have racks, one in its own rack
// or else one sharing a rack with another replica, so that the replicas
// stay in distinct racks (or get closer to it); otherwise the last. A gone
// replica is replaced by a serving broker, one of a rack the partition
// lacks first, and stays where no broker is left to take it. Unchanged
// partitions are left out.
func planLeaders(bs brokerSet, parts []kadm.PartitionDetail) map[int32][]int32 {
	plan := map[int32][]int32{}
	if len(bs.ids) == 0 {
		return plan
	}
	rackOf := func(id int32) string { return bs.racks[id] }
	if !multipleRacks(bs) {
		rackOf = func(int32) string { return "" }
	}
	for i, pd := range parts {
		if len(pd.Replicas) == 0 {
			continue
		}
		want := bs.ids[i%len(bs.ids)]
		var others, gone []int32
		for _, r := range pd.Replicas {
			switch {
			case r == want:
			case bs.gone(r):
				gone = append(gone, r)
			default:
				others = append(others, r)
			}
		}
		if len(others)+1 > len(pd.Replicas) {
			v := victim(others, want, rackOf)
			others = slices.Delete(others, v, v+1)
		}
		replicas := append([]int32{want}, others...)
		for len(replicas) < len(pd.Replicas) {
			if b, ok := spare(bs.ids, replicas, rackOf); ok {
				replicas = append(replicas, b)
				continue
			}
			replicas, gone = append(replicas, gone[0]), gone[1:]
		}
		if !slices.Equal(replicas, pd.Replicas) {
			plan[pd.Partition] = replicas
		}
	}
	return plan
}

// multipleRacks reports whether the serving brokers span two racks or more.
func multipleRacks(bs brokerSet) bool {
	first := ""
	for _, id := range bs.ids {
		switch r := bs.racks[id]; {
		case r == "":
		case first == "":
			first = r
		case r != first:
			return true
		}
	}
	return false
}

// victim is the index of the replica of others that want takes the place
// of: one in want's rack, else one sharing its rack with another, else the
// last.
func victim(others []int32, want int32, rackOf func(int32) string) int {
	if r := rackOf(want); r != "" {
		if i := slices.IndexFunc(others, func(o int32) bool { return rackOf(o) == r }); i >= 0 {
			return i
		}
	}
	for i, o := range others {
		if r := rackOf(o); r != "" && slices.ContainsFunc(others[i+1:], func(x int32) bool { return rackOf(x) == r }) {
			return i
		}
	}
	return len(others) - 1
}

// spare is a serving broker not among replicas, of a rack that none of
// them is in where there is one.
func spare(ids, replicas []int32, rackOf func(int32) string) (int32, bool) {
	fallback, found := int32(0), false
	for _, id := range ids {
		if slices.Contains(replicas, id) {
			continue
		}
		r := rackOf(id)
		if r != "" && !slices.ContainsFunc(replicas, func(x int32) bool { return rackOf(x) == r }) {
			return id, true
		}
		if !found {
			fallback, found = id, true
		}
	}
	return fallback, found
}

// onGoneBroker reports whether a replica of the topic is on a broker that
// is gone.
func onGoneBroker(bs brokerSet, td kadm.TopicDetail) bool {
	for _, pd := range td.Partitions {
		if slices.ContainsFunc(pd.Replicas, bs.gone) {
			return true
		}
	}
	return false
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
