package result

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
	"github.com/kafka-bench/kafka_bench_exporter/redact"
)

// JSONResults is results in the JSON schema, each scenario's parameters
// named by paramKeys.
func JSONResults(paramKeys []string, results []Result) []JSONResult {
	out := make([]JSONResult, 0, len(results))
	for _, r := range results {
		jr := JSONResult{Scenario: r.Scenario, Params: map[string]string{}, Topic: r.Topic, Status: "ok", Error: r.Err}
		if r.Failed() {
			jr.Status = "failed"
		}
		for i, k := range paramKeys {
			if i < len(r.Params) {
				jr.Params[k] = r.Params[i]
			}
		}
		if p := r.Produce; p != nil {
			jr.Produce = &JSONProduce{Records: p.Records, Bytes: p.Bytes, Failed: p.Failed, NotCommitted: p.NotCommitted, Start: p.First, End: p.Last, Seconds: Round(p.Elapsed.Seconds(), 6),
				RecordsPerSec: Round(p.RecordsPerSec(), 3), MBPerSec: Round(p.MBPerSec(), 3), LatencyMS: LatencyJSON(p.Latency)}
		}
		if c := r.Consume; c != nil {
			jc := &JSONConsume{Start: c.Start, End: c.End, Records: c.Records, Bytes: c.Bytes, Seconds: Round(c.Elapsed().Seconds(), 6),
				RecordsPerSec: Round(c.RecordsPerSec(), 3), MBPerSec: Round(c.MBPerSec(), 3), RebalanceMS: c.Rebalance.Milliseconds(),
				Rebalances: c.Rebalances, RebalanceP99MS: Millis(c.RebalanceP99), Lost: c.Lost, Duplicates: c.Duplicates, PageCache: c.PageCache}
			if c.EndToEnd != nil && c.Records > 0 {
				l := LatencyJSON(*c.EndToEnd)
				jc.EndToEndMS = &l
			}
			jr.Consume = jc
		}
		if c := r.Capacity; c != nil {
			jr.Capacity = CapacityJSON(c)
		}
		if h := r.Host; !h.Unavailable {
			jr.Host = &JSONHost{CPUPercent: Round(h.CPUPercent, 2), MemoryPercent: Round(h.MemPercent, 2),
				NetInMBPerSec: Round(h.NetInMBps, 3), NetOutMBPer: Round(h.NetOutMBps, 3)}
		}
		if len(r.Hosts) > 0 {
			jr.Hosts = HostsJSON(r.Hosts)
		}
		jr.Worker = WorkerJSON(r.Worker)
		if r.Worker != nil {
			jr.Accounting = AccountingJSON(r.Accounting)
		}
		out = append(out, jr)
	}
	return out
}

// CapacityJSON is a capacity search's outcome in the JSON schema.
func CapacityJSON(c *capacity.Result) *JSONCapacity {
	j := &JSONCapacity{Result: c.Result, Limit: c.Limit, RecordsPerSec: Round(c.RecordsPerSecond, 3),
		MBPerSec: Round(c.BytesPerSecond/MiB, 3), P99MS: Round(Millis(c.P99), 3), Steps: []JSONCapacityStep{}}
	for _, st := range c.Steps {
		j.Steps = append(j.Steps, JSONCapacityStep{TargetRecordsPerSec: Round(st.Target, 3),
			AchievedRecordsPerSec: Round(st.Achieved, 3), P99MS: Round(Millis(st.P99), 3), Errors: st.Errors, Limit: st.Limit,
			Seconds: st.Duration.Seconds(), Hold: st.Hold, Retry: st.Retry})
	}
	return j
}

// LatencyJSON is l in milliseconds with its histogram, so that a merge of
// the file is exact.
func LatencyJSON(l Latencies) JSONLatency {
	r := func(d time.Duration) float64 { return Round(Millis(d), 3) }
	j := JSONLatency{Avg: r(l.Avg), Max: r(l.Max), P50: r(l.P50), P95: r(l.P95), P99: r(l.P99), P999: r(l.P999),
		Percentiles: PercentilesJSON(l.Spectrum), SumNS: int64(l.sum)}
	if l.hist != nil && l.hist.TotalCount() > 0 {
		j.Histogram, _ = encodeHistogram(l.hist) // cannot fail for a histogram of ours; merging says when it is absent
	}
	return j
}

// Round rounds x to digits decimals, so the JSON holds no false precision.
func Round(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}

// HostsJSON is the hosts' rows in the JSON schema, credentials redacted.
func HostsJSON(rows []HostRow) []JSONHostRow {
	out := make([]JSONHostRow, 0, len(rows))
	for _, h := range rows {
		// Redacted again: rows merged from other workers' results or read
		// from a file written by an older version may hold credentials.
		jr := JSONHostRow{Name: h.Name, Role: h.Role, URL: redact.URL(h.URL), Source: h.Source, Status: "ok", Error: redact.Text(h.Err)}
		if h.Unreachable() {
			jr.Status = UnreachableStatus
		} else {
			jr.JSONHostMeasured = &JSONHostMeasured{CPUPercent: Round(h.CPUPercent, 2), CPUPeakPercent: Round(h.CPUPeakPercent, 2),
				MemoryPercent: Round(h.MemPercent, 2), DiskBusyPercent: Round(h.DiskBusyPercent, 2),
				DiskReadMBPerSec: Round(h.DiskReadMBps, 3), DiskWriteMBPerSec: Round(h.DiskWriteMBps, 3),
				NetInMBPerSec: Round(h.NetInMBps, 3), NetOutMBPerSec: Round(h.NetOutMBps, 3)}
		}
		out = append(out, jr)
	}
	return out
}

