// Package family declares the metric families of the probe engine in one
// style: every family is a vector with the probe label first, registered
// once, and a stopped probe's series are deleted from it. The probes and
// the capacity canary both declare theirs with it.
package family

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// LatencyBuckets are the classic buckets of every latency histogram: 0.5 ms
// to 30 s, so a Prometheus without native histograms still gets quantiles.
var LatencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Vec is a metric vector: registered once, a probe's series deleted.
type Vec interface {
	prometheus.Collector
	DeletePartialMatch(prometheus.Labels) int
}

// Histogram is a latency histogram with LatencyBuckets and native buckets,
// by probe, then labels.
func Histogram(name, help string, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:                            name,
		Help:                            help,
		Buckets:                         LatencyBuckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}, append([]string{"probe"}, labels...))
}

// Counter is a counter by probe, then labels.
func Counter(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, append([]string{"probe"}, labels...))
}

// Gauge is a gauge by probe, then labels.
func Gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, append([]string{"probe"}, labels...))
}

// Register registers every vector on reg.
func Register(reg prometheus.Registerer, vecs ...Vec) {
	for _, v := range vecs {
		reg.MustRegister(v)
	}
}

// DeleteProbe removes every series of the probe name from vecs.
func DeleteProbe(name string, vecs ...Vec) {
	l := prometheus.Labels{"probe": name}
	for _, v := range vecs {
		v.DeletePartialMatch(l)
	}
}
