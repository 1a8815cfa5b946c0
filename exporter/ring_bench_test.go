package exporter

import (
	"testing"
	"time"
)

// BenchmarkLiveSample: one sample of the landing page's ring with one probe
// that produced and consumed records over a spread of latencies.
func BenchmarkLiveSample(b *testing.B) {
	r := newLiveRing()
	hs := liveProbeOf(r, "p")
	for j := range 3000 {
		produce(hs, 1, time.Duration(j)*10*time.Microsecond, time.Duration(j)*10*time.Microsecond)
	}
	now := time.Now()
	for i := range b.N {
		r.sample(now.Add(time.Duration(i) * liveInterval))
	}
}

// BenchmarkLiveObserve: the ring's cost per acknowledged and consumed
// record.
func BenchmarkLiveObserve(b *testing.B) {
	hs := liveProbeOf(newLiveRing(), "p")
	for range b.N {
		produce(hs, 1, time.Millisecond, 2*time.Millisecond)
	}
}
