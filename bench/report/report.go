// Package report writes a bench's results: Markdown, CSV, JSON, the perf
// tools' lines, the HTML report and the rounds summary with its verdicts.
package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
)

// ConsumerHeader is ConsumerPerformance's header line.
const ConsumerHeader = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"

// consumerTime is ConsumerPerformance's default date format,
// "yyyy-MM-dd HH:mm:ss:SSS" (Go's layouts only put fractions after a dot).
func consumerTime(t time.Time) string {
	return fmt.Sprintf("%s:%03d", t.Format("2006-01-02 15:04:05"), t.Nanosecond()/int(time.Millisecond))
}

// Formats of --output.
const (
	FormatMarkdown = "markdown"
	FormatCSV      = "csv"
	FormatJSON     = "json"
)

// Formats lists the --format values.
var Formats = []string{FormatMarkdown, FormatCSV, FormatJSON, FormatHTML}

// ProducerLine is ProducerPerformance's final line. Percentiles are whole
// milliseconds (truncated, as Kafka's are) so parsers of its output keep
// working; the table keeps the microseconds.
func ProducerLine(p *result.ProduceResult) string {
	l := p.Latency
	return fmt.Sprintf("%d records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.",
		p.Records, p.RecordsPerSec(), p.MBPerSec(), result.Millis(l.Avg), result.Millis(l.Max),
		l.P50.Milliseconds(), l.P95.Milliseconds(), l.P99.Milliseconds(), l.P999.Milliseconds())
}

// CapacityLine sums up a find_max_rate ramp that ran to a limit.
func CapacityLine(c *capacity.Result) string {
	return fmt.Sprintf("max rate within the latency SLO: %.0f records/sec (%.2f MB/sec), %.3f ms p99 there, limited by %s after %d steps.",
		c.RecordsPerSecond, c.BytesPerSecond/result.MiB, result.Millis(c.P99), c.Limit, len(c.Steps))
}

// ConsumerLine is ConsumerPerformance's result line (see ConsumerHeader),
// times in the location of c.Start.
func ConsumerLine(c *result.ConsumeResult) string {
	elapsedMS := c.Elapsed().Milliseconds()
	fetchMS := elapsedMS - c.Rebalance.Milliseconds()
	mb := float64(c.Bytes) / result.MiB
	return fmt.Sprintf("%s, %s, %.4f, %.4f, %d, %.4f, %d, %d, %.4f, %.4f",
		consumerTime(c.Start), consumerTime(c.End),
		mb, perMS(mb, elapsedMS), c.Records, perMS(float64(c.Records), elapsedMS),
		c.Rebalance.Milliseconds(), fetchMS, perMS(mb, fetchMS), perMS(float64(c.Records), fetchMS))
}

func perMS(n float64, ms int64) float64 {
	if ms <= 0 {
		return 0
	}
	return n * 1000 / float64(ms)
}

// tableColumns follow the seeds' tables: the scenario's parameters, then
// producer throughput and latency, end-to-end latency, consumer throughput
// and the load generator's host.
var tableColumns = []string{"records", "consumed",
	"TPS (records/s)", "MB/s", "avg (ms)", "max (ms)", "p50 (ms)", "p95 (ms)", "p99 (ms)", "p99.9 (ms)",
	"e2e p50 (ms)", "e2e p99 (ms)", "e2e p99.9 (ms)",
	"consumer TPS (records/s)", "consumer MB/s",
	"CPU %", "mem %", "net in (MB/s)", "net out (MB/s)", "status"}

// capacityColumns come before status when a result has a capacity ramp
// (find_max_rate): the highest step rate within the latency SLO, its p99,
// and why the ramp stopped.
var capacityColumns = []string{"max rate at SLO (records/s)", "MB/s at max", "p99 at max (ms)", "limit"}

// hasCapacity reports whether the table needs capacityColumns.
func hasCapacity(results []result.Result) bool {
	for _, r := range results {
		if r.Capacity != nil {
			return true
		}
	}
	return false
}

// header is the table's header row for these parameter keys.
func header(paramKeys []string, capacity bool) []string {
	h := append(append([]string{}, paramKeys...), tableColumns[:len(tableColumns)-1]...)
	if capacity {
		h = append(h, capacityColumns...)
	}
	return append(h, tableColumns[len(tableColumns)-1])
}

// capacityCells are a result's capacityColumns.
func capacityCells(r result.Result) []string {
	c := r.Capacity
	if c == nil || c.Result != capacity.ResultOK {
		return make([]string, len(capacityColumns))
	}
	return []string{f0(c.RecordsPerSecond), f2(c.BytesPerSecond / result.MiB), msf(c.P99), c.Limit}
}

