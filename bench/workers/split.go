package workers

import (
	"fmt"
	"math"
)

// partOf is worker i's part of n among workers: the first n % workers
// workers take one more, so the shares add up to n exactly.
func partOf(n int64, workers, i int) int64 {
	w := int64(workers)
	s := n / w
	if int64(i) < n%w {
		s++
	}
	return s
}

// ratePartOf is worker i's part of a rate in records/s. A whole rate of at
// least one record/s per worker is split like a count; any other rate gives
// every worker rate/workers and the last worker the rest, so the shares add
// up to rate and none is 0 (which would mean as fast as possible). 0 (as
// fast as possible) stays 0 for every worker.
func ratePartOf(rate float64, workers, i int) float64 {
	if rate == math.Trunc(rate) && rate >= float64(workers) && rate < 1<<53 {
		return float64(partOf(int64(rate), workers, i))
	}
	each := rate / float64(workers)
	if i < workers-1 {
		return each
	}
	// The others' shares added up in order; rate minus that is exact
	// (it is at least rate/2), so the shares add up to rate exactly.
	var others float64
	for range workers - 1 {
		others += each
	}
	return rate - others
}

// checkRateSplit refuses a paced rate that cannot be split into workers
// shares that are each paced (> 0) and finite.
func checkRateSplit(name string, rate float64, workers int) error {
	if rate <= 0 {
		return nil
	}
	for i := range workers {
		if s := ratePartOf(rate, workers, i); !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("--workers=%d: scenario %q rate = %g: cannot be split into %d paced shares (worker %d would get %g records/s)",
				workers, name, rate, workers, i, s)
		}
	}
	return nil
}
