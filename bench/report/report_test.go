package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestProducerLineMatchesSeeds rebuilds a line of the seeds'
// kafka-producer-perf-test output from the numbers behind it.
func TestProducerLineMatchesSeeds(t *testing.T) {
	p := &result.ProduceResult{
		Records: 1000000,
		Bytes:   100 * 1000000,
		Elapsed: 1232 * time.Millisecond,
		Latency: result.Latencies{Avg: 5510 * time.Microsecond, Max: 228 * time.Millisecond,
			P50: 5900 * time.Microsecond, P95: 12 * time.Millisecond, P99: 15999 * time.Microsecond, P999: 29 * time.Millisecond},
	}
	want := "1000000 records sent, 811688.311688 records/sec (77.41 MB/sec), 5.51 ms avg latency, 228.00 ms max latency, 5 ms 50th, 12 ms 95th, 15 ms 99th, 29 ms 99.9th."
	if got := ProducerLine(p); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestConsumerLineMatchesSeeds rebuilds a line of the seeds'
// kafka-consumer-perf-test output.
func TestConsumerLineMatchesSeeds(t *testing.T) {
	start := time.Date(2020, 10, 21, 17, 54, 56, 167*int(time.Millisecond), time.UTC)
	c := &result.ConsumeResult{
		Start:     start,
		End:       start.Add(883 * time.Millisecond),
		Records:   1000000,
		Bytes:     100 * 1000000,
		Rebalance: 13 * time.Millisecond,
	}
	want := "2020-10-21 17:54:56:167, 2020-10-21 17:54:57:050, 95.3674, 108.0039, 1000000, 1132502.8313, 13, 870, 109.6177, 1149425.2874"
	if got := ConsumerLine(c); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// sampleResults cover every shape of row: produce and consume, consume
// only, and a failure with no host counters.
func sampleResults() (keys []string, results []result.Result) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6000000, time.UTC)
	e2e := result.Latencies{Avg: 9 * time.Millisecond, Max: 40 * time.Millisecond, P50: 8123 * time.Microsecond,
		P95: 15 * time.Millisecond, P99: 21456 * time.Microsecond, P999: 35001 * time.Microsecond}
	keys = []string{"record_size", "acks"}
	results = []result.Result{
		{
			Scenario: "record_size=1000,acks=1", Params: []string{"1000", "1"}, Topic: "kafka-bench-bench-0123456789ab",
			Produce: &result.ProduceResult{Records: 1000000, Bytes: 1000 * 1000000, Elapsed: 4274 * time.Millisecond,
				Latency: result.Latencies{Avg: 124230 * time.Microsecond, Max: 282 * time.Millisecond, P50: 150001 * time.Microsecond,
					P95: 238 * time.Millisecond, P99: 260 * time.Millisecond, P999: 280500 * time.Microsecond}},
			Consume: &result.ConsumeResult{Start: start, End: start.Add(4500 * time.Millisecond), Records: 1000000, Bytes: 1000 * 1000000,
				Rebalance: 120 * time.Millisecond, EndToEnd: &e2e},
			Host: result.HostStats{CPUPercent: 87.25, MemPercent: 41.5, NetInMBps: 450.125, NetOutMBps: 449.5},
		},
		{
			Scenario: "record_size=100,acks=all", Params: []string{"100", "all"}, Topic: "pre-filled",
			Consume: &result.ConsumeResult{Start: start, End: start.Add(time.Second), Records: 500000, Bytes: 100 * 500000,
				Rebalance: 30 * time.Millisecond},
			Host: result.HostStats{CPUPercent: 50, MemPercent: 40, NetInMBps: 48, NetOutMBps: 1},
		},
		{
			Scenario: "record_size=100,acks=1", Params: []string{"100", "1"}, Topic: "kafka-bench-bench-ba9876543210",
			Err:     "consumer: read 10 of 20 records, then nothing for 1m0s (drain_timeout)",
			Produce: &result.ProduceResult{Records: 20, Bytes: 2000, Elapsed: 10 * time.Millisecond, Latency: result.Latencies{Avg: time.Millisecond, Max: time.Millisecond, P50: time.Millisecond, P95: time.Millisecond, P99: time.Millisecond, P999: time.Millisecond}},
			Consume: &result.ConsumeResult{Start: start, End: start, EndToEnd: &result.Latencies{}},
			Host:    result.HostStats{Unavailable: true},
		},
	}
	return keys, results
}

func TestReportGolden(t *testing.T) {
	keys, results := sampleResults()
	for _, format := range Formats {
		if format == FormatHTML {
			continue // its data section has a golden of its own (TestHTMLReportDataGolden)
		}
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, format, Report{ParamKeys: keys, Results: results}); err != nil {
				t.Fatal(err)
			}
			golden(t, "table."+map[string]string{FormatMarkdown: "md", FormatCSV: "csv", FormatJSON: "json"}[format], buf.Bytes())
		})
	}
	t.Run("lines", func(t *testing.T) {
		var buf bytes.Buffer
		for _, r := range results {
			if r.Produce != nil {
				buf.WriteString(ProducerLine(r.Produce) + "\n")
			}
			if r.Consume != nil {
				buf.WriteString(ConsumerHeader + "\n" + ConsumerLine(r.Consume) + "\n")
			}
		}
		golden(t, "lines.txt", buf.Bytes())
	})
}

func TestWriteUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "xml", Report{}); err == nil {
		t.Error("Write with format xml succeeded")
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bench -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./bench -run Golden -update rewrites it)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}
