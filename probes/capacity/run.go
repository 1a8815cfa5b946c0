package capacity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// run holds one run's clients. The step loop is its only writer of
// seqs and rr; the promise and the end-to-end reader update the current step.
type run struct {
	c *Canary
	// p is the capacity topic's probe, never run: its topic, its clients'
	// labels and its steady clock.
	p          *probes.Probe
	admin      *kadm.Client
	partitions int32
	runID      uint64
	client     *kgo.Client
	reader     *kgo.Client // nil without end_to_end_slo
	readDone   chan struct{}
	pool       *payload.Pool
	// quotaWindow is how long the brokers average client quotas over; 0
	// when they do not say.
	quotaWindow time.Duration
	seqs        []uint64
	rr          int32
	closeOnce   sync.Once
	stopAbort   func() bool

	mu    sync.Mutex
	steps []*stepStats // with end_to_end_slo the reader looks steps up by intended time
}

// start creates the capacity topic and the clients. A cancelled ctx closes
// the clients at once, which also unblocks a Produce waiting for buffer
// space: a run stops within a second, without flushing.
func (c *Canary) start(ctx context.Context) (*run, error) {
	p := probes.New(c.probe, probes.Options{Kafka: c.opts.Kafka, Payload: c.opts.Payload, Logger: c.opts.Logger, Credentials: c.opts.Credentials})
	adminCl, err := p.NewClient(kclient.RoleAdmin, "0")
	if err != nil {
		return nil, err
	}
	defer adminCl.Close()
	r := &run{c: c, p: p, admin: kadm.NewClient(adminCl), runID: payload.NewRunID(), pool: probes.NewPool(c.probe, c.opts.Payload, c.probeLogger)}
	// A new topic takes a moment to be described; EnsureTopic retries.
	topicCtx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	if r.partitions, err = p.EnsureTopic(topicCtx, r.admin); err != nil {
		return nil, fmt.Errorf("capacity topic %q not ready within %s: %w", c.probe.Topic, topicTimeout, err)
	}
	r.quotaWindow = c.readQuotaWindow(ctx, r.admin)
	if r.client, err = p.NewClient(kclient.RoleProducer, "0", kclient.ProducerOpts(c.probe)...); err != nil {
		return nil, err
	}
	r.stopAbort = context.AfterFunc(ctx, r.closeClients)
	if c.cfg.EndToEndSLO > 0 {
		if err := r.startReader(ctx); err != nil {
			return r, err
		}
	}
	return r, r.warmUp(ctx)
}

// readQuotaWindow reads the brokers' quota window and warns when steps are
// shorter: the best step is then held that long before it is reported.
func (c *Canary) readQuotaWindow(ctx context.Context, adm *kadm.Client) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, topicTimeout)
	defer cancel()
	window, ok, err := kclient.QuotaWindow(ctx, adm)
	switch {
	case err != nil:
		c.logger.Warn("reading the brokers' quota window failed: the best step is reported without a hold", "err", err)
	case !ok:
		c.logger.Debug("the brokers report no quota window: the best step is reported without a hold")
	case window > time.Duration(c.cfg.StepDuration):
		msg := "capacity.step_duration is shorter than the brokers' quota window (quota.window.num × quota.window.size.seconds), so a step can pass before Kafka throttles: the best step is held for the quota window before it is reported"
		args := []any{"step_duration", c.cfg.StepDuration, "quota_window", window}
		// The configuration check could not count the hold: say when the
		// run outlasts the interval, as the next run waits an interval
		// after its end.
		if held := c.cfg.RunLength(len(c.cfg.Steps(c.probe.RecordSize)), window); !c.cfg.IntervalExceeds(held) {
			msg += "; a run with the hold (held_run: warm-up, steps, one hold) outlasts capacity.interval: the next run starts capacity.interval after it ends, so runs never overlap but come less often than the interval; raise capacity.interval above held_run"
			args = append(args, "interval", c.cfg.Interval, "held_run", held)
		}
		c.logger.Warn(msg, args...)
	}
	return window
}

// warmUp sends one record per partition and waits for them: a cluster that
// takes no records at all is an error of the run, not a limit of a step.
func (r *run) warmUp(ctx context.Context) error {
	if err := r.available(ctx); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// available sends one record per partition and waits up to 15 s for them:
// whether the cluster takes records at all.
func (r *run) available(ctx context.Context) error {
	now := r.p.Now()
	st := newStepStats(0, now, now, r.pool, r.p.Now)
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	ack := st.ack
	for range r.partitions {
		r.send(ctx, ack, r.p.Now())
	}
	if err := r.client.Flush(ctx); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case st.errors > 0:
		return st.firstErr
	case st.unsent > 0:
		return fmt.Errorf("%d of %d records not sent within 15s: %w", st.unsent, r.partitions, context.DeadlineExceeded)
	}
	return nil
}

func (r *run) closeClients() {
	r.closeOnce.Do(func() {
		r.client.Close()
		if r.reader != nil {
			r.reader.Close()
		}
	})
}

func (r *run) close() {
	if r.client == nil {
		return
	}
	r.stopAbort()
	r.closeClients()
	if r.readDone != nil {
		<-r.readDone
	}
}

