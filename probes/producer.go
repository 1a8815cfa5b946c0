package probes

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// maxBatch bounds how many due records one pacer wake-up hands out, so a
// catch-up burst still checks for cancellation regularly.
const maxBatch = 512

// producer paces probe records by intended send time and measures produce
// latency from that time, so a stall is charged to every record it delayed.
type producer struct {
	p      *Probe
	client *kgo.Client
	pool   *payload.Pool
	// seqs holds the next sequence number of each partition; only the
	// produce loop touches it.
	seqs []uint64
	rr   int32
	// maxBehind: a record due longer ago than the delivery timeout would
	// have failed in Kafka's own client; it is dropped and counted as
	// failed (behind_schedule) instead of sent in a burst after an outage.
	maxBehind time.Duration
	// track: the tracker hears of every acknowledgement and failure, for
	// loss accounting; without a consumer there is none to keep.
	track bool
	// limit, when > 0, stops producing after that many records (bench).
	limit uint64
	sent  atomic.Uint64
}

func newProducer(p *Probe, client *kgo.Client) *producer {
	return &producer{
		p:         p,
		client:    client,
		pool:      p.newPool(),
		maxBehind: time.Duration(p.cfg.Producer.DeliveryTimeoutMS) * time.Millisecond,
		limit:     p.opts.NumRecords,
		track:     p.cfg.Consumer.Enabled,
	}
}

// run produces until ctx is cancelled or the record limit is reached.
func (pr *producer) run(ctx context.Context) {
	clock := pacer.RealClock()
	pc := pacer.New(clock, clock.Now(), pr.p.cfg.Rate)
	unlimited := pr.p.cfg.Rate <= 0
	for ctx.Err() == nil {
		if !unlimited {
			if now := clock.Now(); pc.Behind(now) > pr.maxBehind {
				if n := pc.SkipTo(now.Add(-pr.maxBehind / 2)); n > 0 {
					pr.p.m.failed[ReasonBehindSchedule].Add(float64(n))
					pr.p.logger.Warn("producer fell behind schedule by more than delivery.timeout.ms; skipping records", "skipped", n)
				}
			}
		}
		first, n, err := pc.Wait(ctx, maxBatch)
		if err != nil {
			return
		}
		if pr.limit > 0 {
			left := pr.limit - pr.sent.Load()
			if left == 0 {
				return
			}
			n = min(n, left)
		}
		now := clock.Now()
		for i := first; i < first+n; i++ {
			intended := now
			if !unlimited {
				intended = pc.Intended(i)
			}
			pr.send(intended, now)
		}
	}
}

// send hands one record to the client. Produce blocks while buffer.memory is
// full, which is what bounds memory while Kafka is away. It is given no
// cancellable context: cancelling could fail a record that is already on
// the wire (and then consumed), so stopping is done by closing the client.
func (pr *producer) send(intended, now time.Time) {
	parts := pr.p.partitions.Load()
	if parts < 1 {
		parts = 1
	}
	if pr.rr >= parts {
		pr.rr = 0
	}
	part := pr.rr
	pr.rr++
	for int(part) >= len(pr.seqs) {
		pr.seqs = append(pr.seqs, 0)
	}
	seq := pr.seqs[part]
	pr.seqs[part]++
	value := pr.pool.Get(payload.Header{RunID: pr.p.runID, Partition: part, Seq: seq, Intended: intended.UnixNano()})
	pr.p.m.sendDelay.Observe(max(now.Sub(intended), 0).Seconds())
	pr.sent.Add(1)
	pr.client.Produce(context.Background(), &kgo.Record{Partition: part, Value: value}, pr.promise)
}

// promise runs on franz-go's callback goroutine for each record; it reads the
// header back instead of capturing it, so no closure is allocated per record.
func (pr *producer) promise(r *kgo.Record, err error) {
	now := time.Now()
	h, derr := payload.Decode(r.Value)
	pr.pool.Put(r.Value)
	if derr != nil {
		return // cannot happen: the value is ours
	}
	if err != nil {
		pr.p.m.failed[failureReason(err)].Inc()
		if pr.track {
			pr.p.tracker.Failed(h.Partition, h.Seq, now)
		}
		pr.p.noteProduceError(err)
		return
	}
	latency := now.Sub(time.Unix(0, h.Intended))
	pr.p.produceLatency(r.Partition).Observe(latency.Seconds())
	if rec := pr.p.opts.Recorder; rec != nil {
		rec.Produced(latency, len(r.Value))
	}
	if pr.track {
		pr.p.tracker.Acked(h.Partition, h.Seq, now)
	}
	pr.p.m.produced.Inc()
	pr.p.m.producedBytes.Add(float64(len(r.Value)))
	if pr.p.lastProduced.Swap(now.UnixNano()) == 0 {
		pr.p.updateUp(now) // the first record: up (and ready) at once
	}
	pr.p.produceTimes.add(r.Partition, r.Offset, h.Intended)
}

// stop ends pacing, waits for buffered records until the deadline, then
// closes the client, which fails what is left (and unblocks a Produce
// waiting for buffer space while Kafka is away).
func (pr *producer) stop(stopPacing context.CancelFunc, done <-chan struct{}, timeout time.Duration) {
	stopPacing()
	deadline := time.Now().Add(timeout)
	select {
	case <-done:
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_ = pr.client.Flush(ctx)
		cancel()
	case <-time.After(timeout):
	}
	pr.client.Close()
	<-done
}

// failureReason maps a produce error onto the fixed reason set.
func failureReason(err error) string {
	switch {
	case isAuthError(err): // first: a timeout's "last err" may be the reason
		return ReasonAuth
	case errors.Is(err, kgo.ErrRecordTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, kerr.RequestTimedOut):
		return ReasonTimeout
	case errors.Is(err, kgo.ErrRecordRetries):
		return ReasonRetriesExhausted
	case errors.Is(err, kgo.ErrClientClosed), errors.Is(err, context.Canceled):
		return ReasonClientClosed
	case errors.Is(err, kerr.NotLeaderForPartition), errors.Is(err, kerr.LeaderNotAvailable), errors.Is(err, kerr.FencedLeaderEpoch):
		return ReasonNotLeader
	case errors.Is(err, kerr.NotEnoughReplicas), errors.Is(err, kerr.NotEnoughReplicasAfterAppend):
		return ReasonNotEnoughReplicas
	case errors.Is(err, kerr.UnknownTopicOrPartition), errors.Is(err, kerr.UnknownTopicID):
		return ReasonTopicMissing
	case errors.Is(err, kerr.MessageTooLarge), errors.Is(err, kerr.RecordListTooLarge):
		return ReasonMessageTooLarge
	}
	return ReasonOther
}
