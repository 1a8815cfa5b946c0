// Package verdict holds the statistics of a verdict: the ratio of a
// scenario's rounds to the baseline's with an exact rank-sum interval.
package verdict

import (
	"math"
	"slices"
	"sort"
)

// Verdicts of a scenario's metric against the baseline's.
const (
	Better       = "better"
	Worse        = "worse"
	NoDifference = "no difference"
)

// MinEffect is the smallest effect a verdict reports: a ratio within
// ±2 % reads "no difference" even when its interval excludes 1, as such a
// shift is within what the measuring window alone moves (a paced run's
// tail, a round's start and end).
const MinEffect = 0.02

// ConfidenceLevel is the interval's nominal level. The rank method's levels
// are discrete: the interval is the narrowest whose exact level is at least
// this, or, with too few rounds for that (3 and 3), the widest there is.
const ConfidenceLevel = 0.95

// Interval is the ratio of a scenario's values to the baseline's with a
// distribution-free confidence interval.
type Interval struct {
	// Ratio is the Hodges–Lehmann estimate: the median of all pairwise
	// ratios scenario round / baseline round.
	Ratio float64
	// Low and High bound the ratio; Level is their exact confidence level.
	Low, High, Level float64
}

// RatioInterval compares x (a scenario's per-round values) with y (the
// baseline's) by the Mann–Whitney (Wilcoxon rank-sum) confidence interval
// for a shift, on the logarithms of the values, so that the shift is a
// ratio (Bauer 1972; R's wilcox.test(log(x), log(y), conf.int = TRUE)).
// It assumes only that both samples come from distributions of the same
// shape, one scaled against the other; its level is exact, not asymptotic.
// Every value must be > 0; ok is false with fewer than two values a side.
func RatioInterval(x, y []float64) (Interval, bool) {
	n, m := len(x), len(y)
	if n < 2 || m < 2 {
		return Interval{}, false
	}
	d := make([]float64, 0, n*m)
	for _, a := range x {
		for _, b := range y {
			d = append(d, math.Log(a)-math.Log(b))
		}
	}
	sort.Float64s(d)
	k, level := rankBound(n, m, 1-ConfidenceLevel)
	return Interval{
		Ratio: math.Exp(median(d)),
		Low:   math.Exp(d[k-1]),
		High:  math.Exp(d[len(d)-k]),
		Level: level,
	}, true
}

// rankBound returns k, the rank (from 1) of the pairwise difference that is
// the interval's lower end (the upper end is the k-th from the top), and the
// interval's exact level: the largest k with P(U <= k-1) <= alpha/2 under
// the null distribution of the Mann–Whitney U for sizes n and m, at least 1.
func rankBound(n, m int, alpha float64) (int, float64) {
	counts := mannWhitneyCounts(n, m)
	var total float64
	for _, c := range counts {
		total += c
	}
	k, cum := 1, counts[0]
	for k < len(counts)/2 && cum+counts[k] <= alpha/2*total {
		cum += counts[k]
		k++
	}
	return k, 1 - 2*cum/total
}

// mannWhitneyCounts[u] is how many of the C(n+m, n) orderings of n and m
// values give U = u (the count of pairs in which the first sample's value is
// the larger): the coefficients of the Gaussian binomial [n+m choose n] in
// q, built in one array of n·m+1 counts (memory grows with rounds², not
// with a table of every smaller pair of sizes) by
// [m+k choose k] = [m+k-1 choose k-1] / (1 − q^k) · (1 − q^(m+k)).
// Only the lower half is computed (the counts are symmetric): there each
// step's series is positive and the subtraction cancels little, so counts
// below 2^53 are exact and larger ones within about 1e-14.
func mannWhitneyCounts(n, m int) []float64 {
	n, m = min(n, m), max(n, m) // the distribution is symmetric in n and m
	top := n * m
	half := top / 2
	c := make([]float64, top+1)
	c[0] = 1
	for k := 1; k <= n; k++ {
		// Divide by 1 − q^k: the quotient's coefficients are running sums.
		for u := k; u <= half; u++ {
			c[u] += c[u-k]
		}
		// Multiply by 1 − q^(m+k), from the top down.
		for u := half; u >= m+k; u-- {
			c[u] -= c[u-m-k]
		}
	}
	for u := half + 1; u <= top; u++ {
		c[u] = c[top-u]
	}
	return c
}

// Judge turns an interval into a verdict: a ratio above 1 is better when
// higher is better (throughput) and worse when lower is (latency). An
// interval that contains 1, or a ratio within ±MinEffect, is no difference.
func Judge(iv Interval, higherIsBetter bool) string {
	switch {
	case math.Abs(iv.Ratio-1) <= MinEffect:
		return NoDifference
	case iv.Low > 1 && higherIsBetter, iv.High < 1 && !higherIsBetter:
		return Better
	case iv.Low > 1, iv.High < 1:
		return Worse
	}
	return NoDifference
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// MedianOf is the median of unsorted values.
func MedianOf(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	return median(s)
}
