package workers

import (
	"math"
	"testing"
)

// The workers' shares add up to the scenario's count and rate exactly, and
// differ by at most one record (or record/s).
func TestShareSplitsExactly(t *testing.T) {
	for _, n := range []int64{1, 2, 7, 10, 999, 1000000, 1000003} {
		for workers := 1; workers <= 7; workers++ {
			var sum, lo, hi int64 = 0, math.MaxInt64, 0
			var rateSum float64
			for i := range workers {
				s := partOf(n, workers, i)
				sum += s
				lo, hi = min(lo, s), max(hi, s)
				rateSum += ratePartOf(float64(n), workers, i)
			}
			if sum != n || hi-lo > 1 {
				t.Errorf("partOf(%d, %d): sum %d (want %d), shares %d ... %d", n, workers, sum, n, lo, hi)
			}
			if rateSum != float64(n) {
				t.Errorf("ratePartOf(%d, %d): sum %v", n, workers, rateSum)
			}
		}
	}
	if s := ratePartOf(0, 3, 2); s != 0 {
		t.Errorf("rate 0 (as fast as possible) split to %v, want 0 on every worker", s)
	}
	// A fractional rate: every worker but the last gets rate/workers.
	const rate = 1000.5
	var sum float64
	for i := range 3 {
		sum += ratePartOf(rate, 3, i)
	}
	if math.Abs(sum-rate) > 1e-9 || ratePartOf(rate, 3, 0) != rate/3 {
		t.Errorf("rate %v over 3 workers: shares sum to %v, first %v", rate, sum, ratePartOf(rate, 3, 0))
	}
}

// A paced rate below one record/s per worker is split into fractional
// parts, never into a 0 part (which would send as fast as possible).
func TestRateShareNeverUnlimited(t *testing.T) {
	for _, c := range []struct {
		rate    float64
		workers int
	}{{1, 2}, {2, 3}, {10, 16}, {0.5, 7}, {3, 3}} {
		var sum float64
		for i := range c.workers {
			s := ratePartOf(c.rate, c.workers, i)
			if s <= 0 {
				t.Errorf("rate %v over %d workers: worker %d gets %v (0 = unlimited)", c.rate, c.workers, i, s)
			}
			sum += s
		}
		if math.Abs(sum-c.rate) > 1e-12 {
			t.Errorf("rate %v over %d workers: shares sum to %v", c.rate, c.workers, sum)
		}
	}
	if got := ratePartOf(10, 16, 15); got != 10.0/16 {
		t.Errorf("rate 10 over 16 workers: worker 15 gets %v, want %v", got, 10.0/16)
	}
}
