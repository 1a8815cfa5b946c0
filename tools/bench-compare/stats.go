package main

import (
	"math"
	"slices"
	"sort"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

// median is the middle value, or the mean of the two middle ones; NaN for
// no values. The input is not reordered.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ratio is a / b, NaN when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// bucket is one classic histogram bucket: its upper bound and the count of
// observations at or below it.
type bucket struct {
	le    float64
	count float64
}

// windowBuckets are the buckets of family between two scrapes: the cumulative
// counts of after minus before, summed over every series (one per partition
// leader, say), sorted by bound, the last one +Inf (the sample count).
func windowBuckets(before, after scrape.Families, family string) []bucket {
	sum := map[float64]float64{}
	add := func(f scrape.Families, sign float64) {
		for _, m := range f.Find(family) {
			h := m.GetHistogram()
			if h == nil {
				continue
			}
			for _, b := range h.GetBucket() {
				if !math.IsInf(b.GetUpperBound(), 1) {
					sum[b.GetUpperBound()] += sign * float64(b.GetCumulativeCount())
				}
			}
			sum[math.Inf(1)] += sign * float64(h.GetSampleCount())
		}
	}
	add(before, -1)
	add(after, 1)
	out := make([]bucket, 0, len(sum))
	for le, n := range sum {
		out = append(out, bucket{le, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].le < out[j].le })
	return out
}

// bucketBound is the upper bound of the first bucket holding the fraction q
// of the observations: an upper bound of the q-quantile, what classic buckets
// alone can tell. NaN for no observations.
func bucketBound(bs []bucket, q float64) float64 {
	if len(bs) == 0 || bs[len(bs)-1].count <= 0 {
		return math.NaN()
	}
	total := bs[len(bs)-1].count
	for _, b := range bs {
		if b.count >= q*total {
			return b.le
		}
	}
	return math.Inf(1)
}

// quantile is the q-quantile as Prometheus's histogram_quantile computes it
// from classic buckets: linear within the bucket holding the rank, the
// highest finite bound when that bucket is +Inf. NaN for no observations.
func quantile(bs []bucket, q float64) float64 {
	if len(bs) == 0 || bs[len(bs)-1].count <= 0 {
		return math.NaN()
	}
	rank := q * bs[len(bs)-1].count
	lo, below := 0.0, 0.0
	for _, b := range bs {
		if b.count >= rank {
			if math.IsInf(b.le, 1) {
				return lo
			}
			if b.count == below {
				return b.le
			}
			return lo + (b.le-lo)*(rank-below)/(b.count-below)
		}
		lo, below = b.le, b.count
	}
	return lo
}
