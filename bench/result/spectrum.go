package result

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Percentile is one point of a latency percentile spectrum.
type Percentile struct {
	Percent float64
	Value   time.Duration
}

// spectrumStepNines is the spectrum's step on the "nines" scale
// (-log10(1 - p/100)): ten points per decade, so 90, 99, 99.9 … fall on it.
const spectrumStepNines = 0.1

// Spectrum is HdrHistogram's percentile distribution on a log "nines" grid:
// 0 %, then every tenth of a nine up to the last percentile the record count
// can resolve (1/(1-p) ≤ count), then 100 % (the maximum). Nil when empty.
func Spectrum(h *hdrhistogram.Histogram) []Percentile {
	n := h.TotalCount()
	if n == 0 {
		return nil
	}
	limit := math.Log10(float64(n))
	var out []Percentile
	for k := 0; float64(k)*spectrumStepNines <= limit+1e-9; k++ {
		p := 100 * (1 - math.Pow(10, -float64(k)*spectrumStepNines))
		p = Round(p, 6)
		out = append(out, Percentile{Percent: p, Value: micros(h.ValueAtQuantile(p))})
	}
	return append(out, Percentile{Percent: 100, Value: micros(h.Max())})
}

// PercentilesJSON is a spectrum in the JSON schema, in milliseconds.
func PercentilesJSON(s []Percentile) []JSONPercentile {
	var out []JSONPercentile
	for _, p := range s {
		out = append(out, JSONPercentile{Percentile: p.Percent, MS: Round(Millis(p.Value), 3)})
	}
	return out
}
