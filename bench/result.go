package bench

import (
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
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
	Capacity *probes.CapacityResult
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
	// Elapsed runs from the first measured send (First) to the last
	// acknowledgement (Last).
	Elapsed     time.Duration
	First, Last time.Time
	// Latency runs from each record's intended send time to its
	// acknowledgement.
	Latency Latencies
}

// RecordsPerSec is the producer's throughput.
func (p *ProduceResult) RecordsPerSec() float64 { return perSec(float64(p.Records), p.Elapsed) }

// MBPerSec is the producer's throughput in MiB/s, as the perf tools count.
func (p *ProduceResult) MBPerSec() float64 { return perSec(float64(p.Bytes)/mib, p.Elapsed) }

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
}

// Elapsed is End - Start.
func (c *ConsumeResult) Elapsed() time.Duration { return c.End.Sub(c.Start) }

// RecordsPerSec is ConsumerPerformance's nMsg.sec (over the whole elapsed time).
func (c *ConsumeResult) RecordsPerSec() float64 { return perSec(float64(c.Records), c.Elapsed()) }

// MBPerSec is ConsumerPerformance's MB.sec.
func (c *ConsumeResult) MBPerSec() float64 { return perSec(float64(c.Bytes)/mib, c.Elapsed()) }

func perSec(n float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return n / d.Seconds()
}
