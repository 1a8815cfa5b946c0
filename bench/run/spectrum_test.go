package run

import (
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

// TestSpectrum: 1 … 100,000 µs once each; the percentile p of that set is
// p·1000 µs, so every point of the spectrum is known. The grid stops at
// 99.999 % (1/(1-p) = 100,000 records) and ends with the maximum.
func TestSpectrum(t *testing.T) {
	s := uniformRecorder(100000).ProduceSpan().Latency.Spectrum
	if len(s) != 52 { // 0, 0.1 … 5.0 nines, then 100 %
		t.Fatalf("%d points, want 52: %+v", len(s), s)
	}
	for _, c := range []struct {
		i       int
		percent float64
		value   time.Duration
	}{
		{0, 0, time.Microsecond},
		{10, 90, 90 * time.Millisecond},
		{20, 99, 99 * time.Millisecond},
		{30, 99.9, 99900 * time.Microsecond},
		{50, 99.999, 99999 * time.Microsecond},
		{51, 100, 100 * time.Millisecond},
	} {
		if got := s[c.i]; got.Percent != c.percent || got.Value != c.value {
			t.Errorf("point %d = %+v, want %v%% = %v", c.i, got, c.percent, c.value)
		}
	}
	for i := 1; i < len(s); i++ {
		if s[i].Percent <= s[i-1].Percent || s[i].Value < s[i-1].Value {
			t.Errorf("point %d (%+v) does not follow %+v", i, s[i], s[i-1])
		}
	}
	if got := result.Spectrum(result.NewHistogram()); got != nil {
		t.Errorf("empty histogram: %+v, want nil", got)
	}
}
