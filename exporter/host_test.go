package exporter_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// host.enabled: false (--no-collector.host) exports no host series and no
// collector health for it — not a success of 1 for a collector that did not
// run; turning it on again on reload brings both back.
func TestHostSwitch(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := exporter.New(reg, probetest.Logger())
	t.Cleanup(e.Stop)
	families := func() map[string]int {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, mf := range mfs {
			n[mf.GetName()] = len(mf.GetMetric())
		}
		return n
	}
	cfg, err := config.Parse([]byte("host: {enabled: false}\nconfig_poll_interval: 0s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(context.Background(), mustResolve(t, cfg)); err != nil {
		t.Fatal(err)
	}
	off := families()
	for _, name := range []string{"kafka_bench_scrape_collector_success", "kafka_bench_scrape_collector_duration_seconds", "kafka_bench_host_cpus"} {
		if off[name] != 0 {
			t.Errorf("host disabled: %s has %d series, want none", name, off[name])
		}
	}
	cfg.Host.Enabled = true
	if err := e.Apply(context.Background(), mustResolve(t, cfg)); err != nil {
		t.Fatal(err)
	}
	on := families()
	for _, name := range []string{"kafka_bench_scrape_collector_success", "kafka_bench_host_cpus"} {
		if on[name] != 1 {
			t.Errorf("host enabled: %s has %d series, want 1", name, on[name])
		}
	}
}
