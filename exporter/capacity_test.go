package exporter_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// Two probes with a capacity block on the embedded cluster: each reports a
// capacity on its schedule, their runs never overlap (one gate per
// exporter), the landing page shows the schedule, and a reload that drops
// the block removes the series.
func TestCapacityScheduleOnEmbeddedCluster(t *testing.T) {
	emb := exportertest.Embedded(t)
	logger, logs := probetest.CaptureLogger()
	const probesYAML = `
probes:
  - name: cap-a
    rate: 50
    record_size: 200
    capacity: {interval: 40s, step_duration: 1s, start_rate: 100, growth: 2, max_rate: 400, latency_slo: 5s}
  - name: cap-b
    rate: 50
    record_size: 200
    capacity: {interval: 40s, step_duration: 1s, start_rate: 100, growth: 2, max_bytes_per_second: 40000, latency_slo: 5s}
`
	x := exportertest.StartLogged(t, probesYAML, emb.Brokers(), logger)
	probetest.Eventually(t, 60*time.Second, "a capacity run of each probe", func() (bool, string) {
		f := x.Scrape(t)
		a, _ := f.Value("kafka_bench_capacity_runs_total", "probe", "cap-a", "result", "ok")
		b, _ := f.Value("kafka_bench_capacity_runs_total", "probe", "cap-b", "result", "ok")
		return a >= 1 && b >= 1, fmt.Sprintf("ok runs: cap-a=%v cap-b=%v", a, b)
	})
	f := x.Scrape(t)
	// On a loaded machine a step may fail before the ceiling: any capacity
	// up to it is right, with exactly one limit set (ceiling: at the ceiling).
	for probe, ceiling := range map[string]float64{"cap-a": 400, "cap-b": 200} {
		got, ok := f.Value("kafka_bench_capacity_records_per_second", "probe", probe)
		if !ok || got < 0 || got > ceiling {
			t.Errorf("%s: capacity = %v (present %v), want one in [0, %v]", probe, got, ok, ceiling)
		}
		var set []string
		for _, reason := range []string{"latency", "rate", "errors", "ceiling"} {
			if v, _ := f.Value("kafka_bench_capacity_limit", "probe", probe, "reason", reason); v == 1 {
				set = append(set, reason)
			}
		}
		if len(set) != 1 || (set[0] == "ceiling" && got != ceiling) {
			t.Errorf("%s: limits set %v with capacity %v, want one (ceiling only at %v)", probe, set, got, ceiling)
		}
	}
	// The gate: every run's start follows the end of the run before.
	running := ""
	for line := range strings.SplitSeq(logs.String(), "\n") {
		probe := ""
		if _, after, ok := strings.Cut(line, "probe="); ok {
			probe, _, _ = strings.Cut(after, " ")
		}
		switch {
		case strings.Contains(line, "capacity run starting"):
			if running != "" {
				t.Errorf("capacity run of %s started while %s's was running", probe, running)
			}
			running = probe
		case strings.Contains(line, "capacity run finished"), strings.Contains(line, "capacity run failed"):
			running = ""
		}
	}
	resp, err := http.Get(x.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "every 40s ±10 %") || !strings.Contains(string(page), "kafka-bench-cap-a-capacity") {
		t.Errorf("landing page does not show the capacity schedule:\n%s", page)
	}

	cfg, err := config.Parse([]byte(strings.ReplaceAll(probesYAML, "capacity:", "#")))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kafka.Brokers = emb.Brokers()
	if err := x.Apply(context.Background(), mustResolve(t, cfg)); err != nil {
		t.Fatal(err)
	}
	f = x.Scrape(t)
	if n := len(f.Find("kafka_bench_capacity_runs_total")) + len(f.Find("kafka_bench_capacity_records_per_second")); n != 0 {
		t.Errorf("%d capacity series remain after the capacity blocks were removed", n)
	}
}
