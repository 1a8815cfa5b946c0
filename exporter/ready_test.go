package exporter_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
)

// /-/ready and kafka_bench_probe_up agree: with a lag interval far longer
// than the test, the first records must raise probe_up by themselves, not
// at the next lag tick.
func TestReadyAgreesWithProbeUp(t *testing.T) {
	emb := exportertest.Embedded(t)
	x := exportertest.Start(t, `
host: {enabled: false}
config_poll_interval: 0s
probes:
  - name: slowtick
    rate: 50
    record_size: 100
    lag_interval: 10m
`, emb.Brokers())
	x.WaitReady(t, 30*time.Second)
	f := x.Scrape(t)
	v, ok := f.Value("kafka_bench_probe_up", "probe", "slowtick")
	if !ok || v != 1 {
		t.Errorf("/-/ready answers 200 but kafka_bench_probe_up = %v (present %v), want 1", v, ok)
	}
}

// TestHostAgentReady: with probes: [] the exporter runs no probe, serves the
// host metrics and is ready at once.
func TestHostAgentReady(t *testing.T) {
	cfg, err := config.Parse([]byte("probes: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	e := exporter.New(reg, slog.New(slog.DiscardHandler))
	if e.Ready() {
		t.Error("ready before any configuration was applied")
	}
	if err := e.Apply(t.Context(), mustResolve(t, cfg)); err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	if !e.Ready() || len(e.Probes()) != 0 {
		t.Errorf("host agent: ready %v, probes %v; want ready with none", e.Ready(), e.Probes())
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var host bool
	for _, mf := range mfs {
		host = host || mf.GetName() == "kafka_bench_host_cpu_seconds_total"
	}
	if !host {
		t.Error("no host metrics from the host agent")
	}
}
