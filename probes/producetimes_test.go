package probes

import (
	"fmt"
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

// The producer's sampleCache keeps exactly the samples produceTimes.add
// keeps, through compaction, pruning (which narrows the spacing), a reset,
// offsets that restart (a recreated topic) under another adder, and
// partitions outside its cache.
func TestSampleCacheKeepsWhatAddKeeps(t *testing.T) {
	plain, cached := newProduceTimes(), newProduceTimes()
	var c, other sampleCache
	offsets := map[int32]int64{}
	parts := []int32{0, 1, 2, -1, maxCachedPartitions + 1}
	both := func(a *sampleCache, part int32, off, at int64) {
		plain.add(part, off, at)
		a.add(cached, part, off, at)
	}
	for i := range 200_000 {
		part := parts[i%len(parts)]
		offsets[part] += 1 + int64(i%3)
		off, at := offsets[part], int64(i)*1000
		switch {
		case i%20_011 == 0 && i > 0: // the group caught up: few samples left, finer spacing
			plain.prune(part, off-3)
			cached.prune(part, off-3)
		case i == 150_000:
			plain.reset()
			cached.reset()
		case i == 120_000: // another producer, on a recreated topic
			both(&other, 1, 2, at)
		}
		both(&c, part, off, at)
		if i%250 == 0 || i > 199_000 { // a later prune would hide a difference
			same(t, i, plain, cached)
		}
	}
	for _, part := range parts {
		if p := plain.parts[part]; p.spacing < 4 {
			t.Errorf("partition %d: spacing %d at the end; the test means windows wider than one offset", part, p.spacing)
		}
	}
}

// same fails unless a and b hold the same samples.
func same(t *testing.T, i int, a, b *produceTimes) {
	t.Helper()
	if len(a.parts) != len(b.parts) {
		t.Fatalf("after add %d: samples of %d and %d partitions", i, len(a.parts), len(b.parts))
	}
	for part, p := range a.parts {
		q := b.parts[part]
		if q == nil || fmt.Sprint(p.offsets, p.times, p.spacing) != fmt.Sprint(q.offsets, q.times, q.spacing) {
			t.Fatalf("after add %d, partition %d: the cache kept %v, add alone %v (spacing %d)", i, part, q, p.offsets, p.spacing)
		}
	}
}