// cells is one table row; "" where a side did not run.
func cells(r result.Result, capacity bool) []string {
	var records, consumed string
	produce, e2e, consumer, host := make([]string, 8), make([]string, 3), make([]string, 2), make([]string, 4)
	if p := r.Produce; p != nil {
		l := p.Latency
		records = itoa(p.Records)
		produce = []string{f0(p.RecordsPerSec()), f2(p.MBPerSec()), msf(l.Avg), msf(l.Max), msf(l.P50), msf(l.P95), msf(l.P99), msf(l.P999)}
	}
	if c := r.Consume; c != nil {
		consumed = itoa(c.Records)
		consumer = []string{f0(c.RecordsPerSec()), f2(c.MBPerSec())}
		if l := c.EndToEnd; l != nil && c.Records > 0 {
			e2e = []string{msf(l.P50), msf(l.P99), msf(l.P999)}
		}
	}
	if h := r.Host; !h.Unavailable {
		host = []string{f1(h.CPUPercent), f1(h.MemPercent), f2(h.NetInMBps), f2(h.NetOutMBps)}
	}
	status := "ok"
	if r.Failed() {
		status = "FAILED"
	}
	row := append(append([]string{}, r.Params...), records, consumed)
	for _, part := range [][]string{produce, e2e, consumer, host} {
		row = append(row, part...)
	}
	if capacity {
		row = append(row, capacityCells(r)...)
	}
	return append(row, status)
}

// writeRunsMarkdown writes the results as a Markdown table, with the
// failures' reasons listed below it.
func writeRunsMarkdown(w io.Writer, paramKeys []string, results []result.Result) error {
	var b strings.Builder
	capacity := hasCapacity(results)
	h := header(paramKeys, capacity)
	writeMarkdownRow(&b, h)
	sep := make([]string, len(h))
	for i := range sep {
		sep[i] = "---"
		if i >= len(paramKeys) && i < len(h)-1 {
			sep[i] = "---:" // numbers right-aligned
		}
	}
	writeMarkdownRow(&b, sep)
	for _, r := range results {
		row := cells(r, capacity)
		for i, c := range row {
			if c == "" {
				row[i] = "-"
			}
		}
		writeMarkdownRow(&b, row)
	}
	writeHostsMarkdown(&b, paramKeys, results)
	for _, r := range results {
		if r.Failed() {
			fmt.Fprintf(&b, "\nFAILED %s: %s\n", r.Name(), r.Err)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdownRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
	}
	b.WriteString("\n")
}

// writeCSV writes the table as CSV, with each machine's columns (hostreport.go)
// and an "error" column last.
func writeCSV(w io.Writer, paramKeys []string, results []result.Result) error {
	hosts := hostNames(results)
	capacity := hasCapacity(results)
	rows := [][]string{append(append(header(paramKeys, capacity), csvHostHeader(hosts)...), "error")}
	for _, r := range results {
		rows = append(rows, append(append(cells(r, capacity), csvHostCells(hosts, r)...), r.Err))
	}
	return writeCSVRows(w, rows)
}

// writeCSVRows writes a header and its rows, flushed.
func writeCSVRows(w io.Writer, rows [][]string) error {
	return csv.NewWriter(w).WriteAll(rows) // WriteAll flushes and returns the writer's error
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Report is what a bench leaves to write: its results and, for a bench of
// several rounds, the bench and its seed, so that the runs come with the
// summary over the rounds (and the verdicts from spec.MinVerdictRounds on).
type Report struct {
	ParamKeys []string // the parameters that vary, the tables' first columns; nil: read from the results
	Results   []result.Result
	Bench     *spec.Bench      // nil, or Rounds 1: the runs alone
	Seed      uint64           // the seed of Bench's rounds
	File      *result.FileText // the bench file, which an HTML page shows; may be nil
}

// rounds is whether r has the rounds' summary.
func (r Report) rounds() bool { return r.Bench != nil && r.Bench.Rounds > 1 }

// Write writes r in one of Formats: Markdown, CSV, JSON or the HTML page
// (RenderHTML of the JSON).
func Write(w io.Writer, format string, r Report) error {
	switch format {
	case FormatMarkdown:
		return writeMarkdown(w, r)
	case FormatCSV:
		if r.rounds() {
			return writeSummaryCSV(w, r.Bench, Summarize(r.Bench, r.Results))
		}
		return writeCSV(w, r.ParamKeys, r.Results)
	case FormatJSON:
		if r.rounds() {
			return writeRoundsJSON(w, r)
		}
		return writeIndented(w, result.JSONResults(r.ParamKeys, r.Results))
	case FormatHTML:
		var js bytes.Buffer
		if err := Write(&js, FormatJSON, Report{ParamKeys: r.ParamKeys, Results: r.Results, Bench: r.Bench, Seed: r.Seed}); err != nil {
			return err
		}
		return RenderHTML(w, js.Bytes(), r.ParamKeys, r.File)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func itoa(n int64) string        { return fmt.Sprint(n) }
func f0(x float64) string        { return fmt.Sprintf("%.0f", x) }
func f1(x float64) string        { return fmt.Sprintf("%.1f", x) }
func f2(x float64) string        { return fmt.Sprintf("%.2f", x) }
func msf(d time.Duration) string { return fmt.Sprintf("%.3f", result.Millis(d)) }
