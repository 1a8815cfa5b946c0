package probes

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// consumer is one member of the probe's consumer group. It has its own
// client, so a fetch wait never inflates produce latency.
type consumer struct {
	runDeps
	client     *kgo.Client
	interval   time.Duration
	lastCommit time.Time
	// seen is the partition count this consumer's client knows of; while
	// the topic has more (the watcher saw partitions added), the client is
	// asked to refresh its metadata, at most once a second (lastRefresh), so
	// the group is rebalanced onto them at once instead of after
	// metadata.max.age.
	seen        int32
	lastRefresh time.Time
	growing     int32   // the partition count last put down as growth
	member      *member // its rebalances (rebalance.go)
}

// callbacks are the member's rebalance callbacks.
func (c *consumer) callbacks() kclient.GroupCallbacks {
	assigned, revoked, lost := c.member.callbacks(c.onRevoked)
	return kclient.GroupCallbacks{Assigned: assigned, Revoked: revoked, Lost: lost}
}

// run polls until ctx is cancelled, then commits what it processed; the
// caller closes the client, which leaves the group.
func (c *consumer) run(ctx context.Context) {
	maxPoll := c.cfg.Consumer.MaxPollRecords
	for {
		c.followGrowth()
		if c.held.Load() {
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
			if ctx.Err() != nil {
				break
			}
			continue
		}
		// A poll waits at most one commit interval, so the last records
		// are committed (and lag reaches 0) even when no more arrive.
		pollCtx, cancel := context.WithTimeout(ctx, c.interval)
		fetches := c.client.PollRecords(pollCtx, maxPoll)
		cancel()
		if fetches.IsClientClosed() || ctx.Err() != nil {
			break
		}
		fetches.EachError(func(_ string, partition int32, err error) {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				c.errs.fetch(partition, err)
			}
		})
		c.process(fetches, c.clk.now())
		c.client.AllowRebalance()
		if time.Since(c.lastCommit) >= c.interval {
			c.commit(ctx)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c.commit(ctx)
	// With BlockRebalanceOnPoll every poll holds off rebalances until
	// AllowRebalance; leaving the group on Close would wait forever.
	c.client.AllowRebalance()
}

// followGrowth makes the client look for partitions added to the topic.
func (c *consumer) followGrowth() {
	n := c.partitions.Load()
	if n <= c.seen {
		return
	}
	if n > c.growing {
		if c.growing > 0 { // not the count at start
			c.reb.grew(c.clk.now())
		}
		c.growing = n
	}
	if leader, _, err := c.client.PartitionLeader(c.cfg.Topic, n-1); err == nil && leader >= 0 {
		c.seen = n
		return
	}
	if now := time.Now(); now.Sub(c.lastRefresh) >= time.Second {
		c.lastRefresh = now
		c.client.ForceMetadataRefresh()
	}
}

// process accounts one poll's records; now is when they were received, on
// the probe's clock.
func (c *consumer) process(fetches kgo.Fetches, now time.Time) {
	ev := c.ev
	n := 0
	fetches.EachRecord(func(r *kgo.Record) {
		if r.Attrs.IsControl() {
			return // a transaction marker (KeepControlRecords): it only moves the position
		}
		n++
		h, err := payload.Decode(r.Value)
		if err != nil || h.Partition != r.Partition {
			ev.Consumed(event.Consumed{Now: now, Bytes: len(r.Value), Foreign: true})
			return
		}
		e := event.Consumed{Now: now, Bytes: len(r.Value), ID: RecordID{Run: h.RunID, Partition: h.Partition, Seq: h.Seq},
			Own: h.RunID == c.runID || slices.Contains(c.workerRuns, h.RunID)}
		switch {
		case h.RunID == c.runID:
			e.EndToEnd = since(h.Intended, now)
		case e.Own: // another process's record: its wall clock against ours
			e.EndToEnd = since(h.Intended, c.clk.wall())
		}
		e.InRebalance = e.Own && c.reb.during(h.Intended)
		ev.Consumed(e)
		switch c.tracker.Observe(r.Partition, h.RunID, h.Seq, now) {
		case tracker.Duplicate:
			ev.Anomaly(event.Duplicated, 1)
		case tracker.OutOfOrder:
			ev.Anomaly(event.OutOfOrder, 1)
		case tracker.Aborted:
			if c.cfg.Producer.Transactional() && c.cfg.Consumer.ReadCommitted() {
				ev.Anomaly(event.AbortedRead, 1)
			}
		}
	})
	if n > 0 {
		ev.Polled(n)
		c.live.consumed(now)
		c.member.consumed(now)
	}
	// A poll of transaction markers only moves positions too.
	fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
		if k := len(fp.Records); k > 0 {
			c.positions.set(fp.Partition, fp.Records[k-1].Offset+1)
		}
	})
}

// commit commits processed offsets synchronously and times it.
func (c *consumer) commit(ctx context.Context) {
	start := time.Now()
	c.lastCommit = start
	if len(c.client.UncommittedOffsets()) == 0 {
		return // nothing new: no request, and no zero in the latency histogram
	}
	if err := c.client.CommitUncommittedOffsets(ctx); err != nil {
		if !errors.Is(err, context.Canceled) {
			c.ev.Commit(0, true)
			c.logger.Debug("offset commit failed", "err", err)
		}
		return
	}
	c.ev.Commit(time.Since(start), false)
}

// onRevoked commits before partitions move to another member, so the next
// owner neither re-reads (duplicates) nor skips records.
func (c *consumer) onRevoked(ctx context.Context, cl *kgo.Client, _ map[string][]int32) {
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		c.ev.Commit(0, true)
	}
}

// fetchedFrom reports each fetched batch (kgo.HookFetchBatchRead) with the
// broker that served it: with client.rack a follower in the consumer's rack
// (KIP-392) once the leader names it the preferred read replica. Once per
// batch, not per record; installed only when a sink hears of it.
type fetchedFrom struct{ ev *event.Hooks }

func (f fetchedFrom) OnFetchBatchRead(meta kgo.BrokerMetadata, _ string, partition int32, m kgo.FetchBatchMetrics) {
	f.ev.Fetched(partition, meta.NodeID, m.NumRecords)
}