// step produces at rate for d, waits for the step's acknowledgements (and,
// with end_to_end_slo, its consumption) and judges it.
func (r *run) step(ctx context.Context, rate float64, d time.Duration) Step {
	cfg := r.c.cfg
	clock := r.p.PacerClock()
	start := clock.Now()
	end := start.Add(d)
	st := newStepStats(rate, start, end, r.pool, r.p.Now)
	r.mu.Lock()
	r.steps = append(r.steps, st)
	r.mu.Unlock()

	// Rounds as the steady probe paces them at this step's rate.
	paced := r.c.probe
	paced.Rate = rate
	pc := pacer.New(clock, start, rate, probes.RoundSize(paced, r.partitions))
	wait := max(probes.FlushTimeout, 2*time.Duration(max(cfg.LatencySLO, cfg.EndToEndSLO)))
	// A record the client has not sent by the end of the step's wait
	// (its buffer full: the cluster takes less than the rate) fails with
	// this context's error instead of blocking Produce, and counts as late.
	sendCtx, cancelSend := context.WithDeadline(ctx, end.Add(wait))
	defer cancelSend()
	stepCtx, cancel := context.WithDeadline(ctx, end)
	ack := st.ack // one func value for the step, not one per record
	for {
		first, n, err := pc.Wait(stepCtx, probes.MaxBatch)
		if err != nil {
			break
		}
		for i := first; i < first+n; i++ {
			r.send(sendCtx, ack, pc.Intended(i))
		}
	}
	cancel()
	waitCtx, cancelWait := context.WithTimeout(ctx, wait)
	defer cancelWait()
	flushed := r.client.Flush(waitCtx) == nil
	read := r.reader == nil || st.waitConsumed(waitCtx)
	s := st.judge(cfg, flushed, read)
	s.Duration = d
	return s
}

// send hands one record to the client, round-robin over the partitions as
// the steady producer does. ctx bounds how long the record may wait for room
// in the client's buffer and to be sent; ack is the step's promise.
func (r *run) send(ctx context.Context, ack func(*kgo.Record, error), intended time.Time) {
	part := r.rr
	r.rr = (r.rr + 1) % max(r.partitions, 1)
	for int(part) >= len(r.seqs) {
		r.seqs = append(r.seqs, 0)
	}
	seq := r.seqs[part]
	r.seqs[part]++
	value := r.pool.Get(payload.Header{RunID: r.runID, Partition: part, Seq: seq, Intended: intended.UnixNano()})
	r.client.Produce(ctx, &kgo.Record{Partition: part, Value: value}, ack)
}

// startReader reads the capacity topic from its current end, without a
// group, to time end-to-end latency.
func (r *run) startReader(ctx context.Context) error {
	topic := r.c.probe.Topic
	ends, err := r.admin.ListEndOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("capacity topic end offsets: %w", err)
	}
	offsets := map[int32]kgo.Offset{}
	ends.Each(func(o kadm.ListedOffset) { offsets[o.Partition] = kgo.NewOffset().At(o.Offset) })
	cc := r.c.probe.Consumer
	r.reader, err = r.p.NewClient(kclient.RoleConsumer, "0",
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}),
		kgo.FetchMinBytes(cc.FetchMinBytes), kgo.FetchMaxBytes(cc.FetchMaxBytes),
		kgo.FetchMaxPartitionBytes(cc.MaxPartitionFetchBytes),
		kgo.FetchMaxWait(time.Duration(cc.FetchMaxWaitMS)*time.Millisecond))
	if err != nil {
		return err
	}
	r.readDone = make(chan struct{})
	go func() {
		defer close(r.readDone)
		r.read(ctx)
	}()
	return nil
}

func (r *run) read(ctx context.Context) {
	for {
		fetches := r.reader.PollRecords(ctx, r.c.probe.Consumer.MaxPollRecords)
		if fetches.IsClientClosed() || ctx.Err() != nil {
			return
		}
		now := r.p.Now()
		fetches.EachError(func(_ string, _ int32, err error) {
			if st := r.stepAt(now); st != nil && !errors.Is(err, context.Canceled) {
				st.fail(err)
			}
		})
		fetches.EachRecord(func(rec *kgo.Record) {
			h, err := payload.Decode(rec.Value)
			if err != nil || h.RunID != r.runID {
				return
			}
			if st := r.stepAt(time.Unix(0, h.Intended)); st != nil {
				st.consumed(since(h.Intended, now))
			}
		})
	}
}

// stepAt is the step whose records were intended at t.
func (r *run) stepAt(t time.Time) *stepStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range slices.Backward(r.steps) {
		if !t.Before(v.start) {
			return v
		}
	}
	return nil
}

// closeErr tells an error of the run's own shutdown from a broker's.
func closeErr(err error) bool {
	return errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, context.Canceled)
}

// since is how long ago the header time stamp (unix ns, a reading of the
// probe's steady clock) was at now.
func since(stamp int64, now time.Time) time.Duration {
	return time.Duration(now.UnixNano() - stamp)
}
