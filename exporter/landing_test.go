package exporter_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
)

// TestLandingLiveEndpoints: the landing page loads its scripts from the
// exporter (relative paths), which serves them, /live.json and an icon.
// The browser test (cmd) checks that they draw.
func TestLandingLiveEndpoints(t *testing.T) {
	e := exporter.New(prometheus.NewRegistry(), exportertest.Logger())
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
