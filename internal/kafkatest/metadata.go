package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// attemptTimeout bounds one metadata request so that a paused or dying
// broker cannot stall a wait loop.
const attemptTimeout = 3 * time.Second

// WaitReady waits until metadata lists every running, unpaused broker.
func (c *Cluster) WaitReady(ctx context.Context) error {
	var ids []int32
	for _, n := range c.live() {
		ids = append(ids, n.id)
	}
	return c.waitBrokers(ctx, ids)
}

// live returns the running, unpaused nodes.
func (c *Cluster) live() []*node {
	var live []*node
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.nodes {
		if n.proc.running() && !n.paused {
			live = append(live, n)
		}
	}
	return live
}

// LeaderOf returns the leader of a partition from a fresh Metadata request
// (not kadm's cached metadata, see metadata).
// While the topic is unknown or the partition has no leader it retries for up
// to 15 s (bounded by ctx), since both are normal right after creation or a
// failure.
func (c *Cluster) LeaderOf(ctx context.Context, topic string, partition int32) (int32, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cl := c.client()
	defer cl.Close()
	var last error
	for {
		leader, err := leaderOf(ctx, cl, topic, partition)
		if err == nil {
			return leader, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("kafkatest: leader of %s/%d: %w (last: %w)", topic, partition, ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func leaderOf(ctx context.Context, cl *kgo.Client, topic string, partition int32) (int32, error) {
	resp, err := metadata(ctx, cl, topic)
	if err != nil {
		return -1, err
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return -1, err
		}
		for _, p := range t.Partitions {
			if p.Partition != partition {
				continue
			}
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return -1, err
			}
			if p.Leader < 0 {
				return -1, errors.New("partition has no leader")
			}
			return p.Leader, nil
		}
		return -1, fmt.Errorf("partition %d not in metadata", partition)
	}
	return -1, errors.New("topic not in metadata")
}

// client returns a kgo client seeded with every running, unpaused node, with
// a short dial timeout so that dead nodes cost little.
func (c *Cluster) client() *kgo.Client {
	var seeds []string
	for _, n := range c.live() {
		seeds = append(seeds, n.addr())
	}
	if len(seeds) == 0 {
		seeds = c.Bootstrap()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DialTimeout(time.Second))
	if err != nil { // only for invalid options
		panic(err)
	}
	return cl
}

// metadata issues a real Metadata request (no topics if topics is empty).
// kadm.BrokerMetadata and kadm.Metadata answer from kgo's metadata cache
// (RequestCachedMetadata): its broker list is not refreshed by them and can
// stay stale for good, which is useless for waiting on membership changes.
func metadata(ctx context.Context, cl *kgo.Client, topics ...string) (*kmsg.MetadataResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = new(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, cl)
}

// BrokerIDs returns the node ids of the brokers listed in a fresh Metadata
// response, i.e. the registered, unfenced brokers.
func (c *Cluster) BrokerIDs(ctx context.Context) ([]int32, error) {
	cl := c.client()
	defer cl.Close()
	resp, err := metadata(ctx, cl)
	if err != nil {
		return nil, err
	}
	return listed(resp), nil
}

// listed returns the node ids of a Metadata response's brokers, sorted.
func listed(resp *kmsg.MetadataResponse) []int32 {
	ids := make([]int32, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	return ids
}

// waitBrokers polls metadata until every id in ids is listed, failing early
// if one of their JVMs exits.
func (c *Cluster) waitBrokers(ctx context.Context, ids []int32) error {
	if len(ids) == 0 {
		return nil // nothing running: nothing to wait for (and no one to ask)
	}
	cl := c.client()
	defer cl.Close()
	var last error
	for {
		for _, id := range ids {
			if err := c.exited(id); err != nil {
				return err
			}
		}
		resp, err := metadata(ctx, cl)
		if err == nil {
			var missing []int32
			have := listed(resp)
			for _, id := range ids {
				if !slices.Contains(have, id) {
					missing = append(missing, id)
				}
			}
			if len(missing) == 0 {
				return nil
			}
			last = fmt.Errorf("brokers %v not in metadata yet (listed: %v)", missing, have)
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: waiting for brokers %v: %w (last: %w)%s", ids, ctx.Err(), last, c.tails(ids))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// exited returns an error, with the tail of its log, if node id's JVM is not
// running (it exited, or never started); errPortInUse when it could not bind
// its ports.
func (c *Cluster) exited(id int32) error {
	n := c.nodes[id-1]
	c.mu.Lock()
	p := n.proc
	c.mu.Unlock()
	if p.running() {
		return nil
	}
	exit := errors.New("not started")
	if p != nil {
		exit = p.err
		if exit == nil {
			exit = errors.New("exit status 0")
		}
	}
	log := tail(n.logPath)
	err := fmt.Errorf("kafkatest: node %d exited while starting (%w); log %s:\n%s", id, exit, n.logPath, log)
	if strings.Contains(log, "Address already in use") {
		err = fmt.Errorf("%w: %w", errPortInUse, err)
	}
	return err
}

func (c *Cluster) tails(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		n := c.nodes[id-1]
		fmt.Fprintf(&b, "\n--- node %d log %s:\n%s", id, n.logPath, tail(n.logPath))
	}
	return b.String()
}
