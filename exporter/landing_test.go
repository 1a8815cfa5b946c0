package exporter_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// TestLandingLiveEndpoints: the landing page loads its scripts from the
// exporter (relative paths), which serves them, /live.json and an icon.
// The browser test (cmd) checks that they draw.
func TestLandingLiveEndpoints(t *testing.T) {
	e := exporter.New(prometheus.NewRegistry(), probetest.Logger())
	srv := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics"}))
	defer srv.Close()
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	_, page := get("/")
	for _, asset := range []string{"static/uplot.min.css", "static/uplot.min.js", "static/charts.js", "static/landing.js"} {
		if !strings.Contains(page, `"`+asset+`"`) {
			t.Errorf("landing page does not load %s", asset)
		}
		resp, body := get("/" + asset)
		if resp.StatusCode != http.StatusOK || len(body) < 100 || !strings.HasPrefix(resp.Header.Get("Content-Type"), map[bool]string{true: "text/css", false: "text/javascript"}[strings.HasSuffix(asset, ".css")]) {
			t.Errorf("/%s: %d, %s, %d bytes", asset, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
	resp, body := get("/live.json")
	var live struct {
		IntervalSeconds float64           `json:"interval_seconds"`
		WindowSeconds   float64           `json:"window_seconds"`
		Probes          []json.RawMessage `json:"probes"`
	}
	if err := json.Unmarshal([]byte(body), &live); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/live.json: %d %v: %s", resp.StatusCode, err, body)
	}
	if live.IntervalSeconds != 5 || live.WindowSeconds != 900 || live.Probes == nil {
		t.Errorf("/live.json = %s, want interval 5, window 900 and a (empty) probe list", body)
	}
	if resp, _ := get("/favicon.ico"); resp.StatusCode != http.StatusNoContent {
		t.Errorf("/favicon.ico: %d, want 204", resp.StatusCode)
	}
}

// TestLiveJSONOfRunningProbe: the ring reads a running probe's metrics (its
// own registry of them) while /metrics still serves them.
func TestLiveJSONOfRunningProbe(t *testing.T) {
	emb := exportertest.Embedded(t)
	x := exportertest.Start(t, "probes: [{name: p, rate: 200, lag_interval: 500ms}]\n", emb.Brokers())

	probetest.Eventually(t, 60*time.Second, "a sample of probe p with a rate, lag in seconds and probe_up", func() (bool, string) {
		resp, err := http.Get(x.URL + "/live.json")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var live struct {
			Probes []struct {
				Name          string     `json:"name"`
				RecordsPerSec []*float64 `json:"records_per_sec"`
				LagSeconds    []*float64 `json:"lag_seconds"`
				Up            []*float64 `json:"up"`
			} `json:"probes"`
		}
		if err := json.Unmarshal(body, &live); err != nil || len(live.Probes) != 1 || live.Probes[0].Name != "p" {
			return false, string(body)
		}
		last := func(vs []*float64) *float64 {
			if len(vs) == 0 {
				return nil
			}
			return vs[len(vs)-1]
		}
		p := live.Probes[0]
		if r := last(p.RecordsPerSec); r == nil || *r <= 0 || last(p.LagSeconds) == nil || last(p.Up) == nil {
			return false, string(body)
		}
		return true, ""
	})
	f, err := scrape.Get(x.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := f.Value("kafka_bench_produced_records_total", "probe", "p"); !ok || v <= 0 {
		t.Errorf("/metrics: kafka_bench_produced_records_total{probe=\"p\"} = %v (found %v), want > 0", v, ok)
	}
}
