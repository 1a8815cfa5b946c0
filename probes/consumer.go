package probes

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
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
	m, rec := c.m, c.rec
	n := 0
	fetches.EachRecord(func(r *kgo.Record) {
		if r.Attrs.IsControl() {
			return // a transaction marker (KeepControlRecords): it only moves the position
		}
		n++
		m.consumedBytes.Add(float64(len(r.Value)))
		h, err := payload.Decode(r.Value)
		if err != nil || h.Partition != r.Partition {
			m.foreign.Inc()
			if rec != nil {
				rec.Consumed(now, 0, len(r.Value), false, RecordID{})
			}
			return
		}
		own := h.RunID == c.runID || slices.Contains(c.workerRuns, h.RunID)
		var e2e time.Duration
		switch {
		case h.RunID == c.runID:
			e2e = since(h.Intended, now)
		case own: // another process's record: its wall clock against ours
			e2e = since(h.Intended, c.clk.wall())
		}
		if own {
			c.latency.e2e(r.Partition).Observe(e2e.Seconds())
			if c.reb.during(h.Intended) {
				c.reb.e2e.Observe(e2e.Seconds())
			}
		}
		if rec != nil {
			rec.Consumed(now, e2e, len(r.Value), own, RecordID{Run: h.RunID, Partition: h.Partition, Seq: h.Seq})
		}
		switch c.tracker.Observe(r.Partition, h.RunID, h.Seq, now) {
		case tracker.Duplicate:
			m.duplicated.Inc()
		case tracker.OutOfOrder:
			m.outOfOrder.Inc()
		case tracker.Aborted:
			if c.txm != nil && c.cfg.Consumer.ReadCommitted() {
				c.txm.abortedRead.Inc()
			}
		}
	})
	if n > 0 {
		m.consumed.Add(float64(n))
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
			c.m.commitFailed.Inc()
			c.logger.Debug("offset commit failed", "err", err)
		}
		return
	}
	c.m.commitLatency.Observe(time.Since(start).Seconds())
}

// onRevoked commits before partitions move to another member, so the next
// owner neither re-reads (duplicates) nor skips records.
func (c *consumer) onRevoked(ctx context.Context, cl *kgo.Client, _ map[string][]int32) {
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		c.m.commitFailed.Inc()
	}
}

// fetchedFrom counts the records of each fetched batch by the partition's
// leader and the broker that served it (kgo.HookFetchBatchRead): with
// client.rack a follower in the consumer's rack serves it (KIP-392) once
// the leader names it the preferred read replica. Once per batch, not per
// record.
type fetchedFrom struct {
	probe   string
	leaders *leaderLatency
	counter *prometheus.CounterVec
}

func (f fetchedFrom) OnFetchBatchRead(meta kgo.BrokerMetadata, _ string, partition int32, m kgo.FetchBatchMetrics) {
	f.counter.WithLabelValues(f.probe, f.leaders.leaderLabel(partition), strconv.Itoa(int(meta.NodeID))).Add(float64(m.NumRecords))
}
