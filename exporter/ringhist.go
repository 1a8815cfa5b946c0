package exporter

import (
	"math"
	"sort"

	dto "github.com/prometheus/client_model/go"
)

// liveHist is one probe's latency histogram at a sample, summed over the
// other labels (broker): the native buckets when every series has them at
// one schema (about 9 % wide at the probes' factor 1.1), else the classic
// buckets (0.5 ms … 30 s).
type liveHist struct {
	classic buckets
	native  map[int]float64 // bucket index → count
	zero    float64         // native zero bucket
	schema  int32
	// nativeOK: every series so far had native buckets at schema.
	nativeOK, any bool
}

// buckets are a classic histogram's cumulative counts by upper bound.
type buckets map[float64]float64

func newLiveHist() *liveHist {
	return &liveHist{classic: buckets{}, native: map[int]float64{}, nativeOK: true}
}

func (l *liveHist) add(h *dto.Histogram) {
	for _, b := range h.GetBucket() {
		l.classic[b.GetUpperBound()] += float64(b.GetCumulativeCount())
	}
	l.classic[math.Inf(1)] += float64(h.GetSampleCount())

	native := h.Schema != nil && len(h.GetNegativeSpan()) == 0
	if !native || (l.any && h.GetSchema() != l.schema) {
		l.nativeOK = false
	}
	l.schema, l.any = h.GetSchema(), true
	if !l.nativeOK {
		return
	}
	l.zero += float64(h.GetZeroCount())
	idx, di, count := 0, 0, int64(0)
	for i, span := range h.GetPositiveSpan() {
		if i == 0 {
			idx = int(span.GetOffset())
		} else {
			idx += int(span.GetOffset())
		}
		for range span.GetLength() {
			if di >= len(h.GetPositiveDelta()) {
				l.nativeOK = false
				return
			}
			count += h.GetPositiveDelta()[di]
			di++
			l.native[idx] += float64(count)
			idx++
		}
	}
}

// quantileSince is the q-quantile of the observations since prev, in
// seconds; NaN without observations or after a reset.
func (l *liveHist) quantileSince(q float64, prev *liveHist) float64 {
	if l.nativeOK && prev.nativeOK && l.any && l.schema == prev.schema {
		return nativeQuantile(q, l, prev)
	}
	return quantile(q, l.classic, prev.classic)
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
	width := math.Exp2(-float64(cur.schema))
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

// quantile is PromQL's histogram_quantile over the increase from prev to
// cur classic buckets: linear within the bucket, the highest finite bound
// when the rank falls in +Inf; NaN without observations (or after a reset).
func quantile(q float64, cur, prev buckets) float64 {
	bounds := make([]float64, 0, len(cur))
	for ub := range cur {
		bounds = append(bounds, ub)
	}
	sort.Float64s(bounds)
	inc := make([]float64, len(bounds))
	for i, ub := range bounds {
		inc[i] = cur[ub] - prev[ub]
		if inc[i] < 0 {
			return math.NaN()
		}
	}
	if len(bounds) < 2 || inc[len(inc)-1] <= 0 {
		return math.NaN()
	}
	rank := q * inc[len(inc)-1]
	lower, below := 0.0, 0.0
	for i, ub := range bounds {
		if inc[i] >= rank {
			if math.IsInf(ub, 1) {
				return bounds[len(bounds)-2]
			}
			if inc[i] == below {
				return ub
			}
			return lower + (ub-lower)*(rank-below)/(inc[i]-below)
		}
		lower, below = ub, inc[i]
	}
	return bounds[len(bounds)-2]
}
