package result

import (
	"encoding/base64"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry: microseconds from 1 µs to one hour with 5 significant
// digits, so every latency below 262 ms is kept to the microsecond and larger
// ones within 0.001 %. ProducerPerformance samples whole milliseconds.
const (
	HistMaxMicros = int64(time.Hour / time.Microsecond)
	histSigFigs   = 5
)

// encodeHistogram is h in HdrHistogram's compressed V2 encoding, base64: every
// bucket count survives, so histograms of several workers merge exactly.
func encodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	data, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(data), nil
}

// decodeHistogram reverses encodeHistogram and checks the geometry, which
// merging relies on.
func decodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	h, err := hdrhistogram.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	if h.SignificantFigures() != histSigFigs || h.HighestTrackableValue() < HistMaxMicros {
		return nil, fmt.Errorf("histogram: %d significant figures up to %d µs, want %d up to %d",
			h.SignificantFigures(), h.HighestTrackableValue(), histSigFigs, HistMaxMicros)
	}
	return h, nil
}

// LatenciesOf summarises a histogram of microseconds whose values add up to
// sum and reach peak (both exact, in nanoseconds). It keeps h, so the
// summary can be encoded and merged later.
func LatenciesOf(h *hdrhistogram.Histogram, sum, peak time.Duration) Latencies {
	n := h.TotalCount()
	if n == 0 {
		return Latencies{} // nothing measured: nothing to merge either
	}
	return Latencies{
		Avg:      sum / time.Duration(n),
		Max:      peak,
		P50:      micros(h.ValueAtQuantile(50)),
		P95:      micros(h.ValueAtQuantile(95)),
		P99:      micros(h.ValueAtQuantile(99)),
		P999:     micros(h.ValueAtQuantile(99.9)),
		Spectrum: Spectrum(h),
		hist:     h,
		sum:      sum,
	}
}

// MergeLatencies is the summary of all values of ls: their histograms
// added bucket by bucket, sums added, the largest maximum. A summary without
// a histogram (an old result file) cannot be merged.
func MergeLatencies(ls []Latencies) (Latencies, error) {
	all := NewHistogram()
	var sum, mx time.Duration
	for _, l := range ls {
		if l.isEmpty() {
			continue // a worker that measured nothing
		}
		if l.hist == nil {
			return Latencies{}, fmt.Errorf("a latency summary without its histogram cannot be merged")
		}
		if dropped := all.Merge(l.hist); dropped > 0 {
			return Latencies{}, fmt.Errorf("histogram merge dropped %d values", dropped)
		}
		sum += l.sum
		mx = max(mx, l.Max)
	}
	return LatenciesOf(all, sum, mx), nil
}

// Sum is the exact total of the values, which a merge adds up.
func (l Latencies) Sum() time.Duration { return l.sum }

// isEmpty reports whether l summarises no value.
func (l Latencies) isEmpty() bool { return l.hist == nil && l.Max == 0 && l.Avg == 0 && l.P999 == 0 }

// NewHistogram is an empty histogram of microseconds with the range and
// precision every result uses, so that any two can be merged.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, HistMaxMicros, histSigFigs)
}

func micros(v int64) time.Duration { return time.Duration(v) * time.Microsecond }

// Millis is d in (fractional) milliseconds, the unit of the text reports and
// progress lines.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
