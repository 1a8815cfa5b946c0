package run

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// find_max_rate runs each scenario's capacity ramp once; the table gets the
// highest rate within the SLO, the p99 there and the limit, and the topics
// are deleted afterwards.
func TestFindMaxRateOnFakeCluster(t *testing.T) {
	brokers := probetest.Kfake(t, 3)
	b, results, _ := runBench(t, brokers, `
find_max_rate: true
defaults:
  record_size: 200
  capacity: {step_duration: 1s, start_rate: 100, growth: 2, max_rate: 400, latency_slo: 5s}
matrix:
  acks: ["1", "all"]
`)
	var table bytes.Buffer
	if err := report.Write(&table, report.FormatMarkdown, report.Report{ParamKeys: b.ParamKeys, Results: results}); err != nil {
		t.Fatal(err)
	}
	rows := tableRows(t, table.String())
	if len(rows) != 2 {
		t.Fatalf("table has %d rows, want 2:\n%s", len(rows), table.String())
	}
	limits := map[string]bool{capacity.LimitLatency: true, capacity.LimitRate: true, capacity.LimitErrors: true, capacity.LimitCeiling: true}
	for i, row := range rows {
		rate, err := strconv.ParseFloat(row["max rate at SLO (records/s)"], 64)
		if err != nil || rate < 100 || rate > 400 || row["status"] != "ok" || !limits[row["limit"]] || row["p99 at max (ms)"] == "-" {
			t.Errorf("row %d: want ok with a max rate in [100, 400], its p99 and a limit: %v\n%s", i, row, table.String())
		}
		if row["records"] != "-" {
			t.Errorf("row %d: a find_max_rate row shows a fixed-rate run: %v", i, row)
		}
	}
	var js bytes.Buffer
	if err := report.Write(&js, report.FormatJSON, report.Report{ParamKeys: b.ParamKeys, Results: results}); err != nil {
		t.Fatal(err)
	}
	var parsed []struct {
		Capacity struct {
			Result string            `json:"result"`
			Steps  []json.RawMessage `json:"steps"`
		} `json:"capacity"`
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	for i, p := range parsed {
		if p.Capacity.Result != capacity.ResultOK || len(p.Capacity.Steps) == 0 {
			t.Errorf("JSON result %d: capacity %+v, want ok with its steps", i, p.Capacity)
		}
	}
	if left := benchTopics(t, brokers); len(left) > 0 {
		t.Errorf("topics left behind with delete_topics: %v", left)
	}
}
