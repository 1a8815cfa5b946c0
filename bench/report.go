package bench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/probes"
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
func ProducerLine(p *ProduceResult) string {
	l := p.Latency
	return fmt.Sprintf("%d records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.",
		p.Records, p.RecordsPerSec(), p.MBPerSec(), ms(l.Avg), ms(l.Max),
		l.P50.Milliseconds(), l.P95.Milliseconds(), l.P99.Milliseconds(), l.P999.Milliseconds())
}

// CapacityLine sums up a find_max_rate ramp that ran to a limit.
func CapacityLine(c *probes.CapacityResult) string {
	return fmt.Sprintf("max rate within the latency SLO: %.0f records/sec (%.2f MB/sec), %.3f ms p99 there, limited by %s after %d steps.",
		c.RecordsPerSecond, c.BytesPerSecond/mib, ms(c.P99), c.Limit, len(c.Steps))
}

// ConsumerLine is ConsumerPerformance's result line (see ConsumerHeader),
// times in the location of c.Start.
func ConsumerLine(c *ConsumeResult) string {
	elapsedMS := c.Elapsed().Milliseconds()
	fetchMS := elapsedMS - c.Rebalance.Milliseconds()
	mb := float64(c.Bytes) / mib
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
func hasCapacity(results []Result) bool {
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
func capacityCells(r Result) []string {
	c := r.Capacity
	if c == nil || c.Result != probes.CapacityOK {
		return make([]string, len(capacityColumns))
	}
	return []string{f0(c.RecordsPerSecond), f2(c.BytesPerSecond / mib), msf(c.P99), c.Limit}
}

// cells is one table row; "" where a side did not run.
func cells(r Result, capacity bool) []string {
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

// WriteMarkdown writes the results as a Markdown table, with the failures'
// reasons listed below it.
func WriteMarkdown(w io.Writer, paramKeys []string, results []Result) error {
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

// WriteCSV writes the table as CSV, with each machine's columns (hostreport.go)
// and an "error" column last.
func WriteCSV(w io.Writer, paramKeys []string, results []Result) error {
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

// JSON shapes: units in the names, milliseconds to the microsecond.
type (
	jsonResult struct {
		Scenario string            `json:"scenario"`
		Round    int               `json:"round,omitempty"` // with rounds > 1
		Params   map[string]string `json:"params"`
		Topic    string            `json:"topic"`
		Status   string            `json:"status"`
		Error    string            `json:"error,omitempty"`
		Produce  *jsonProduce      `json:"produce,omitempty"`
		Consume  *jsonConsume      `json:"consume,omitempty"`
		Capacity *jsonCapacity     `json:"capacity,omitempty"`
		Host     *jsonHost         `json:"host,omitempty"`
		Hosts    []jsonHostRow     `json:"hosts,omitempty"`
		Worker   *jsonWorker       `json:"worker,omitempty"` // one worker's result of a sweep
		// Accounting comes with a worker's result, for the merge.
		Accounting *jsonAccounting `json:"accounting,omitempty"`
	}
	jsonCapacity struct {
		Result        string             `json:"result"`
		Limit         string             `json:"limit,omitempty"`
		RecordsPerSec float64            `json:"records_per_sec"`
		MBPerSec      float64            `json:"mb_per_sec"`
		P99MS         float64            `json:"p99_ms"`
		Steps         []jsonCapacityStep `json:"steps"`
	}
	jsonCapacityStep struct {
		TargetRecordsPerSec   float64 `json:"target_records_per_sec"`
		AchievedRecordsPerSec float64 `json:"achieved_records_per_sec"`
		P99MS                 float64 `json:"p99_ms"`
		Errors                uint64  `json:"errors"`
		Limit                 string  `json:"limit,omitempty"`
		// Hold: the step held the best rate for the brokers' quota window;
		// Retry: it repeated a step that had errors.
		Seconds float64 `json:"seconds,omitempty"`
		Hold    bool    `json:"hold,omitempty"`
		Retry   bool    `json:"retry,omitempty"`
	}
	jsonProduce struct {
		Records       int64       `json:"records"`
		Bytes         int64       `json:"bytes"`
		Failed        int64       `json:"failed"`
		Start         time.Time   `json:"start,omitzero"` // first measured send
		End           time.Time   `json:"end,omitzero"`   // last acknowledgement
		Seconds       float64     `json:"seconds"`
		RecordsPerSec float64     `json:"records_per_sec"`
		MBPerSec      float64     `json:"mb_per_sec"`
		LatencyMS     jsonLatency `json:"latency_ms"`
	}
	jsonConsume struct {
		Start         time.Time    `json:"start"`
		End           time.Time    `json:"end"`
		Records       int64        `json:"records"`
		Bytes         int64        `json:"bytes"`
		Seconds       float64      `json:"seconds"`
		RecordsPerSec float64      `json:"records_per_sec"`
		MBPerSec      float64      `json:"mb_per_sec"`
		RebalanceMS   int64        `json:"rebalance_ms"`
		Lost          int64        `json:"lost"`
		Duplicates    int64        `json:"duplicates"`
		EndToEndMS    *jsonLatency `json:"end_to_end_ms,omitempty"`
	}
	jsonLatency struct {
		Avg  float64 `json:"avg"`
		Max  float64 `json:"max"`
		P50  float64 `json:"p50"`
		P95  float64 `json:"p95"`
		P99  float64 `json:"p99"`
		P999 float64 `json:"p99_9"`
		// Percentiles is the spectrum (HTML report), absent in old files.
		Percentiles []jsonPercentile `json:"percentiles,omitempty"`
		// Histogram (histcodec.go) and the exact sum let "bench merge"
		// add several workers' latencies up exactly.
		Histogram string `json:"histogram,omitempty"`
		SumNS     int64  `json:"sum_ns,omitempty"`
	}
	jsonHost struct {
		CPUPercent    float64 `json:"cpu_percent"`
		MemoryPercent float64 `json:"memory_percent"`
		NetInMBPerSec float64 `json:"net_in_mb_per_sec"`
		NetOutMBPer   float64 `json:"net_out_mb_per_sec"`
	}
)

// WriteJSON writes the results as a JSON array, one object per scenario.
func WriteJSON(w io.Writer, paramKeys []string, results []Result) error {
	return writeIndented(w, jsonResults(paramKeys, results))
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func jsonResults(paramKeys []string, results []Result) []jsonResult {
	out := make([]jsonResult, 0, len(results))
	for _, r := range results {
		jr := jsonResult{Scenario: r.Scenario, Params: map[string]string{}, Topic: r.Topic, Status: "ok", Error: r.Err}
		if r.Failed() {
			jr.Status = "failed"
		}
		for i, k := range paramKeys {
			if i < len(r.Params) {
				jr.Params[k] = r.Params[i]
			}
		}
		if p := r.Produce; p != nil {
			jr.Produce = &jsonProduce{Records: p.Records, Bytes: p.Bytes, Failed: p.Failed, Start: p.First, End: p.Last, Seconds: round(p.Elapsed.Seconds(), 6),
				RecordsPerSec: round(p.RecordsPerSec(), 3), MBPerSec: round(p.MBPerSec(), 3), LatencyMS: latencyJSON(p.Latency)}
		}
		if c := r.Consume; c != nil {
			jc := &jsonConsume{Start: c.Start, End: c.End, Records: c.Records, Bytes: c.Bytes, Seconds: round(c.Elapsed().Seconds(), 6),
				RecordsPerSec: round(c.RecordsPerSec(), 3), MBPerSec: round(c.MBPerSec(), 3), RebalanceMS: c.Rebalance.Milliseconds(),
				Lost: c.Lost, Duplicates: c.Duplicates}
			if c.EndToEnd != nil && c.Records > 0 {
				l := latencyJSON(*c.EndToEnd)
				jc.EndToEndMS = &l
			}
			jr.Consume = jc
		}
		if c := r.Capacity; c != nil {
			jr.Capacity = capacityJSON(c)
		}
		if h := r.Host; !h.Unavailable {
			jr.Host = &jsonHost{CPUPercent: round(h.CPUPercent, 2), MemoryPercent: round(h.MemPercent, 2),
				NetInMBPerSec: round(h.NetInMBps, 3), NetOutMBPer: round(h.NetOutMBps, 3)}
		}
		if len(r.Hosts) > 0 {
			jr.Hosts = hostsJSON(r.Hosts)
		}
		jr.Worker = workerJSON(r.Worker)
		if r.Worker != nil {
			jr.Accounting = accountingJSON(r.Accounting)
		}
		out = append(out, jr)
	}
	return out
}

// Write writes results in one of Formats.
func Write(w io.Writer, format string, paramKeys []string, results []Result) error {
	switch format {
	case FormatMarkdown:
		return WriteMarkdown(w, paramKeys, results)
	case FormatCSV:
		return WriteCSV(w, paramKeys, results)
	case FormatJSON:
		return WriteJSON(w, paramKeys, results)
	case FormatHTML:
		return WriteHTML(w, paramKeys, results, nil)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func capacityJSON(c *probes.CapacityResult) *jsonCapacity {
	j := &jsonCapacity{Result: c.Result, Limit: c.Limit, RecordsPerSec: round(c.RecordsPerSecond, 3),
		MBPerSec: round(c.BytesPerSecond/mib, 3), P99MS: round(ms(c.P99), 3), Steps: []jsonCapacityStep{}}
	for _, st := range c.Steps {
		j.Steps = append(j.Steps, jsonCapacityStep{TargetRecordsPerSec: round(st.Target, 3),
			AchievedRecordsPerSec: round(st.Achieved, 3), P99MS: round(ms(st.P99), 3), Errors: st.Errors, Limit: st.Limit,
			Seconds: st.Duration.Seconds(), Hold: st.Hold, Retry: st.Retry})
	}
	return j
}

func latencyJSON(l Latencies) jsonLatency {
	r := func(d time.Duration) float64 { return round(ms(d), 3) }
	j := jsonLatency{Avg: r(l.Avg), Max: r(l.Max), P50: r(l.P50), P95: r(l.P95), P99: r(l.P99), P999: r(l.P999),
		Percentiles: percentilesJSON(l.Spectrum), SumNS: int64(l.sum)}
	if l.hist != nil && l.hist.TotalCount() > 0 {
		j.Histogram, _ = encodeHistogram(l.hist) // cannot fail for a histogram of ours; merging says when it is absent
	}
	return j
}

func round(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}

func itoa(n int64) string        { return fmt.Sprint(n) }
func f0(x float64) string        { return fmt.Sprintf("%.0f", x) }
func f1(x float64) string        { return fmt.Sprintf("%.1f", x) }
func f2(x float64) string        { return fmt.Sprintf("%.2f", x) }
func msf(d time.Duration) string { return fmt.Sprintf("%.3f", ms(d)) }
