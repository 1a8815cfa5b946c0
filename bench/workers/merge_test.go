package workers

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// latenciesOfValues is the summary of values as a recorder keeps them.
func latenciesOfValues(values []time.Duration) result.Latencies {
	h := result.NewHistogram()
	var sum, mx time.Duration
	for _, v := range values {
		_ = h.RecordValue(v.Microseconds())
		sum += v
		mx = max(mx, v)
	}
	return result.LatenciesOf(h, sum, mx)
}

// workerResult is worker i's result of the one scenario, produced from
// first to last.
func workerResult(i, workers int, records int64, first, last time.Time, lat time.Duration) result.Result {
	l := latenciesOfValues([]time.Duration{lat})
	return result.Result{Scenario: "s", Params: []string{"100"}, Topic: "t",
		Produce: &result.ProduceResult{Records: records, Bytes: 100 * records, Elapsed: last.Sub(first), First: first, Last: last, Latency: l},
		Consume: &result.ConsumeResult{Start: first, End: last.Add(time.Second), Records: records, Bytes: 100 * records, EndToEnd: &l},
		Host:    result.HostStats{CPUPercent: float64(10 * (i + 1)), NetOutMBps: 1},
		Hosts:   []result.HostRow{{Name: spec.OwnHostName, Role: "bench"}},
		Worker:  &result.WorkerInfo{SweepName: "r", Index: i, Workers: workers, Runs: 1, ParamKeys: []string{"record_size"}},
	}
}

// sweepOf is the sweep the results make, through their JSON files.
func sweepOf(t *testing.T, results ...result.Result) *Sweep {
	t.Helper()
	var paths []string
	for i, r := range results {
		var buf bytes.Buffer
		if err := report.Write(&buf, report.FormatJSON, report.Report{ParamKeys: []string{"record_size"}, Results: []result.Result{r}}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, writeTemp(t, i, buf.Bytes()))
	}
	s, err := ReadSweepFiles(paths)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Throughput is the records of all workers over the common window: from
// the earliest first send to the latest acknowledgement.
func TestMergeThroughputOverCommonWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := sweepOf(t,
		workerResult(0, 2, 1000, t0, t0.Add(10*time.Second), time.Millisecond),
		workerResult(1, 2, 3000, t0.Add(2*time.Second), t0.Add(12*time.Second), 3*time.Millisecond))
	m, err := s.Merge(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Results) != 1 || len(m.Missing) != 0 {
		t.Fatalf("merged %d results, missing %q", len(m.Results), m.Missing)
	}
	r := m.Results[0]
	p, c := r.Produce, r.Consume
	if p.Records != 4000 || p.Elapsed != 12*time.Second || p.RecordsPerSec() != 4000.0/12 {
		t.Errorf("produce: %d records over %s (%v/s), want 4000 over 12s", p.Records, p.Elapsed, p.RecordsPerSec())
	}
	if c.Records != 4000 || c.Elapsed() != 13*time.Second {
		t.Errorf("consume: %d records over %s, want 4000 over 13s", c.Records, c.Elapsed())
	}
	if p.Latency.P50 != time.Millisecond || p.Latency.Max != 3*time.Millisecond || c.EndToEnd.P99 != 3*time.Millisecond {
		t.Errorf("latencies: produce %+v, end-to-end %+v", p.Latency, c.EndToEnd)
	}
	if r.Host.CPUPercent != 20 || r.Host.NetOutMBps != 2 || len(r.Hosts) != 2 || !strings.Contains(r.Hosts[1].Name, "worker 1") {
		t.Errorf("hosts: %+v %+v", r.Host, r.Hosts)
	}
	if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "began up to 2s apart") {
		t.Errorf("notes %q, want the windows' 2 s offset named", m.Notes)
	}
	if r.Failed() || !reflect.DeepEqual(r.Params, []string{"100"}) || m.ParamKeys[0] != "record_size" {
		t.Errorf("merged result %+v, param keys %q", r, m.ParamKeys)
	}
}

