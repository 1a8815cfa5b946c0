package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/internal/browsertest"
)

// TestHTMLReportInBrowser opens the report of a saved sweep (record size ×
// acks on real Kafka) in headless Chromium: no console errors,
// and every chart — 4 per varying parameter, 2 spectra, 2 host charts — has
// drawn data.
func TestHTMLReportInBrowser(t *testing.T) {
	browser := browsertest.Start(t)
	path := savedReport(t, "report-matrix.json", "valid-report-matrix.yml")

	const charts = 4*2 + 2 + 2
	p := browser.Open(t, "file://"+path, 1280, 900, nil)
	p.WaitFor(t, 30*time.Second, "charts drawn", "window.KB && KB.charts.length >= 12")
	p.CheckCharts(t, charts, 200)
	p.SaveScreenshot(t, "report.png")
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	var rows int
	if err := p.Eval(`document.querySelectorAll("table.results tr").length`, &rows); err != nil {
		t.Fatal(err)
	}
	if rows != 7 {
		t.Errorf("results table has %d rows, want a header and 6 scenarios", rows)
	}

	// Shapes the page has to survive: a consume-only row, a failed row, no
	// host counters, no spectra (an older file), and fields it does not
	// know (per-machine rows, rounds, a nested object, a worker's origin and
	// encoded histogram).
	shapes, err := os.ReadFile(filepath.Join("testdata", "report-shapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := RenderHTML(&page, shapes, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p = browser.Open(t, "file://"+path, 1280, 900, nil)
	// Charts by record_size and by acks (4 + 4), load generator CPU/memory and
	// network, CPU per machine.
	p.WaitFor(t, 30*time.Second, "charts drawn", "window.KB && KB.charts.length >= 11")
	p.CheckCharts(t, 11, 20)
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	var headers []string
	if err := p.Eval(`Array.from(document.querySelectorAll("table.results th")).map(function (h) { return h.textContent; })`, &headers); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"find_max_rate.max_rate", "find_max_rate.limit", "role", "round", "worker.index", "worker.late"} {
		if !slices.Contains(headers, want) {
			t.Errorf("no column %q among %q", want, headers)
		}
	}
	// A worker's encoded histograms are for merging, not for reading.
	for _, h := range headers {
		if strings.Contains(h, "histogram") || strings.Contains(h, "sum_ns") || h == "produce.start" {
			t.Errorf("column %q shown", h)
		}
	}
}

// TestHTMLRoundsReportInBrowser opens the report of a saved rounds result
// (record size in 4 rounds on real Kafka) in headless Chromium: no console
// errors; the summary table; per metric, each round's values and the ratio
// to the baseline with its interval; and the usual charts from the runs.
func TestHTMLRoundsReportInBrowser(t *testing.T) {
	browser := browsertest.Start(t)
	path := savedReport(t, "report-rounds.json", "valid-report-rounds.yml")

	// 4 metrics × (per round + ratio); charts by record_size and by round
	// (4 + 4); 2 spectra; load generator CPU/memory and network, CPU per
	// machine.
	const charts = 4*2 + 4*2 + 2 + 3
	p := browser.Open(t, "file://"+path, 1280, 900, nil)
	p.WaitFor(t, 30*time.Second, "charts drawn", "window.KB && KB.charts.length >= 21")
	p.CheckCharts(t, charts, 20)
	p.SaveScreenshotOf(t, "report-rounds.png", "#rounds")
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	var titles []string
	if err := p.Eval(`KB.charts.map(function (u) { return u.root.querySelector(".u-title").textContent; })`, &titles); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"produce records/s per round", "e2e p99 (ms): ratio to the baseline"} {
		if !slices.Contains(titles, want) {
			t.Errorf("no chart %q among %q", want, titles)
		}
	}
	var verdicts []string
	if err := p.Eval(`Array.from(document.querySelectorAll("table.results tr")).map(function (r) { return r.lastChild.textContent; }).filter(function (v) { return v === "worse" || v === "baseline"; })`, &verdicts); err != nil {
		t.Fatal(err)
	}
	if len(verdicts) != 8 {
		t.Errorf("summary table shows %d baseline/worse verdicts %q, want the 4 metrics of each of record_size=100 and 10000", len(verdicts), verdicts)
	}

	// Two rounds, one of them failed: medians and no verdicts, so each
	// round's values but no ratio charts.
	b, results := roundsBench(t)
	b.Rounds, b.Baseline = 2, ""
	var page bytes.Buffer
	if err := Write(&page, FormatHTML, Report{ParamKeys: b.ParamKeys, Results: results[:4], Bench: b, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p = browser.Open(t, "file://"+path, 1280, 900, nil)
	p.WaitFor(t, 30*time.Second, "charts drawn", "window.KB && KB.charts.length >= 4")
	p.CheckCharts(t, 4, 20)
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
	var ratios int
	if err := p.Eval(`KB.charts.filter(function (u) { return /ratio to the baseline/.test(u.root.textContent); }).length`, &ratios); err != nil {
		t.Fatal(err)
	}
	if ratios != 0 {
		t.Errorf("%d ratio charts without a baseline", ratios)
	}
}

// savedReport writes the page of testdata's saved result with its bench
// file, as "bench report" makes it, and returns its path.
func savedReport(t *testing.T, resultFile, benchFile string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", resultFile))
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join("..", "spec", "testdata", benchFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := spec.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := RenderHTML(&page, data, b.ParamKeys, &result.FileText{Name: "bench/spec/testdata/" + benchFile, Text: string(text)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
