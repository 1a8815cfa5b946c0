package capacity

import (
	"context"
	"errors"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// stepHistMax bounds the step histograms (µs); slower records count as this.
const stepHistMax = int64(10 * time.Minute / time.Microsecond)

// ackSlot is the resolution of a step's acknowledgement times.
const ackSlot = 10 * time.Millisecond

// stepStats collects one capacity step: produce acknowledgements from the
// client's promises and, with end_to_end_slo, consumption from the reader.
type stepStats struct {
	target     float64
	start, end time.Time
	pool       *payload.Pool
	now        func() time.Time         // the probe's steady clock
	ack        func(*kgo.Record, error) // the promise, allocated once per step
	progress   chan struct{}            // signalled when records are consumed

	mu    sync.Mutex
	acked uint64
	// ackSlots count acknowledgements by ackSlot since start; the last
	// slot takes every later one.
	ackSlots []uint32
	errors   uint64
	firstErr error
	// unsent counts records the client had not sent when the step's
	// wait ended (their context expired): late, not failed.
	unsent    uint64
	produce   *hdrhistogram.Histogram
	consumedN uint64
	e2e       *hdrhistogram.Histogram
}

func newStepStats(target float64, start, end time.Time, pool *payload.Pool, now func() time.Time) *stepStats {
	st := &stepStats{target: target, start: start, end: end, pool: pool, now: now, progress: make(chan struct{}, 1),
		produce: hdrhistogram.New(1, stepHistMax, 3), e2e: hdrhistogram.New(1, stepHistMax, 3),
		ackSlots: make([]uint32, 2*end.Sub(start)/ackSlot+1)}
	st.ack = st.promise
	return st
}

// promise measures from the intended time in the record's header, as the
// steady producer does.
func (st *stepStats) promise(r *kgo.Record, err error) {
	now := st.now()
	h, derr := payload.Decode(r.Value)
	st.pool.Put(r.Value)
	if derr != nil || closeErr(err) {
		return // the run's own shutdown is no broker error
	}
	if errors.Is(err, context.DeadlineExceeded) {
		st.mu.Lock()
		st.unsent++
		st.mu.Unlock()
		return
	}
	if err != nil {
		st.fail(err)
		return
	}
	st.mu.Lock()
	st.acked++
	st.ackSlots[min(max(int(now.Sub(st.start)/ackSlot), 0), len(st.ackSlots)-1)]++
	_ = st.produce.RecordValue(min(since(h.Intended, now).Microseconds(), stepHistMax))
	st.mu.Unlock()
}

func (st *stepStats) fail(err error) {
	st.mu.Lock()
	st.errors++
	if st.firstErr == nil {
		st.firstErr = err
	}
	st.mu.Unlock()
}

func (st *stepStats) consumed(e2e time.Duration) {
	st.mu.Lock()
	st.consumedN++
	_ = st.e2e.RecordValue(min(e2e.Microseconds(), stepHistMax))
	st.mu.Unlock()
	select {
	case st.progress <- struct{}{}:
	default:
	}
}

// waitConsumed waits until every acknowledged record of the step was read.
func (st *stepStats) waitConsumed(ctx context.Context) bool {
	for {
		st.mu.Lock()
		done := st.consumedN >= st.acked
		st.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-st.progress:
		}
	}
}

// achieved is the rate of the step's records acknowledged by its end plus
// its median latency: a steady latency lets every record in, while a
// backlog that grows during the step (throttling, a saturated broker or
// sender) leaves the records of its last part out.
func (st *stepStats) achieved(median time.Duration) float64 {
	d := st.end.Sub(st.start)
	var n uint64
	for i := 0; i < int((d+median)/ackSlot) && i < len(st.ackSlots)-1; i++ {
		n += uint64(st.ackSlots[i])
	}
	return float64(n) / d.Seconds()
}

// judge decides the step: produce (or read) errors first, then latency —
// records still unacknowledged (flushed false), never sent (unsent) or
// unread (read false) when the wait ended are late by definition — then the
// achieved rate.
func (st *stepStats) judge(cfg config.Capacity, flushed, read bool) Step {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := Step{Target: st.target, Errors: st.errors,
		P99: time.Duration(st.produce.ValueAtQuantile(99)) * time.Microsecond}
	s.Achieved = st.achieved(time.Duration(st.produce.ValueAtQuantile(50)) * time.Microsecond)
	e2eOn := cfg.EndToEndSLO > 0
	if e2eOn {
		s.EndToEndP99 = time.Duration(st.e2e.ValueAtQuantile(99)) * time.Microsecond
	}
	switch {
	case st.errors > 0:
		s.Limit = LimitErrors
	case !flushed || st.unsent > 0 || s.P99 > time.Duration(cfg.LatencySLO):
		s.Limit = LimitLatency
	case e2eOn && (!read || s.EndToEndP99 > time.Duration(cfg.EndToEndSLO)):
		s.Limit = LimitLatency
	case s.Achieved < minAchieved*st.target:
		s.Limit = LimitRate
	}
	return s
}
