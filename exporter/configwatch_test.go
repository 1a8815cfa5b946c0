package exporter

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
)

func TestWatchTarget(t *testing.T) {
	cfg, err := config.Parse([]byte("kafka: {brokers: [127.0.0.1:9092]}\nconfig_poll_interval: 15s\nprobes:\n  - name: a\n  - name: b\n    topic: other\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := watchTarget(cfg)
	want := []configwatch.ProbeTopic{{Probe: "a", Topic: "kafka-bench-a"}, {Probe: "b", Topic: "other"}}
	if got.Interval != 15*time.Second || !reflect.DeepEqual(got.Topics, want) || !reflect.DeepEqual(got.Kafka, cfg.Kafka) {
		t.Errorf("watchTarget = %+v, want interval 15s and topics %v", got, want)
	}
	// A host agent without brokers has no cluster to poll.
	agent, err := config.Parse([]byte("probes: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := watchTarget(agent); got.Interval != 0 {
		t.Errorf("watchTarget without brokers: interval %s, want 0 (off)", got.Interval)
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
	e := New(reg, slog.New(slog.DiscardHandler))
	if e.Ready() {
		t.Error("ready before any configuration was applied")
	}
	e.Apply(t.Context(), cfg)
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

// /changes is served (an empty JSON array before any change) and linked
// from the landing page.
func TestChangesEndpoint(t *testing.T) {
	e := New(prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(e.Handler(HandlerOpts{TelemetryPath: "/metrics"}))
	defer srv.Close()
	for path, want := range map[string]string{"/changes": "[]", "/": `href="/changes"`} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %s, body lacks %q:\n%s", path, resp.Status, want, body)
		}
	}
}
