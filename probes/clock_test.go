package probes

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// fakeTime is the OS clocks as a probe sees them: a monotonic reading and a
// wall clock that an NTP step or a VM resume can move on its own.
type fakeTime struct {
	mono time.Duration
	wall time.Time
}

func (f *fakeTime) clock() clock {
	return clock{base: f.wall, mono: func() time.Duration { return f.mono }, wall: func() time.Time { return f.wall }}
}

// advance lets d pass; step moves the wall clock alone.
func (f *fakeTime) advance(d time.Duration) { f.mono += d; f.wall = f.wall.Add(d) }
func (f *fakeTime) step(d time.Duration)    { f.wall = f.wall.Add(d) }

// headerOf is the header of record 0 of partition 0 of run, intended at t.
func headerOf(run uint64, t time.Time) payload.Header {
	return payload.Header{RunID: run, Partition: 0, Seq: 0, Intended: t.UnixNano()}
}

// latencies is a hook that keeps the last produce and end-to-end latency.
type latencies struct {
	produce, e2e time.Duration
}

func (l *latencies) OnProduced(e event.Produced) { l.produce = e.Latency }
func (l *latencies) OnConsumed(e event.Consumed) {
	if e.Own {
		l.e2e = e.EndToEnd
	}
}

// A wall-clock step of +1 h after the start moves none of the probe's own
// latencies: produce, end-to-end and lag in seconds are differences of the
// probe's monotonic time. Only a record of another process (another
// worker of a bench run) is measured against the wall clock.
func TestLatencyIgnoresWallClockSteps(t *testing.T) {
	ft := &fakeTime{wall: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	rec := &latencies{}
	cfg := config.NewProbe("clock")
	cfg.Resolve()
	p := New(cfg, Options{Sinks: []event.Sink{promsink.NewMetrics(prometheus.NewRegistry()), HookSink{rec}}, Bench: BenchOptions{WorkerRuns: []uint64{42}}})
	p.clk = ft.clock()
	p.partitions.Store(1)
	pr := newProducer(p.runDeps, nil, 0)
	c := &consumer{runDeps: p.runDeps}

	ft.advance(time.Minute)   // the probe has run for a while
	ft.step(30 * time.Second) // an NTP step before the round
	intended := p.clk.now()
	pr.readWall(intended)
	ft.advance(2 * time.Millisecond) // handed to the client 2 ms late
	wallAtSend := ft.wall
	r := pr.record(intended, p.clk.now())
	if !r.Timestamp.Equal(wallAtSend) {
		t.Errorf("record timestamp %v, want the wall clock %v", r.Timestamp, wallAtSend)
	}
	value := append([]byte(nil), r.Value...) // promise returns r.Value to the pool
	ft.step(time.Hour)
	ft.advance(3 * time.Millisecond)
	pr.promise(r, nil)
	if rec.produce != 5*time.Millisecond {
		t.Errorf("produce latency %v across a +1 h wall-clock step, want 5ms", rec.produce)
	}

	ft.advance(5 * time.Millisecond)
	read := &kgo.Record{Partition: 0, Offset: r.Offset, Value: value}
	c.process(fetchOf(read), p.clk.now())
	if rec.e2e != 10*time.Millisecond {
		t.Errorf("end-to-end latency %v across a +1 h wall-clock step, want 10ms", rec.e2e)
	}

	var lag lagView
	lag.add(p.produceTimes, 0, r.Offset+1, r.Offset)
	if s, ok := lag.seconds(p.clk.now()); !ok || s != 0.010 {
		t.Errorf("lag %v s (known %v) across a +1 h wall-clock step, want 0.010", s, ok)
	}

	// Another process stamped its record with its wall clock 10 ms ago.
	other := header(headerOf(42, ft.wall.Add(-10*time.Millisecond)), 64)
	c.process(fetchOf(&kgo.Record{Partition: 0, Offset: 1, Value: other}), p.clk.now())
	if rec.e2e != 10*time.Millisecond {
		t.Errorf("end-to-end latency of another process's record %v, want 10ms by the wall clocks", rec.e2e)
	}
}

// The producer's pacer runs on the same steady time: a wall-clock step
// neither makes it burst (forward) nor stall (backward).
func TestPacerClockIgnoresWallClockSteps(t *testing.T) {
	ft := &fakeTime{wall: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	pc := ft.clock().pacer()
	start := pc.Now()
	ft.advance(time.Second)
	ft.step(-time.Hour)
	if got := pc.Now().Sub(start); got != time.Second {
		t.Errorf("pacer clock moved %v after 1 s and a -1 h wall-clock step, want 1s", got)
	}
	if err := pc.SleepUntil(context.Background(), start); err != nil {
		t.Errorf("sleeping until a past time: %v", err)
	}
}
