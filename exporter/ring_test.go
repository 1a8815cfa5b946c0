package exporter

import (
	"math"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// liveProbeOf is the ring's hooks of a probe named name, as the engine sees
// them.
func liveProbeOf(r *liveRing, name string) *event.Hooks {
	return event.New(r.ForProbe(config.Probe{Name: name}))
}

// produce reports n records acknowledged after latency and, when e2e > 0,
// read after e2e.
func produce(hs *event.Hooks, n int, latency, e2e time.Duration) {
	for range n {
		hs.Produced(event.Produced{Latency: latency, Bytes: 1})
		if e2e > 0 {
			hs.Consumed(event.Consumed{EndToEnd: e2e, Bytes: 1, Own: true})
		}
	}
}

// TestLiveRing: rates and p99s are per interval (the increase of the
// probe's counts since the last sample), the p99 within one bucket (about
// 9 %) of the true value; the first sample has none; a stopped probe is
// dropped; the ring keeps 15 minutes.
func TestLiveRing(t *testing.T) {
	r := newLiveRing()
	a := liveProbeOf(r, "a")
	t0 := time.Unix(1_700_000_000, 0)

	produce(a, 500, 200*time.Millisecond, 0) // an old slow period
	produce(a, 500, 0, 0)
	a.Up(true)
	a.Lag(event.Lag{Records: event.Gauge{Value: 7, Known: true}})
	r.sample(t0)

	produce(a, 500, 1500*time.Microsecond, 4*time.Millisecond) // 100 records/s over 5 s
	b := liveProbeOf(r, "b")                                   // started since
	produce(b, 1, time.Millisecond, 0)
	r.sample(t0.Add(liveInterval))

	d := r.snapshot()
	if len(d.Probes) != 2 || d.Probes[0].Name != "a" || d.Probes[1].Name != "b" {
		t.Fatalf("probes %+v, want a and b", d.Probes)
	}
	pa := d.Probes[0]
	if len(pa.Time) != 2 || pa.Time[1]-pa.Time[0] != 5 {
		t.Fatalf("times %v, want two 5 s apart", pa.Time)
	}
	if pa.RecordsPerSec[0] != nil || pa.ProduceP99MS[0] != nil || pa.E2EP99MS[0] != nil {
		t.Errorf("first sample has a rate or p99: %v %v %v", pa.RecordsPerSec[0], pa.ProduceP99MS[0], pa.E2EP99MS[0])
	}
	for _, c := range []struct {
		name      string
		got       *float64
		want, tol float64
	}{
		{"records/s", pa.RecordsPerSec[1], 100, 1e-9},
		{"produce p99 ms", pa.ProduceP99MS[1], 1.5, 1.5 * 0.1}, // within a bucket
		{"end-to-end p99 ms", pa.E2EP99MS[1], 4, 4 * 0.1},
		{"lag records", pa.LagRecords[1], 7, 0},
		{"up", pa.Up[1], 1, 0},
	} {
		if c.got == nil || math.Abs(*c.got-c.want) > c.tol {
			t.Errorf("%s = %v, want %v ± %v", c.name, deref(c.got), c.want, c.tol)
		}
	}
	if pb := d.Probes[1]; len(pb.Time) != 1 || pb.RecordsPerSec[0] != nil {
		t.Errorf("probe b: %+v, want one sample without a rate", pb)
	}

	b.Stopped()
	for i := 2; i < 400; i++ {
		r.sample(t0.Add(time.Duration(i) * liveInterval))
	}
	d = r.snapshot()
	if len(d.Probes) != 1 {
		t.Fatalf("probes %+v, want b dropped", d.Probes)
	}
	if n := len(d.Probes[0].Time); n != int(liveWindow/liveInterval) {
		t.Errorf("%d points kept, want %d (15 minutes)", n, liveWindow/liveInterval)
	}
	if last := d.Probes[0].RecordsPerSec[len(d.Probes[0].Time)-1]; last == nil || *last != 0 {
		t.Errorf("idle probe: records/s %v, want 0", deref(last))
	}
	if p := d.Probes[0].ProduceP99MS[len(d.Probes[0].Time)-1]; p != nil {
		t.Errorf("no records in the interval: p99 %v, want null", *p)
	}
}

// A probe restarted under its name (a reload) starts its counts afresh:
// the interval across the restart reads as unknown, not as a negative
// rate, and the old probe's stop does not drop the new one.
func TestLiveRingRestartedProbe(t *testing.T) {
	r := newLiveRing()
	old := liveProbeOf(r, "a")
	t0 := time.Unix(1_700_000_000, 0)
	produce(old, 100, time.Millisecond, 0)
	r.sample(t0)
	restarted := liveProbeOf(r, "a")
	old.Stopped()
	produce(restarted, 10, time.Millisecond, 0)
	r.sample(t0.Add(liveInterval))
	produce(restarted, 50, time.Millisecond, 0)
	r.sample(t0.Add(2 * liveInterval))
	d := r.snapshot()
	if len(d.Probes) != 1 || len(d.Probes[0].Time) != 3 {
		t.Fatalf("probes %+v, want a with three points", d.Probes)
	}
	pa := d.Probes[0]
	if pa.RecordsPerSec[1] != nil || pa.ProduceP99MS[1] != nil {
		t.Errorf("across the restart: records/s %v, p99 %v; want null", deref(pa.RecordsPerSec[1]), deref(pa.ProduceP99MS[1]))
	}
	if got := pa.RecordsPerSec[2]; got == nil || *got != 10 {
		t.Errorf("after the restart: records/s %v, want 10", deref(got))
	}
}

// The ring, a sink on the hot path, costs no allocation per record.
func TestLiveSinkAllocatesNothing(t *testing.T) {
	hs := liveProbeOf(newLiveRing(), "a")
	allocs := testing.AllocsPerRun(1000, func() { produce(hs, 1, time.Millisecond, 2*time.Millisecond) })
	if allocs != 0 {
		t.Errorf("%v allocations per record, want 0", allocs)
	}
}

// The ring's buckets are the native histograms' at schema 3: bucket k
// holds (2^((k-1)/8), 2^(k/8)].
func TestLiveCountsBuckets(t *testing.T) {
	for _, c := range []struct {
		v float64
		k int
	}{{1, 0}, {1.5, 5}, {2, 8}, {0.5, -8}, {1e-3, -79}} {
		var lc liveCounts
		lc.observe(c.v)
		h := lc.hist()
		if h.native[c.k] != 1 {
			t.Errorf("%v s: buckets %v, want one in %d", c.v, h.native, c.k)
		}
		if lo, hi := math.Exp2(float64(c.k-1)/8), math.Exp2(float64(c.k)/8); c.v <= lo || c.v > hi {
			t.Errorf("%v s not in bucket %d's (%v, %v]", c.v, c.k, lo, hi)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
