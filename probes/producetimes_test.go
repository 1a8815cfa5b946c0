package probes

import (
	"testing"
	"time"
)

func TestProduceTimesInterpolation(t *testing.T) {
	pt := newProduceTimes()
	// Offsets 0, 10, 20 intended at 1000, 2000, 3000 ns.
	for i := int64(0); i <= 20; i += 10 {
		pt.add(0, i, 1000+100*i)
	}
	cases := []struct {
		name   string
		offset int64
		want   int64
		ok     bool
	}{
		{"exact sample", 10, 2000, true},
		{"between samples", 15, 2500, true},
		{"older than every sample: the oldest time", -5, 1000, true},
		{"newer than every sample: the newest time", 30, 3000, true},
	}
	for _, c := range cases {
		got, ok := pt.timeOf(0, c.offset)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: timeOf(%d) = %d, %v; want %d, %v", c.name, c.offset, got, ok, c.want, c.ok)
		}
	}
	if _, ok := pt.timeOf(1, 0); ok {
		t.Error("a partition without samples must report ok=false")
	}
}

// Memory stays bounded: a full partition drops every second sample and
// doubles the spacing, keeping the whole history at a coarser grain.
func TestProduceTimesBounded(t *testing.T) {
	pt := newProduceTimes()
	const n = 100_000
	for i := range int64(n) {
		pt.add(0, i, i*1000)
	}
	s := pt.parts[0]
	if len(s.offsets) > maxSamples {
		t.Fatalf("%d samples kept, limit %d", len(s.offsets), maxSamples)
	}
	if s.offsets[0] != 0 {
		t.Errorf("oldest sample %d: history must be kept whole", s.offsets[0])
	}
	// Linear data interpolates exactly whatever the spacing.
	if got, _ := pt.timeOf(0, 77_777); got != 77_777_000 {
		t.Errorf("timeOf(77777) = %d, want 77777000", got)
	}
	// Consumed past most of it: pruning keeps one sample before the
	// committed offset and restores a fine spacing.
	pt.prune(0, n-10)
	if s.offsets[0] >= n-10 || len(s.offsets) > 3 {
		t.Errorf("after prune: %d samples from offset %d", len(s.offsets), s.offsets[0])
	}
	if s.spacing != 1 {
		t.Errorf("spacing after prune = %d, want 1", s.spacing)
	}
}

func TestProduceTimesRestartOnRecreatedTopic(t *testing.T) {
	pt := newProduceTimes()
	pt.add(0, 500, 5)
	pt.add(0, 3, 9) // offsets went back: a new topic
	if got, _ := pt.timeOf(0, 3); got != 9 {
		t.Errorf("timeOf after offsets restarted = %d, want 9", got)
	}
	if n := len(pt.parts[0].offsets); n != 1 {
		t.Errorf("%d samples after restart, want 1", n)
	}
}

// A long backlog: two samples three days apart at 10,000 records/s, so the
// offsets differ by 2.592e9 and the times by 2.592e14 ns. Their product
// overflows int64; the interpolation is exact anyway, to the nanosecond,
// and so is the lag in seconds read from it.
func TestProduceTimesLongBacklog(t *testing.T) {
	const (
		rate  = 10_000
		span  = 3 * 24 * 3600 * 1_000_000_000 // 3 days in ns
		base  = int64(1_700_000_000_000_000_000)
		count = int64(3 * 24 * 3600 * rate)
	)
	pt := newProduceTimes()
	pt.add(0, 0, base)
	pt.add(0, count, base+span)
	for _, off := range []int64{1, count / 3, count / 2, count - 1} {
		want := base + off*(span/count) // 100 µs per record
		if got, ok := pt.timeOf(0, off); !ok || got != want {
			t.Errorf("timeOf(%d) = %d (%v), want %d: off by %v", off, got, ok, want, time.Duration(got-want))
		}
	}
	// The consumer is at the oldest third of the backlog: 2 days behind.
	var v lagView
	v.add(pt, 0, count, count/3)
	if s, ok := v.seconds(time.Unix(0, base+span)); !ok || s != 2*24*3600 {
		t.Errorf("lag = %v s (known %v), want %v", s, ok, 2*24*3600)
	}
	// Times running backwards between two samples interpolate as well.
	back := newProduceTimes()
	back.add(0, 0, base+span)
	back.add(0, count, base)
	if got, _ := back.timeOf(0, count/2); got != base+span/2 {
		t.Errorf("decreasing times: timeOf(%d) = %d, want %d", count/2, got, base+span/2)
	}
}
