package result

// This file is the schema of a bench result: every JSON shape a worker
// publishes on the results topic, "bench merge" reads back, --format json
// writes and the HTML report draws. Units are in the names, milliseconds
// to the microsecond.

import (
	"encoding/json"
	"time"
)

// FileText is the bench file a report shows next to its results.
type FileText struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// ReportData is the page's data section (<script id="report-data">): the
// JSON result as report.Write wrote it (with rounds, the runs of its object as the
// results and the rest as rounds), and what the page needs besides.
type ReportData struct {
	Title     string          `json:"title"`
	ParamKeys []string        `json:"param_keys"`
	BenchFile *FileText       `json:"bench_file,omitempty"`
	Rounds    *ReportRounds   `json:"rounds,omitempty"`
	Results   json.RawMessage `json:"results"`
}

// ReportRounds is a rounds result (JSONRounds) but its runs.
type ReportRounds struct {
	Rounds         int             `json:"rounds"`
	Seed           uint64          `json:"seed,string"` // a string: JavaScript's numbers hold 53 bits
	Baseline       string          `json:"baseline,omitempty"`
	IntervalMethod string          `json:"interval_method"`
	Summary        json.RawMessage `json:"summary"`
}

// The JSON form of one scenario's result.
type (
	// JSONResult is one scenario's result, and what it holds.
	JSONResult struct {
		Scenario string            `json:"scenario"`
		Round    int               `json:"round,omitempty"` // with rounds > 1
		Params   map[string]string `json:"params"`
		Topic    string            `json:"topic"`
		Status   string            `json:"status"`
		Error    string            `json:"error,omitempty"`
		Produce  *JSONProduce      `json:"produce,omitempty"`
		Consume  *JSONConsume      `json:"consume,omitempty"`
		Capacity *JSONCapacity     `json:"capacity,omitempty"`
		Host     *JSONHost         `json:"host,omitempty"`
		Hosts    []JSONHostRow     `json:"hosts,omitempty"`
		Worker   *JSONWorker       `json:"worker,omitempty"` // one worker's result of a sweep
		// Accounting comes with a worker's result, for the merge.
		Accounting *JSONAccounting `json:"accounting,omitempty"`
	}
	// JSONCapacity is a capacity search's outcome: the rate of the highest
	// step that passed, what limited it, and every step tried.
	JSONCapacity struct {
		Result        string             `json:"result"`
		Limit         string             `json:"limit,omitempty"`
		RecordsPerSec float64            `json:"records_per_sec"`
		MBPerSec      float64            `json:"mb_per_sec"`
		P99MS         float64            `json:"p99_ms"`
		Steps         []JSONCapacityStep `json:"steps"`
	}
	// JSONCapacityStep is one rate a capacity search tried and how it did.
	JSONCapacityStep struct {
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
	// JSONProduce is the producer's side, as ProducerPerformance reports it.
	JSONProduce struct {
		Records       int64       `json:"records"`
		Bytes         int64       `json:"bytes"`
		Failed        int64       `json:"failed"`
		NotCommitted  int64       `json:"not_committed,omitempty"` // of a transactional producer
		Start         time.Time   `json:"start,omitzero"`          // first measured send
		End           time.Time   `json:"end,omitzero"`            // last acknowledgement
		Seconds       float64     `json:"seconds"`
		RecordsPerSec float64     `json:"records_per_sec"`
		MBPerSec      float64     `json:"mb_per_sec"`
		LatencyMS     JSONLatency `json:"latency_ms"`
	}
	// JSONConsume is the consumer's side, with loss and duplicates.
	JSONConsume struct {
		Start         time.Time `json:"start"`
		End           time.Time `json:"end"`
		Records       int64     `json:"records"`
		Bytes         int64     `json:"bytes"`
		Seconds       float64   `json:"seconds"`
		RecordsPerSec float64   `json:"records_per_sec"`
		MBPerSec      float64   `json:"mb_per_sec"`
		RebalanceMS   int64     `json:"rebalance_ms"`
		// Rebalances and RebalanceP99MS are the group's rebalances during
		// the run (consumer.churn) and the p99 of their durations.
		Rebalances     int64        `json:"rebalances"`
		RebalanceP99MS float64      `json:"rebalance_p99_ms"`
		Lost           int64        `json:"lost"`
		Duplicates     int64        `json:"duplicates"`
		EndToEndMS     *JSONLatency `json:"end_to_end_ms,omitempty"`
		// PageCache is ConsumeResult.PageCache.
		PageCache string `json:"page_cache,omitempty"`
	}
	// JSONLatency is a latency summary in milliseconds.
	JSONLatency struct {
		Avg  float64 `json:"avg"`
		Max  float64 `json:"max"`
		P50  float64 `json:"p50"`
		P95  float64 `json:"p95"`
		P99  float64 `json:"p99"`
		P999 float64 `json:"p99_9"`
		// Percentiles is the spectrum (HTML report), absent in old files.
		Percentiles []JSONPercentile `json:"percentiles,omitempty"`
		// Histogram (HdrHistogram V2, base64) and the exact sum let "bench merge"
		// add several workers' latencies up exactly.
		Histogram string `json:"histogram,omitempty"`
		SumNS     int64  `json:"sum_ns,omitempty"`
	}
	// JSONHost is the bench's own machine during the scenario.
	JSONHost struct {
		CPUPercent    float64 `json:"cpu_percent"`
		MemoryPercent float64 `json:"memory_percent"`
		NetInMBPerSec float64 `json:"net_in_mb_per_sec"`
		NetOutMBPer   float64 `json:"net_out_mb_per_sec"`
	}
)

// UnreachableStatus marks a host that could not be measured.
const UnreachableStatus = "unreachable"

// JSONHostRow is one machine of a scenario; the measurements are left out
// when it was unreachable.
type JSONHostRow struct {
	Name   string `json:"name"`
	Role   string `json:"role"`
	URL    string `json:"url,omitempty"`
	Source string `json:"source,omitempty"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	*JSONHostMeasured
}

// JSONHostMeasured is a reachable machine's measurements.
type JSONHostMeasured struct {
	CPUPercent        float64 `json:"cpu_percent"`
	CPUPeakPercent    float64 `json:"cpu_peak_percent"`
	MemoryPercent     float64 `json:"memory_percent"`
	DiskBusyPercent   float64 `json:"disk_busy_percent"`
	DiskReadMBPerSec  float64 `json:"disk_read_mb_per_sec"`
	DiskWriteMBPerSec float64 `json:"disk_write_mb_per_sec"`
	NetInMBPerSec     float64 `json:"net_in_mb_per_sec"`
	NetOutMBPerSec    float64 `json:"net_out_mb_per_sec"`
}

// UnmarshalJSON reads a row back ("bench merge"); an unreachable host's
// row has no measurements.
func (h *JSONHostRow) UnmarshalJSON(data []byte) error {
	var names struct{ Name, Role, URL, Source, Status, Error string }
	if err := json.Unmarshal(data, &names); err != nil {
		return err
	}
	*h = JSONHostRow{Name: names.Name, Role: names.Role, URL: names.URL, Source: names.Source, Status: names.Status, Error: names.Error}
	if h.Status == UnreachableStatus {
		return nil
	}
	h.JSONHostMeasured = &JSONHostMeasured{}
	return json.Unmarshal(data, h.JSONHostMeasured)
}

// JSONWorker is a worker's result's origin (WorkerInfo); absent from a
// single-process or merged result.
type JSONWorker struct {
	SweepName   string    `json:"run"` // --run
	Index       int       `json:"index"`
	Workers     int       `json:"workers"`
	Seq         int       `json:"seq"`
	Runs        int       `json:"runs"`
	StartAt     time.Time `json:"start_at,omitzero"`
	SweepStart  time.Time `json:"sweep_start,omitzero"`
	Late        bool      `json:"late"`
	LateSeconds float64   `json:"late_seconds,omitempty"`
	ParamKeys   []string  `json:"param_keys"`
}

// JSONAccounting is Accounting in a worker's JSON result: run ids in hex,
// then partitions, then [lo, hi) ranges of sequence numbers.
type JSONAccounting struct {
	Acked      map[string]map[string][][2]uint64 `json:"acked"`
	Seen       map[string]map[string][][2]uint64 `json:"seen"`
	Duplicates int64                             `json:"duplicates"`
	Reads      int64                             `json:"reads"`
}

// JSONPercentile is one point of a latency spectrum.
type JSONPercentile struct {
	Percentile float64 `json:"percentile"`
	MS         float64 `json:"ms"`
}

// The JSON form of a bench of several rounds.
type (
	// JSONRounds is a result of several rounds: every run and the summary
	// of each scenario's metrics with its verdict.
	JSONRounds struct {
		Rounds         int           `json:"rounds"`
		Seed           uint64        `json:"seed"`
		Baseline       string        `json:"baseline,omitempty"`
		IntervalMethod string        `json:"interval_method"`
		MinEffect      float64       `json:"min_effect,omitempty"`
		Runs           []JSONResult  `json:"runs"`
		Summary        []JSONSummary `json:"summary"`
	}
	// JSONSummary is one metric of one scenario over the rounds: its
	// median and, against the baseline, the ratio, its confidence interval
	// and the verdict.
	JSONSummary struct {
		Scenario string     `json:"scenario"`
		Metric   string     `json:"metric"`
		Values   []*float64 `json:"values"` // per round; null where it failed
		Median   float64    `json:"median"`
		Baseline bool       `json:"baseline,omitempty"`
		Ratio    *float64   `json:"ratio,omitempty"`
		Low      *float64   `json:"ci_low,omitempty"`
		High     *float64   `json:"ci_high,omitempty"`
		Level    *float64   `json:"confidence,omitempty"`
		Verdict  string     `json:"verdict,omitempty"`
		// Target: the ratio is of achieved ÷ target (paced throughput).
		Target float64 `json:"target,omitempty"`
	}
)

// Marker is what a worker publishes when its producer is done.
type Marker struct {
	Worker int   `json:"worker"`
	Seq    int   `json:"seq"`
	Acked  int64 `json:"acked"`
	// SweepStart tells this sweep's markers from an earlier sweep's that
	// reused --run.
	SweepStart time.Time `json:"sweep_start,omitzero"`
}
