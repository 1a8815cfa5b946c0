package exporter

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// BenchmarkLiveSample: one sample of the landing page's ring on the
// exporter's registry as the daemon has it (host metrics on, Go and process
// collectors).
func BenchmarkLiveSample(b *testing.B) {
	reg := prometheus.NewRegistry()
	e := New(reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	e.applyHost(config.Host{Enabled: true, Disks: config.DefaultDisks, Interfaces: config.DefaultInterfaces})
	now := time.Now()
	b.ResetTimer()
	for i := range b.N {
		e.live.sample(now.Add(time.Duration(i) * liveInterval))
	}
}
