package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

func hostResults() []result.Result {
	return []result.Result{{
		Scenario: "record_size=1024", Params: []string{"1024"},
		Produce: &result.ProduceResult{Records: 1000, Bytes: 1024 * 1000, Elapsed: time.Second},
		Consume: &result.ConsumeResult{Start: time.Unix(0, 0), End: time.Unix(2, 0), Records: 1000, Bytes: 1024 * 1000},
		Hosts: []result.HostRow{
			{Name: "bench", Role: "bench", Source: "kafka_bench_exporter", CPUPercent: 5.87, CPUPeakPercent: 9.5, MemPercent: 8.73, NetInMBps: 0.56, NetOutMBps: 13.9},
			{Name: "kafka1", Role: "broker", URL: "http://10.241.90.2:9100/metrics", Source: "node_exporter", CPUPercent: 51.81, CPUPeakPercent: 80,
				MemPercent: 24.59, DiskBusyPercent: 7.7, DiskReadMBps: 0.5, DiskWriteMBps: 410.44, NetInMBps: 15.9, NetOutMBps: 4.8},
			{Name: "kafka3", Role: "broker", URL: "http://10.241.40.2:9100/metrics", Err: "connection refused"},
		},
	}}
}

// TestHostsReport: per scenario one row per machine in seed 004's layout,
// unreachable hosts marked, and the same numbers in CSV and JSON.
func TestHostsReport(t *testing.T) {
	keys, results := []string{"record_size"}, hostResults()
	var md bytes.Buffer
	if err := Write(&md, FormatMarkdown, Report{ParamKeys: keys, Results: results}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| record_size | host | role | address | TPS (records/s) | consumer TPS (records/s) | CPU % | peak CPU % | mem % | disk busy % | disk read (MB/s) | disk write (MB/s) | net in (MB/s) | net out (MB/s) |",
		"| 1024 | bench | bench | local | 1000 | 500 | 5.9 | 9.5 | 8.7 | 0.0 | 0.00 | 0.00 | 0.56 | 13.90 |",
		"| 1024 | kafka1 | broker | 10.241.90.2:9100 | 1000 | 500 | 51.8 | 80.0 | 24.6 | 7.7 | 0.50 | 410.44 | 15.90 | 4.80 |",
		"| 1024 | kafka3 | broker | 10.241.40.2:9100 | 1000 | 500 | unreachable | - | - | - | - | - | - | - |",
		"unreachable kafka3 (http://10.241.40.2:9100/metrics, scenario record_size=1024): connection refused",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks\n%s\ngot:\n%s", want, md.String())
		}
	}

	var cb bytes.Buffer
	if err := Write(&cb, FormatCSV, Report{ParamKeys: keys, Results: results}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]string{}
	for i, h := range recs[0] {
		col[h] = recs[1][i]
	}
	if col["kafka1 disk write (MB/s)"] != "410.44" || col["bench net out (MB/s)"] != "13.90" ||
		col["kafka3 CPU %"] != "unreachable" || recs[0][len(recs[0])-1] != "error" {
		t.Errorf("CSV header %q\nrow %q", recs[0], recs[1])
	}

	var jb bytes.Buffer
	if err := Write(&jb, FormatJSON, Report{ParamKeys: keys, Results: results}); err != nil {
		t.Fatal(err)
	}
	var out []struct {
		Hosts []map[string]any `json:"hosts"`
	}
	if err := json.Unmarshal(jb.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	h := out[0].Hosts
	if len(h) != 3 || h[1]["source"] != "node_exporter" || h[1]["cpu_peak_percent"] != 80.0 || h[1]["disk_write_mb_per_sec"] != 410.44 ||
		h[2]["status"] != "unreachable" || h[2]["error"] != "connection refused" || h[2]["cpu_percent"] != nil {
		t.Errorf("JSON hosts = %v", h)
	}
}
