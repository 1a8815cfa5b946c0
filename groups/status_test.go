package groups

import (
	"testing"
	"time"
	"unsafe"
)

func TestStatusRules(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	window := time.Minute
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	pts := func(lags ...int64) []lagPoint {
		var out []lagPoint
		for i, l := range lags {
			out = append(out, lagPoint{at: at(30 * i), lag: l})
		}
		return out
	}
	for _, c := range []struct {
		name    string
		history []lagPoint
		moved   time.Time
		members int
		empty   bool
		want    string
	}{
		{"caught up", pts(5, 0), at(60), 2, false, StatusOK},
		{"no members", pts(5), at(0), 0, false, StatusStopped},
		{"not described, Empty", pts(5), at(0), -1, true, StatusStopped},
		{"offsets still for a window", pts(5, 5, 5), at(0), 2, false, StatusStalled},
		{"behind a whole window, growing", pts(5, 6, 7), at(60), 2, false, StatusLagging},
		{"behind a whole window, shrinking", pts(7, 6, 5), at(60), 2, false, StatusOK},
		{"caught up once in the window", pts(5, 0, 5), at(60), 2, false, StatusOK},
		{"behind for less than a window", pts(5, 6), at(30), 2, false, StatusOK},
	} {
		if got := status(c.history, c.moved, c.members, c.empty, window); got != c.want {
			t.Errorf("%s: status %s, want %s", c.name, got, c.want)
		}
	}
}

func TestTrimKeepsTheWindowStart(t *testing.T) {
	t0 := time.Unix(0, 0)
	var h []lagPoint
	for i := range 10 {
		h = append(h, lagPoint{at: t0.Add(time.Duration(i) * 10 * time.Second), lag: int64(i)})
	}
	got := trim(h, t0.Add(90*time.Second), 30*time.Second)
	if len(got) != 4 || got[0].lag != 6 {
		t.Errorf("trim kept %v, want the points from 60 s (the window's start) on", got)
	}
}

func TestTimelineInterpolates(t *testing.T) {
	t0 := time.Unix(0, 0)
	var tl timeline
	tl.observe(10, t0)
	tl.observe(10, t0.Add(10*time.Second)) // still 10: the last sight of it
	tl.observe(20, t0.Add(20*time.Second))
	if _, ok := tl.written(9); ok {
		t.Error("an offset below the first sample is older than the timeline")
	}
	// Offset 14 is the fifth of the ten records written between 10 s and 20 s.
	if got, ok := tl.written(14); !ok || !got.Equal(t0.Add(15*time.Second)) {
		t.Errorf("written(14) = %v, %v; want 15 s", got.Sub(t0), ok)
	}
	if _, ok := tl.written(20); ok {
		t.Error("offset 20 is not written yet")
	}
	tl.observe(5, t0.Add(30*time.Second)) // deleted and created again
	if _, ok := tl.written(14); ok {
		t.Error("an end offset going back starts the timeline anew")
	}
}

func TestTimelineStaysBounded(t *testing.T) {
	t0 := time.Unix(0, 0)
	var tl timeline
	for i := range 1000 {
		tl.observe(int64(i), t0.Add(time.Duration(i)*time.Second))
	}
	if len(tl.s) > maxSamples {
		t.Errorf("%d samples, want at most %d", len(tl.s), maxSamples)
	}
	// A timeline per partition of every group's topics: 64 samples of 24
	// bytes, 1.5 KiB a partition at most.
	if size := unsafe.Sizeof(sample{}); size > 24 {
		t.Errorf("a sample takes %d bytes, want at most 24", size)
	}
	if tl.s[0].end != 0 || tl.s[len(tl.s)-1].end != 999 {
		t.Errorf("thinning lost the ends: %d … %d", tl.s[0].end, tl.s[len(tl.s)-1].end)
	}
	if got, ok := tl.written(998); !ok || !got.Equal(t0.Add(999*time.Second)) {
		t.Errorf("written(998) = %v, %v; recent samples stay exact", got.Sub(t0), ok)
	}
}
