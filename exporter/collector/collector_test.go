package collector

import (
	"bytes"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// exposition gathers g and renders the families named (all if none) in the
// text format. Gather sorts families and series, so the output is stable.
// testutil is avoided: its diff dependency is not in go.sum.
func exposition(t *testing.T, g prometheus.Gatherer, names ...string) string {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if len(names) > 0 && !slices.Contains(names, mf.GetName()) {
			continue
		}
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

type stubCollector struct {
	desc *prometheus.Desc
	err  error
}

func (s stubCollector) Update(ch chan<- prometheus.Metric) error {
	ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, 1)
	return s.err
}

// offCollector is switched off (host.enabled: false): no series at all.
type offCollector struct{}

func (offCollector) Update(chan<- prometheus.Metric) error { return ErrDisabled }

func TestSetReportsFailureAndKeepsOthers(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	good := prometheus.NewDesc("kafka_bench_test_good", "Emitted by the working collector.", nil, nil)
	partial := prometheus.NewDesc("kafka_bench_test_partial", "Emitted before the failing collector fails.", nil, nil)
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewSet(logger, map[string]Collector{
		"good": stubCollector{desc: good},
		"bad":  stubCollector{desc: partial, err: errors.New("boom")},
		"off":  offCollector{},
	}))

	want := `# HELP kafka_bench_scrape_collector_success Whether a host metrics collector succeeded during the last scrape (1) or failed (0).
# TYPE kafka_bench_scrape_collector_success gauge
kafka_bench_scrape_collector_success{collector="bad"} 0
kafka_bench_scrape_collector_success{collector="good"} 1
# HELP kafka_bench_test_good Emitted by the working collector.
# TYPE kafka_bench_test_good gauge
kafka_bench_test_good 1
# HELP kafka_bench_test_partial Emitted before the failing collector fails.
# TYPE kafka_bench_test_partial gauge
kafka_bench_test_partial 1
`
	if got := exposition(t, reg, "kafka_bench_scrape_collector_success", "kafka_bench_test_good", "kafka_bench_test_partial"); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := exposition(t, reg, "kafka_bench_scrape_collector_duration_seconds"); strings.Count(got, "{collector=") != 2 {
		t.Fatalf("want a duration series per collector, got:\n%s", got)
	}
	if s := logs.String(); !strings.Contains(s, "collector=bad") || !strings.Contains(s, "boom") || strings.Contains(s, "collector=good") || strings.Contains(s, "collector=off") {
		t.Fatalf("warn log should name only the failing collector and its error:\n%s", s)
	}
}
