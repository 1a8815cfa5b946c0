package integration

// The Overview's Broker hosts row on node_exporter: a real Prometheus
// scraping the real node_exporter answers every query of the row with the
// host_metrics variable set to node. (With kafka_bench_host, the default,
// TestPrometheusEndToEnd/Monitoring runs the row against the exporter's own host
// metrics.)

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/dashboards"
	"github.com/kafka-bench/kafka_bench_exporter/internal/promtest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// brokerHostsPanels are the panels of the row, by title.
var brokerHostsPanels = []string{"Host CPU busy", "Host memory used", "Host disk busy (busiest disk)", "Host disk read / write", "Host network in / out"}

func TestBrokerHostsRowOnNodeExporter(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	promtest.Required(t)
	node := promtest.StartNodeExporter(t)
	prom := promtest.Start(t, promtest.Config{Target: node.Addr})
	prom.WaitTargetsUp(t, 30*time.Second)

	queries, err := dashboards.Queries(map[string]string{"host_metrics": "node", "host_job": promtest.JobName,
		"host_instance": node.Addr, "__rate_interval": "4s", "probe_a": "a", "probe_b": "b", "group": "g"})
	if err != nil {
		t.Fatal(err)
	}
	var row []dashboards.Query
	for _, q := range queries {
		for _, title := range brokerHostsPanels {
			if q.Dashboard == dashboards.OverviewUID && q.PanelTitle == title {
				row = append(row, q)
			}
		}
	}
	if len(row) != 7 {
		t.Fatalf("found %d queries of the Broker hosts row, want 7 (5 panels, 2 with two targets)", len(row))
	}
	for _, q := range row {
		if strings.Contains(q.Expr, "kafka_bench_") || !strings.Contains(q.Expr, "node_") {
			t.Fatalf("%s [%s] does not read node_exporter: %s", q.PanelTitle, q.RefID, q.Expr)
		}
		probetest.Eventually(t, 60*time.Second, q.PanelTitle+" ["+q.RefID+"] on node_exporter", func() (bool, string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, series, err := prom.Query(ctx, q.Expr)
			if err != nil {
				return false, err.Error()
			}
			if len(series) != 1 {
				return false, "no series yet: " + q.Expr
			}
			v := series[0].Value
			t.Logf("%s [%s] = %.4g", q.PanelTitle, q.RefID, v)
			// Ratios in [0, 1]; byte rates >= 0 (a disk may be idle).
			if v < 0 || (strings.Contains(q.PanelTitle, "busy") || strings.Contains(q.PanelTitle, "memory")) && v > 1 {
				t.Errorf("%s [%s] = %v, implausible", q.PanelTitle, q.RefID, v)
			}
			if strings.Contains(q.PanelTitle, "memory") && v <= 0 {
				t.Errorf("%s = %v, want memory in use", q.PanelTitle, v)
			}
			return true, ""
		})
	}
}
