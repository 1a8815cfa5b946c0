package bench

import "math"

// shareOf is worker i's share of n among workers: the first n % workers
// workers take one more, so the shares add up to n exactly.
func shareOf(n int64, workers, i int) int64 {
	w := int64(workers)
	s := n / w
	if int64(i) < n%w {
		s++
	}
	return s
}

// rateShareOf is worker i's share of a rate in records/s. A whole rate is
// split like a count; a fractional one gives every worker rate/workers and
// the last worker the rest, so the shares add up to rate. 0 (as fast as
// possible) stays 0 for every worker.
func rateShareOf(rate float64, workers, i int) float64 {
	if rate == math.Trunc(rate) && rate < 1<<53 {
		return float64(shareOf(int64(rate), workers, i))
	}
	each := rate / float64(workers)
	if i < workers-1 {
		return each
	}
	return rate - each*float64(workers-1)
}