// A worker without a result is named, and fails the scenario.
func TestMergeNamesMissingWorker(t *testing.T) {
	t0 := time.Now()
	s := sweepOf(t, workerResult(0, 3, 10, t0, t0.Add(time.Second), time.Millisecond),
		workerResult(2, 3, 10, t0, t0.Add(time.Second), time.Millisecond))
	m, err := s.Merge(3)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Results[0]
	if !r.Failed() || !strings.Contains(r.Err, "worker 1 missing") || len(m.Missing) != 1 || !strings.Contains(m.Missing[0], "worker 1") {
		t.Errorf("missing worker 1 not named: err %q, missing %q", r.Err, m.Missing)
	}
	if r.Produce.Records != 20 {
		t.Errorf("the workers present give %d records, want 20", r.Produce.Records)
	}
}

func writeTemp(t *testing.T, i int, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("worker-%d.json", i))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// accountingOf builds an Accounting from [run, partition, lo, hi) rows.
func accountingOf(acked, seen [][4]uint64, duplicates int64) *result.Accounting {
	a := &result.Accounting{Acked: result.ByRun{}, Seen: result.ByRun{}, Duplicates: duplicates}
	for _, g := range acked {
		a.Acked.At(g[0], int32(g[1])).AddRange(g[2], g[3])
	}
	for _, g := range seen {
		a.Seen.At(g[0], int32(g[1])).AddRange(g[2], g[3])
	}
	return a
}

// The workers' consumers share one group: loss is what a producer had
// acknowledged that no consumer read, and duplicates count reads within
// one consumer and reads of one record by several.
func TestMergeAccountsAcrossConsumers(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const run0, run1 = 0xa0, 0xb1
	w0 := workerResult(0, 2, 200, t0, t0.Add(time.Second), time.Millisecond)
	w1 := workerResult(1, 2, 100, t0, t0.Add(time.Second), time.Millisecond)
	// Worker 0's consumer owns partition 0 and reads both workers'
	// records there, two of them twice.
	w0.Accounting = accountingOf([][4]uint64{{run0, 0, 0, 100}, {run0, 1, 0, 100}},
		[][4]uint64{{run0, 0, 0, 100}, {run1, 0, 0, 50}}, 2)
	// Worker 1's consumer owns partition 1, but misses worker 0's last 10
	// records there, and re-reads 5 of partition 0 after a rebalance.
	w1.Accounting = accountingOf([][4]uint64{{run1, 0, 0, 50}, {run1, 1, 0, 50}},
		[][4]uint64{{run0, 1, 0, 90}, {run1, 1, 0, 50}, {run0, 0, 95, 100}}, 0)
	m, err := sweepOf(t, w0, w1).Merge(2)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Results[0]
	if c := r.Consume; c.Lost != 10 || c.Duplicates != 2+5 {
		t.Errorf("lost %d, duplicates %d; want 10 (worker 0's, partition 1) and 7", c.Lost, c.Duplicates)
	}
	if !strings.Contains(r.Err, "10 acknowledged records read by no worker's consumer") {
		t.Errorf("error %q does not name the lost records", r.Err)
	}

	// Every acknowledged record read once: nothing lost, no duplicates,
	// though no worker read its own records.
	w0.Accounting = accountingOf([][4]uint64{{run0, 0, 0, 100}}, [][4]uint64{{run1, 0, 0, 100}}, 0)
	w1.Accounting = accountingOf([][4]uint64{{run1, 0, 0, 100}}, [][4]uint64{{run0, 0, 0, 100}}, 0)
	m, err = sweepOf(t, w0, w1).Merge(2)
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Results[0]; r.Failed() || r.Consume.Lost != 0 || r.Consume.Duplicates != 0 {
		t.Errorf("merged %q: lost %d, duplicates %d; want none", r.Err, r.Consume.Lost, r.Consume.Duplicates)
	}
}
