package main

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

// nativeScrape observes values into a histogram with the exporter's native
// bucket settings and returns it as one scrape would carry it.
func nativeScrape(t *testing.T, h prometheus.Histogram, values ...float64) scrape.Families {
	t.Helper()
	for _, v := range values {
		h.Observe(v)
	}
	m := &dto.Metric{}
	if err := h.Write(m); err != nil {
		t.Fatal(err)
	}
	name := "lat"
	return scrape.Families{name: &dto.MetricFamily{Name: &name, Type: dto.MetricType_HISTOGRAM.Enum(), Metric: []*dto.Metric{m}}}
}

func newNative() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: "lat", Buckets: []float64{.01, .1},
		NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 100, NativeHistogramMinResetDuration: time.Hour})
}

// The quantile of the observations between two scrapes is the bound of the
// bucket holding it: at or above the true value, by less than one bucket
// (factor 1.1); the observations before the first scrape do not count.
func TestNativeQuantileOfAWindow(t *testing.T) {
	h := newNative()
	before := nativeScrape(t, h, 5, 5, 5) // 5 s: far above the window's values
	var window []float64
	for i := 1; i <= 1000; i++ {
		window = append(window, float64(i)/1000) // 1 ms … 1 s
	}
	after := nativeScrape(t, h, window...)
	a, ok := nativeSum(before, "lat")
	if !ok {
		t.Fatal("no native buckets in the first scrape")
	}
	b, _ := nativeSum(after, "lat")
	d := b.add(a, -1)
	if n := d.count(); n != 1000 {
		t.Fatalf("window count %v, want 1000", n)
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 0.5}, {0.99, 0.99}, {0.999, 0.999}} {
		got := d.quantile(c.q)
		if got < c.want || got > c.want*1.1 {
			t.Errorf("quantile(%v) = %v, want in [%v, %v]", c.q, got, c.want, c.want*1.1)
		}
	}
	if got := b.quantile(1); got < 5 || got > 5.5 {
		t.Errorf("max of every observation = %v, want 5 within a bucket", got)
	}
}

// A coarser schema merges buckets, keeps the count and moves a quantile
// up by at most the coarser bucket's width.
func TestNativeDownscale(t *testing.T) {
	f := nativeScrape(t, newNative(), 0.003, 0.02, 0.02, 0.7)
	s, _ := nativeSum(f, "lat")
	c := s.at(s.schema - 2)
	if c.count() != 4 {
		t.Fatalf("count %v after downscaling, want 4", c.count())
	}
	fine, coarse := s.quantile(0.5), c.quantile(0.5)
	width := math.Exp2(math.Exp2(-float64(c.schema)))
	if coarse < fine || coarse > 0.02*width*1.0001 {
		t.Errorf("median %v at schema %d, %v at %d: want the coarse one in [%v, %v]", fine, s.schema, coarse, c.schema, fine, 0.02*width)
	}
}

// A scrape without native buckets (classic only) is not read as one.
func TestNativeSumNeedsNativeBuckets(t *testing.T) {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "lat", Buckets: []float64{.01, .1}})
	if _, ok := nativeSum(nativeScrape(t, h, 0.05), "lat"); ok {
		t.Error("a classic histogram read as a native one")
	}
}
