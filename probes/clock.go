package probes

import (
	"context"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// clock is where a probe reads time. Its now is the wall time at a base
// read once plus Go's monotonic time since: an NTP step or a VM resume moves
// the wall clock but not now, so no latency of the probe's own records
// (produce, end-to-end, lag in seconds), all differences of now readings,
// moves with it. The intended times in record headers are now readings too;
// only records of another process (the other workers of a bench run) are
// measured against the wall clock, as their clocks must agree with ours.
type clock struct {
	base time.Time            // wall time at the base, without a monotonic reading
	mono func() time.Duration // monotonic time since the base
	wall func() time.Time     // the wall clock
}

func newClock() clock {
	base := time.Now()
	return clock{
		base: base.Round(0),
		mono: func() time.Duration { return time.Since(base) },
		wall: time.Now,
	}
}

// now is the probe's steady time (see clock).
func (c clock) now() time.Time { return c.base.Add(c.mono()) }

// Now is the probe's steady time (see clock): the time of its intended
// send times and every latency of its own records.
func (p *Probe) Now() time.Time { return p.clk.now() }

// PacerClock is a pacer clock on the probe's steady time.
func (p *Probe) PacerClock() pacer.Clock { return p.clk.pacer() }

// since is how long ago the header time stamp (unix ns, of a now reading
// of this clock) was at now.
func since(stamp int64, now time.Time) time.Duration {
	return time.Duration(now.UnixNano() - stamp)
}

// pacer is a pacer clock on the probe's steady time, so the pacer's
// intended times are steady too.
func (c clock) pacer() pacer.Clock { return steadyPacerClock{c} }

type steadyPacerClock struct{ c clock }

func (s steadyPacerClock) Now() time.Time { return s.c.now() }

// SleepUntil sleeps for the steady time left until t.
func (s steadyPacerClock) SleepUntil(ctx context.Context, t time.Time) error {
	return pacer.Sleep(ctx, t.Sub(s.c.now()))
}
