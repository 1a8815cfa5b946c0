// Package result is a bench's result: its Go types and, in schema.go,
// every JSON shape of it.
package result

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
)

// Result is one scenario's outcome.
type Result struct {
	Scenario string
	Params   []string
	Topic    string
	// Round is the scenario's round, from 1.
	Round int
	// Err says why the scenario failed; empty when it passed.
	Err string
	// Produce is nil for a consume-only scenario.
	Produce *ProduceResult
	// Consume is nil when the scenario has no consumer.
	Consume *ConsumeResult
	// Capacity is the ramp's outcome with find_max_rate, else nil.
	Capacity *capacity.Result
	Host     HostStats
	// Hosts are the machines measured, the bench's own first.
	Hosts []HostRow
	// Worker is set on one worker's result of a sweep (--workers).
	Worker *WorkerInfo
	// Accounting is which records this process acknowledged and read
	// (published by a worker for the merge); nil when merged.
	Accounting *Accounting
}

// Name is the scenario's name as printed ("defaults" for the defaults alone).
func (r Result) Name() string { return spec.DisplayName(r.Scenario) }

// Failed reports whether the scenario failed.
func (r Result) Failed() bool { return r.Err != "" }

// ProduceResult is the measured (post warm-up) part of producing.
type ProduceResult struct {
	Records int64
	Bytes   int64
	// Failed counts records the client gave up on (warm-up included).
	Failed int64
	// NotCommitted counts acknowledged records of transactions that were
	// aborted or whose end failed (warm-up included): no read_committed
	// consumer is to read them. They are in Records.
	NotCommitted int64
	// Elapsed runs from the first measured send (First) to the last
	// acknowledgement (Last).
	Elapsed     time.Duration
	First, Last time.Time
	// Latency runs from each record's intended send time to its
	// acknowledgement.
	Latency Latencies
}

// RecordsPerSec is the producer's throughput.
func (p *ProduceResult) RecordsPerSec() float64 { return PerSec(float64(p.Records), p.Elapsed) }

// MBPerSec is the producer's throughput in MiB/s, as the perf tools count.
func (p *ProduceResult) MBPerSec() float64 { return PerSec(float64(p.Bytes)/MiB, p.Elapsed) }

// ConsumeResult is the measured part of consuming, in ConsumerPerformance's
// terms: Start is when the consumer started (or finished its warm-up), End
// when it read its last record.
type ConsumeResult struct {
	Start, End time.Time
	Records    int64
	Bytes      int64
	// Rebalance runs from Start to the first record read: the group join
	// and the first fetch (ConsumerPerformance's rebalance.time.ms counts
	// the join alone).
	Rebalance time.Duration
	// EndToEnd is nil when the records were produced by another run.
	EndToEnd *Latencies
	// Lost are acknowledged records no consumer read; Duplicates are
	// reads beyond the first of a record (accounting.go). Both are 0 when
	// the records were produced by another run.
	Lost, Duplicates int64
	// Rebalances are the rebalances the group's members went through while
	// the scenario ran (not their first join: consumer.churn makes them),
	// each from a member's first revoke or lost callback to its first
	// records after it; RebalanceP99 is the p99 of their durations.
	Rebalances   int64
	RebalanceP99 time.Duration
	// PageCache is, for a consume-only read with cold, "cold" (the topic's
	// segment files' page cache dropped before the read) or "warm only: "
	// and why it could not be; "" otherwise.
	PageCache string
}

// Elapsed is End - Start.
func (c *ConsumeResult) Elapsed() time.Duration { return c.End.Sub(c.Start) }

// RecordsPerSec is ConsumerPerformance's nMsg.sec (over the whole elapsed time).
func (c *ConsumeResult) RecordsPerSec() float64 { return PerSec(float64(c.Records), c.Elapsed()) }

// MBPerSec is ConsumerPerformance's MB.sec.
func (c *ConsumeResult) MBPerSec() float64 { return PerSec(float64(c.Bytes)/MiB, c.Elapsed()) }

// PerSec is the rate of n over d; 0 for nothing measured.
func PerSec(n float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}

// Latencies summarise a histogram: exact average and maximum, percentiles
// to the microsecond.
type Latencies struct {
	Avg, Max, P50, P95, P99, P999 time.Duration
	// Spectrum is the percentile distribution (HTML report's chart).
	Spectrum []Percentile
	// hist holds every value (µs) and sum their exact total: what a merge
	// of several workers' results needs (histcodec.go).
	hist *hdrhistogram.Histogram
	sum  time.Duration
}

// HostStats is the load generator during one scenario, the main table's host
// columns: CPU and memory in percent, network in MB/s (MiB).
type HostStats struct {
	CPUPercent float64
	MemPercent float64 // average of the samples
	NetInMBps  float64
	NetOutMBps float64
	// Unavailable: the counters could not be read; the columns are empty.
	Unavailable bool
}

// HostRow is one machine during one scenario, the seeds' per-machine
// columns: averages over the scenario's window, and the peak CPU of the
// intervals between samples.
type HostRow struct {
	Name, Role, URL string // URL is empty for the bench's own host
	// Source is node_exporter or kafka_bench_exporter, as detected.
	Source string
	// Err says why the host could not be measured; its row shows
	// "unreachable".
	Err                                          string
	CPUPercent, CPUPeakPercent, MemPercent       float64
	DiskBusyPercent, DiskReadMBps, DiskWriteMBps float64 // busy: the busiest selected device
	NetInMBps, NetOutMBps                        float64
}

// Unreachable reports whether the host could not be measured.
func (h HostRow) Unreachable() bool { return h.Err != "" }

// MiB is the perf tools' MB.
const MiB = 1024 * 1024

// WorkerInfo says which worker produced a result and whether it started
// the scenario late (after the sweep's common start).
type WorkerInfo struct {
	SweepName      string // --run
	Index, Workers int
	// Seq is the scenario's place in the worker's runs, Runs their number.
	Seq, Runs int
	StartAt   time.Time
	// SweepStart is the sweep's common start (--start-at): with SweepName, it
	// tells this sweep's results from those of an earlier one that reused
	// --run.
	SweepStart time.Time
	// LateBy is how long after the scenario's start the worker began; a
	// worker that missed the common start by more than LateTolerance is
	// late and its window is not the others'.
	LateBy    time.Duration
	ParamKeys []string
}

// LateTolerance is how far past its start a worker may begin a scenario
// and still count as on time.
const LateTolerance = time.Second

// Late reports whether the worker missed the scenario's common start.
func (w WorkerInfo) Late() bool { return w.LateBy > LateTolerance }