// WorkerJSON is a worker's result's origin in the JSON schema; nil for a
// single-process or merged result.
func WorkerJSON(w *WorkerInfo) *JSONWorker {
	if w == nil {
		return nil
	}
	j := &JSONWorker{SweepName: w.SweepName, Index: w.Index, Workers: w.Workers, Seq: w.Seq, Runs: w.Runs,
		StartAt: w.StartAt, SweepStart: w.SweepStart, Late: w.Late(), ParamKeys: w.ParamKeys}
	if w.LateBy > 0 {
		j.LateSeconds = Round(w.LateBy.Seconds(), 3)
	}
	return j
}

// Info is the origin read back from a worker's JSON result, for the merge.
func (j *JSONWorker) Info() *WorkerInfo {
	return &WorkerInfo{SweepName: j.SweepName, Index: j.Index, Workers: j.Workers, Seq: j.Seq, Runs: j.Runs,
		StartAt: j.StartAt, SweepStart: j.SweepStart, LateBy: time.Duration(j.LateSeconds * float64(time.Second)), ParamKeys: j.ParamKeys}
}

// FromJSON turns a JSON result back into a Result; latencies come from
// their histograms, so they merge exactly.
func FromJSON(jr JSONResult, paramKeys []string) (Result, error) {
	r := Result{Scenario: jr.Scenario, Topic: jr.Topic, Round: jr.Round, Err: jr.Error}
	for _, k := range paramKeys {
		r.Params = append(r.Params, jr.Params[k])
	}
	if jr.Worker != nil {
		r.Worker = jr.Worker.Info()
	}
	if jr.Accounting != nil {
		a, err := jr.Accounting.accounting()
		if err != nil {
			return r, err
		}
		r.Accounting = a
	}
	if p := jr.Produce; p != nil {
		lat, err := LatenciesFromJSON(p.LatencyMS)
		if err != nil {
			return r, fmt.Errorf("produce latency: %w", err)
		}
		r.Produce = &ProduceResult{Records: p.Records, Bytes: p.Bytes, Failed: p.Failed, NotCommitted: p.NotCommitted,
			Elapsed: Seconds(p.Seconds), First: p.Start, Last: p.End, Latency: lat}
	}
	if c := jr.Consume; c != nil {
		r.Consume = &ConsumeResult{Start: c.Start, End: c.End, Records: c.Records, Bytes: c.Bytes,
			Rebalance: time.Duration(c.RebalanceMS) * time.Millisecond, Lost: c.Lost, Duplicates: c.Duplicates,
			Rebalances: c.Rebalances, RebalanceP99: time.Duration(c.RebalanceP99MS * float64(time.Millisecond)), PageCache: c.PageCache}
		if c.EndToEndMS != nil {
			lat, err := LatenciesFromJSON(*c.EndToEndMS)
			if err != nil {
				return r, fmt.Errorf("end-to-end latency: %w", err)
			}
			r.Consume.EndToEnd = &lat
		}
	}
	if h := jr.Host; h != nil {
		r.Host = HostStats{CPUPercent: h.CPUPercent, MemPercent: h.MemoryPercent, NetInMBps: h.NetInMBPerSec, NetOutMBps: h.NetOutMBPer}
	} else {
		r.Host.Unavailable = true
	}
	for _, h := range jr.Hosts {
		row := HostRow{Name: h.Name, Role: h.Role, URL: h.URL, Source: h.Source, Err: h.Error}
		if m := h.JSONHostMeasured; m != nil {
			row.CPUPercent, row.CPUPeakPercent, row.MemPercent = m.CPUPercent, m.CPUPeakPercent, m.MemoryPercent
			row.DiskBusyPercent, row.DiskReadMBps, row.DiskWriteMBps = m.DiskBusyPercent, m.DiskReadMBPerSec, m.DiskWriteMBPerSec
			row.NetInMBps, row.NetOutMBps = m.NetInMBPerSec, m.NetOutMBPerSec
		} else if row.Err == "" {
			row.Err = h.Status
		}
		r.Hosts = append(r.Hosts, row)
	}
	return r, nil
}

// LatenciesFromJSON reads a latency summary back from its histogram; one
// without (an older file) is an error, since it cannot be merged.
func LatenciesFromJSON(j JSONLatency) (Latencies, error) {
	if j.Histogram == "" && j.Max == 0 && j.Avg == 0 && j.P999 == 0 {
		return Latencies{}, nil // nothing measured
	}
	if j.Histogram == "" {
		return Latencies{}, errors.New("no histogram (written by an older version or not a bench result)")
	}
	h, err := decodeHistogram(j.Histogram)
	if err != nil {
		return Latencies{}, err
	}
	return LatenciesOf(h, time.Duration(j.SumNS), time.Duration(j.Max*float64(time.Millisecond))), nil
}

// Seconds is the duration of a JSON "seconds" field.
func Seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
