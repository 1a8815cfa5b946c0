package exporter

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// ringMetrics are the series the ring reads, under their real names and
// buckets, for a registry the test controls.
type ringMetrics struct {
	produced    *prometheus.CounterVec
	produceLat  *prometheus.HistogramVec
	e2eLat      *prometheus.HistogramVec
	lag, lagSec *prometheus.GaugeVec
	up          *prometheus.GaugeVec
}

func newRingMetrics(reg *prometheus.Registry) ringMetrics {
	hist := func(name string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Buckets: family.LatencyBuckets}, []string{"probe", "broker"})
	}
	gauge := func(name string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name}, []string{"probe"})
	}
	m := ringMetrics{
		produced:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: liveProduced}, []string{"probe"}),
		produceLat: hist(liveProduceLat), e2eLat: hist(liveE2ELat),
		lag: gauge(liveLagRecords), lagSec: gauge(liveLagSeconds), up: gauge(liveUp),
	}
	reg.MustRegister(m.produced, m.produceLat, m.e2eLat, m.lag, m.lagSec, m.up)
	return m
}

// TestLiveRing: rates and p99s are per interval (PromQL's rate and
// histogram_quantile over the increase, summed over brokers); the first
// sample has none; a removed probe is dropped; the ring keeps 15 minutes.
func TestLiveRing(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newRingMetrics(reg)
	r := newLiveRing(reg)
	t0 := time.Unix(1_700_000_000, 0)

	m.produced.WithLabelValues("a").Add(1000)
	m.up.WithLabelValues("a").Set(1)
	m.lag.WithLabelValues("a").Set(7)
	for range 500 {
		m.produceLat.WithLabelValues("a", "1").Observe(0.2) // an old slow period
	}
	r.sample(t0)

	m.produced.WithLabelValues("a").Add(500) // 100 records/s over 5 s
	for i := range 100 {
		broker := []string{"1", "2"}[i%2]
		m.produceLat.WithLabelValues("a", broker).Observe(0.0015) // (1 ms, 2.5 ms]
		m.e2eLat.WithLabelValues("a", broker).Observe(0.004)      // (2.5 ms, 5 ms]
	}
	m.produced.WithLabelValues("b").Add(1)
	r.sample(t0.Add(liveInterval))

	d := r.snapshot()
	if len(d.Probes) != 2 || d.Probes[0].Name != "a" || d.Probes[1].Name != "b" {
		t.Fatalf("probes %+v, want a and b", d.Probes)
	}
	a := d.Probes[0]
	if len(a.Time) != 2 || a.Time[1]-a.Time[0] != 5 {
		t.Fatalf("times %v, want two 5 s apart", a.Time)
	}
	if a.RecordsPerSec[0] != nil || a.ProduceP99MS[0] != nil || a.E2EP99MS[0] != nil {
		t.Errorf("first sample has a rate or p99: %v %v %v", a.RecordsPerSec[0], a.ProduceP99MS[0], a.E2EP99MS[0])
	}
	for _, c := range []struct {
		name string
		got  *float64
		want float64
	}{
		{"records/s", a.RecordsPerSec[1], 100},
		{"produce p99 ms", a.ProduceP99MS[1], 1 + 1.5*0.99}, // linear within (1, 2.5] ms
		{"end-to-end p99 ms", a.E2EP99MS[1], 2.5 + 2.5*0.99},
		{"lag records", a.LagRecords[1], 7},
		{"up", a.Up[1], 1},
	} {
		if c.got == nil || math.Abs(*c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, deref(c.got), c.want)
		}
	}
	if b := d.Probes[1]; len(b.Time) != 1 || b.RecordsPerSec[0] != nil {
		t.Errorf("probe b: %+v, want one sample without a rate", b)
	}

	m.produced.DeleteLabelValues("b")
	for i := 2; i < 400; i++ {
		r.sample(t0.Add(time.Duration(i) * liveInterval))
	}
	d = r.snapshot()
	if len(d.Probes) != 1 {
		t.Fatalf("probes %+v, want b dropped", d.Probes)
	}
	if n := len(d.Probes[0].Time); n != int(liveWindow/liveInterval) {
		t.Errorf("%d points kept, want %d (15 minutes)", n, liveWindow/liveInterval)
	}
	if last := d.Probes[0].RecordsPerSec[len(d.Probes[0].Time)-1]; last == nil || *last != 0 {
		t.Errorf("idle probe: records/s %v, want 0", deref(last))
	}
	if p := d.Probes[0].ProduceP99MS[len(d.Probes[0].Time)-1]; p != nil {
		t.Errorf("no records in the interval: p99 %v, want null", *p)
	}
}

// TestLiveRingNative: with native buckets (the probes' factor 1.1) the p99
// lands within one bucket (about 9 %) of the true value, where the classic
// buckets could only say "between 1 and 2.5 ms"; a reset reads as unknown.
func TestLiveRingNative(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: liveProduceLat, Buckets: family.LatencyBuckets,
		NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 100}, []string{"probe", "broker"})
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: liveProduced}, []string{"probe"})
	reg.MustRegister(h, c)
	r := newLiveRing(reg)
	t0 := time.Unix(1_700_000_000, 0)
	c.WithLabelValues("a").Add(1)
	h.WithLabelValues("a", "1").Observe(0.2)
	r.sample(t0)
	for i := range 1000 {
		h.WithLabelValues("a", []string{"1", "2"}[i%2]).Observe(0.0015)
	}
	r.sample(t0.Add(liveInterval))
	got := r.snapshot().Probes[0].ProduceP99MS[1]
	if got == nil || *got < 1.5/1.1 || *got > 1.5*1.1 {
		t.Errorf("native p99 = %v ms, want 1.5 ms within one bucket", deref(got))
	}

	h.Reset() // the series are gone and come back empty
	h.WithLabelValues("a", "1").Observe(0.001)
	r.sample(t0.Add(2 * liveInterval))
	if got := r.snapshot().Probes[0].ProduceP99MS[2]; got != nil {
		t.Errorf("after a reset: p99 %v, want null", *got)
	}
}

// TestQuantileInf: a rank in the +Inf bucket reads as the highest finite
// bound, as histogram_quantile does.
func TestQuantileInf(t *testing.T) {
	cur := buckets{0.1: 0, 30: 10, math.Inf(1): 1000}
	if got := quantile(0.99, cur, buckets{}); got != 30 {
		t.Errorf("p99 = %v, want 30", got)
	}
	if got := quantile(0.99, cur, cur); !math.IsNaN(got) {
		t.Errorf("no increase: p99 = %v, want NaN", got)
	}
}

// TestLiveRingNames: the ring reads metrics of the exposition contract.
func TestLiveRingNames(t *testing.T) {
	contract, err := os.ReadFile("testdata/metric_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(contract))
	for _, n := range []string{liveProduced, liveProduceLat, liveE2ELat, liveLagRecords, liveLagSeconds, liveUp} {
		found := false
		for _, c := range names {
			found = found || c == n
		}
		if !found {
			t.Errorf("the ring reads %s, which testdata/metric_names.txt does not list", n)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
