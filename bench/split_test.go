package bench

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
				s := shareOf(n, workers, i)
				sum += s
				lo, hi = min(lo, s), max(hi, s)
				rateSum += rateShareOf(float64(n), workers, i)
			}
			if sum != n || hi-lo > 1 {
				t.Errorf("shareOf(%d, %d): sum %d (want %d), shares %d ... %d", n, workers, sum, n, lo, hi)
			}
			if rateSum != float64(n) {
				t.Errorf("rateShareOf(%d, %d): sum %v", n, workers, rateSum)
			}
		}
	}
	if s := rateShareOf(0, 3, 2); s != 0 {
		t.Errorf("rate 0 (as fast as possible) split to %v, want 0 on every worker", s)
	}
	// A fractional rate: every worker but the last gets rate/workers.
	const rate = 1000.5
	var sum float64
	for i := range 3 {
		sum += rateShareOf(rate, 3, i)
	}
	if math.Abs(sum-rate) > 1e-9 || rateShareOf(rate, 3, 0) != rate/3 {
		t.Errorf("rate %v over 3 workers: shares sum to %v, first %v", rate, sum, rateShareOf(rate, 3, 0))
	}
}
