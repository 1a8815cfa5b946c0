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
	cfg, err := config.Parse([]byte("config_poll_interval: 15s\nprobes:\n  - name: a\n  - name: b\n    topic: other\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := watchTarget(cfg)
	want := []configwatch.ProbeTopic{{Probe: "a", Topic: "kafka-bench-a"}, {Probe: "b", Topic: "other"}}
	if got.Interval != 15*time.Second || !reflect.DeepEqual(got.Topics, want) || !reflect.DeepEqual(got.Kafka, cfg.Kafka) {
		t.Errorf("watchTarget = %+v, want interval 15s and topics %v", got, want)
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
