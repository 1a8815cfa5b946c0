// Package exportertest runs the exporter in-process for tests: a registry,
// the probes of a config and an HTTP server on a loopback port, so a test
// (or a real Prometheus) can scrape it.
package exportertest

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/embedded"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// Exporter is a running in-process exporter.
type Exporter struct {
	*exporter.Exporter
	URL    string // base URL, e.g. http://127.0.0.1:41234
	cancel context.CancelFunc
	srv    *httptest.Server
}

// Embedded starts the in-process cluster; t.Cleanup closes it (Close may
// also be called earlier, to take the brokers away).
func Embedded(t testing.TB) *embedded.Cluster {
	t.Helper()
	emb, err := embedded.Start(probetest.Logger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	return emb
}

// Start parses yamlConfig, points it at brokers and starts every probe;
// t.Cleanup stops it.
func Start(t testing.TB, yamlConfig string, brokers []string) *Exporter {
	t.Helper()
	return StartLogged(t, yamlConfig, brokers, probetest.Logger())
}

// StartLogged is Start with the exporter's logger, for tests that assert on
// what is logged.
func StartLogged(t testing.TB, yamlConfig string, brokers []string, logger *slog.Logger) *Exporter {
	t.Helper()
	cfg := probetest.Resolved(t, yamlConfig, brokers)
	reg := prometheus.NewRegistry()
	e := exporter.New(reg, logger)
	ctx, cancel := context.WithCancel(context.Background())
	if err := e.Apply(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics"}))
	x := &Exporter{Exporter: e, URL: srv.URL, cancel: cancel, srv: srv}
	t.Cleanup(x.Close)
	return x
}

// Close stops the probes and the server; safe to call twice.
func (x *Exporter) Close() {
	x.Stop()
	x.cancel()
	x.srv.Close()
}

// Scrape reads /metrics.
func (x *Exporter) Scrape(t testing.TB) scrape.Families {
	t.Helper()
	f, err := scrape.Get(x.URL + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	return f
}

// WaitReady waits until /-/ready answers 200.
func (x *Exporter) WaitReady(t testing.TB, timeout time.Duration) {
	t.Helper()
	probetest.Eventually(t, timeout, "exporter ready", func() (bool, string) {
		resp, err := http.Get(x.URL + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
}
