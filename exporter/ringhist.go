package exporter

import (
	"math"
	"sort"
	"sync/atomic"
)

// liveSchema is the resolution of the ring's latency histograms: the native
// histograms' exponential buckets at schema 3, each 2^(1/8) (about 9 %)
// wider than the one below, as the probes' own histograms (factor 1.1).
const liveSchema = 3

// liveBounds are the fractions of a power of two where the buckets of
// liveSchema end (as client_golang's nativeHistogramBounds[3]).
var liveBounds = func() []float64 {
	b := make([]float64, 1<<liveSchema)
	for i := range b {
		b[i] = math.Exp2(float64(i)/float64(len(b))) / 2
	}
	return b
}()

// Bucket k holds (2^((k-1)/8), 2^(k/8)] seconds; the counters hold k from
// -liveOffset, about 60 ns, to liveBuckets-liveOffset-1, about 17 hours,
// clamped to those.
const (
	liveOffset  = 192
	liveBuckets = 320
)

// liveCounts is a probe's latency histogram as its events fill it: a
// counter per bucket, no lock, no allocation per observation.
type liveCounts struct {
	zero    atomic.Uint64 // observations <= 0
	buckets [liveBuckets]atomic.Uint64
}

// observe counts v seconds.
func (c *liveCounts) observe(v float64) {
	if !(v > 0) {
		c.zero.Add(1)
		return
	}
	frac, exp := math.Frexp(v)
	k := sort.SearchFloat64s(liveBounds, frac) + (exp-1)*len(liveBounds)
	c.buckets[min(max(k+liveOffset, 0), liveBuckets-1)].Add(1)
}

// hist is a copy of the counts.
func (c *liveCounts) hist() *liveHist {
	h := &liveHist{native: map[int]float64{}, zero: float64(c.zero.Load())}
	for i := range c.buckets {
		if n := c.buckets[i].Load(); n > 0 {
			h.native[i-liveOffset] = float64(n)
		}
	}
	return h
}

// liveHist is one probe's latency histogram at a sample: counts by bucket
// index (liveSchema).
type liveHist struct {
	native map[int]float64 // bucket index → count
	zero   float64         // observations <= 0
}

// quantileSince is the q-quantile of the observations since prev, in
// seconds; NaN without observations or after a reset.
func (l *liveHist) quantileSince(q float64, prev *liveHist) float64 {
	return nativeQuantile(q, l, prev)
}

// nativeQuantile interpolates exponentially within the bucket, as
// Prometheus does for native histograms.
func nativeQuantile(q float64, cur, prev *liveHist) float64 {
	idxs := make([]int, 0, len(cur.native))
	total := cur.zero - prev.zero
	for i, c := range cur.native {
		d := c - prev.native[i]
		if d < 0 {
			return math.NaN()
		}
		idxs = append(idxs, i)
		total += d
	}
	for i := range prev.native {
		if _, ok := cur.native[i]; !ok {
			return math.NaN() // a bucket vanished: the histogram was reset
		}
	}
	if total <= 0 || cur.zero < prev.zero {
		return math.NaN()
	}
	sort.Ints(idxs)
	rank := q * total
	below := cur.zero - prev.zero
	if rank <= below {
		return 0
	}
	width := math.Exp2(-liveSchema)
	for _, i := range idxs {
		d := cur.native[i] - prev.native[i]
		if d > 0 && below+d >= rank {
			lower, upper := math.Exp2(float64(i-1)*width), math.Exp2(float64(i)*width)
			return lower * math.Pow(upper/lower, (rank-below)/d)
		}
		below += d
	}
	return math.NaN()
}
