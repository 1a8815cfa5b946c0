package exporter

import (
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// BenchmarkLiveSample: one sample of the landing page's ring. "exporter" is
// the ring as the daemon has it (host metrics on), reading the probe
// metrics' own registry; "whole registry" the same exporter's registry with
// the Go, process and host collectors, which the ring read before; "one
// probe" the series of one probe on three brokers.
func BenchmarkLiveSample(b *testing.B) {
	reg := prometheus.NewRegistry()
	e := New(reg, slog.New(slog.DiscardHandler))
	e.applyHost(config.Host{Enabled: true, Disks: config.DefaultDisks, Interfaces: config.DefaultInterfaces})

	probeReg := prometheus.NewRegistry()
	m := newRingMetrics(probeReg)
	for i, broker := range []string{"1", "2", "3"} {
		m.produced.WithLabelValues("p").Add(1000)
		for j := range 1000 {
			m.produceLat.WithLabelValues("p", broker).Observe(float64(i*1000+j) / 1e5)
			m.e2eLat.WithLabelValues("p", broker).Observe(float64(i*1000+j) / 1e5)
		}
	}
	m.lag.WithLabelValues("p").Set(0)
	m.lagSec.WithLabelValues("p").Set(0)
	m.up.WithLabelValues("p").Set(1)

	for _, c := range []struct {
		name string
		ring *liveRing
	}{
		{"exporter", e.live},
		{"whole registry", newLiveRing(reg)},
		{"one probe", newLiveRing(probeReg)},
	} {
		b.Run(c.name, func(b *testing.B) {
			now := time.Now()
			for i := range b.N {
				c.ring.sample(now.Add(time.Duration(i) * liveInterval))
			}
		})
	}
}
