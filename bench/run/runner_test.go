package run

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

func testLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(slog.DiscardHandler)
}

// runBench parses a bench file, points it at brokers and runs it.
func runBench(t *testing.T, brokers []string, file string) (*spec.Bench, []result.Result, string) {
	t.Helper()
	b, err := spec.Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	b.Kafka.Kafka.Brokers = brokers
	reg := prometheus.NewRegistry()
	var progressOut bytes.Buffer
	r := &Runner{
		Sinks:            []event.Sink{promsink.NewMetrics(reg)},
		Logger:           testLogger(),
		Progress:         &progressOut,
		ProgressInterval: 100 * time.Millisecond,
		SweepID:          "test",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	results, err := r.Run(ctx, b)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return b, results, progressOut.String()
}

// TestMatrixOnFakeCluster runs a 2×2 matrix end to end and reads the
// Markdown table back: four rows, each with every record produced and
// consumed, and no topic left behind.
func TestMatrixOnFakeCluster(t *testing.T) {
	brokers := probetest.Kfake(t, 3)
	const n = 2000
	b, results, _ := runBench(t, brokers, `
num_records: 2000
warmup_records: 100
defaults:
  create_topic: {partitions: 3}
  producer: {linger.ms: 1}
matrix:
  record_size: [100, 1000]
  acks: ["1", "all"]
`)
	var table bytes.Buffer
	if err := report.Write(&table, report.FormatMarkdown, report.Report{ParamKeys: b.ParamKeys, Results: results}); err != nil {
		t.Fatal(err)
	}
	rows := tableRows(t, table.String())
	if len(rows) != 4 {
		t.Fatalf("table has %d rows, want 4:\n%s", len(rows), table.String())
	}
	wantParams := [][2]string{{"100", "1"}, {"100", "all"}, {"1000", "1"}, {"1000", "all"}}
	for i, row := range rows {
		if row["record_size"] != wantParams[i][0] || row["acks"] != wantParams[i][1] {
			t.Errorf("row %d: record_size %s acks %s, want %v", i, row["record_size"], row["acks"], wantParams[i])
		}
		if row["records"] != "2000" || row["consumed"] != "2000" || row["status"] != "ok" {
			t.Errorf("row %d: records %s consumed %s status %s, want 2000, 2000, ok\n%s", i, row["records"], row["consumed"], row["status"], table.String())
		}
		if row["p99 (ms)"] == "-" || row["e2e p99 (ms)"] == "-" {
			t.Errorf("row %d: latency columns empty: %v", i, row)
		}
	}
	for _, r := range results {
		if r.Produce.Records != n || r.Produce.Failed != 0 || r.Consume.Records != n {
			t.Errorf("%s: produced %d (failed %d), consumed %d; want %d, 0, %d", r.Scenario, r.Produce.Records, r.Produce.Failed, r.Consume.Records, n, n)
		}
		if want := int64(n) * int64(b.Scenarios[0].Probe.RecordSize); strings.HasPrefix(r.Scenario, "record_size=100,") && r.Produce.Bytes != want {
			t.Errorf("%s: %d bytes, want %d", r.Scenario, r.Produce.Bytes, want)
		}
	}
	if left := benchTopics(t, brokers); len(left) > 0 {
		t.Errorf("topics left behind with delete_topics: %v", left)
	}
}

// TestConsumeOnly pre-fills a named topic, reads it back consume-only (as
// ConsumerPerformance does), then asks for more records than it holds.
func TestConsumeOnly(t *testing.T) {
	brokers := probetest.Kfake(t, 3)
	_, fill, _ := runBench(t, brokers, `
num_records: 1500
defaults: {topic: prefilled, record_size: 200, consumer: {enabled: false}}
`)
	if fill[0].Failed() || fill[0].Produce.Records != 1500 || fill[0].Consume != nil {
		t.Fatalf("fill: %+v", fill[0])
	}
	_, read, _ := runBench(t, brokers, `
num_records: 1000
warmup_records: 500
consume_only: true
defaults: {topic: prefilled}
`)
	r := read[0]
	if r.Failed() || r.Produce != nil || r.Consume.Records != 1000 || r.Consume.Bytes != 1000*200 || r.Consume.EndToEnd != nil {
		t.Errorf("consume-only: err %q produce %v consumed %d bytes %d e2e %v; want 1000 records of 200 B, no produce, no e2e",
			r.Err, r.Produce, r.Consume.Records, r.Consume.Bytes, r.Consume.EndToEnd)
	}
	_, part, _ := runBench(t, brokers, "num_records: 700\nconsume_only: true\ndefaults: {topic: prefilled}\n")
	if r := part[0]; r.Failed() || r.Consume.Records != 700 {
		t.Errorf("reading 700 of 1500 records: err %q consumed %d; want exactly 700, as ConsumerPerformance --messages", r.Err, r.Consume.Records)
	}
	if left := benchTopics(t, brokers); len(left) != 1 {
		t.Errorf("topics %v: the named topic must stay", left)
	}

	_, short, _ := runBench(t, brokers, `
num_records: 2000
consume_only: true
drain_timeout: 1s
defaults: {topic: prefilled}
`)
	if r := short[0]; !strings.Contains(r.Err, "consumer: read 1500 of 2000 records") || r.Consume.Records != 1500 {
		t.Errorf("reading 2000 of 1500 records: err %q consumed %d; want a drain_timeout failure after 1500", r.Err, r.Consume.Records)
	}

	_, missing, _ := runBench(t, brokers, "num_records: 10\nconsume_only: true\ndefaults: {topic: nowhere}\n")
	if !strings.Contains(missing[0].Err, `topic "nowhere" does not exist`) {
		t.Errorf("missing topic: err %q", missing[0].Err)
	}
}

// TestShareConsumeOnly reads a pre-filled topic with a share group of 3
// members (as ShareConsumerPerformance --threads 3 does): a new group
// starts at the topic's start, every record is read once.
func TestShareConsumeOnly(t *testing.T) {
	brokers := probetest.Kfake(t, 1)
	_, fill, _ := runBench(t, brokers, `
num_records: 1500
defaults: {topic: prefilled, record_size: 200, create_topic: {partitions: 3}, consumer: {enabled: false}}
`)
	if fill[0].Failed() || fill[0].Produce.Records != 1500 {
		t.Fatalf("fill: %+v", fill[0])
	}
	_, read, _ := runBench(t, brokers, `
num_records: 1500
consume_only: true
defaults: {topic: prefilled, consumer: {kind: share, consumers: 3, share: {group.id: bench-share}}}
`)
	if r := read[0]; r.Failed() || r.Produce != nil || r.Consume.Records != 1500 || r.Consume.Bytes != 1500*200 {
		t.Errorf("share consume-only: err %q produce %v consumed %d bytes %d; want 1500 records of 200 B", r.Err, r.Produce, r.Consume.Records, r.Consume.Bytes)
	}
}

// TestDurationOnFakeCluster runs by time at a set rate: whatever was
// produced must all be consumed, and the progress lines must be printed.
func TestDurationOnFakeCluster(t *testing.T) {
	brokers := probetest.Kfake(t, 3)
	_, results, progressOut := runBench(t, brokers, `
duration: 700ms
rate: 2000
defaults: {record_size: 64}
`)
	r := results[0]
	if r.Failed() || r.Produce.Records == 0 || r.Consume.Records != r.Produce.Records {
		t.Errorf("err %q produced %d consumed %d; want some, all consumed", r.Err, r.Produce.Records, r.Consume.Records)
	}
	if !strings.Contains(progressOut, "scenario 1 of 1 (defaults)") || !strings.Contains(progressOut, "records sent,") {
		t.Errorf("progress output lacks the window and scenario lines:\n%s", progressOut)
	}
}

// tableRows parses the first Markdown table of md (the per-machine table
// follows it) into maps keyed by header.
func tableRows(t *testing.T, md string) []map[string]string {
	t.Helper()
	var header []string
	var rows []map[string]string
	for line := range strings.SplitSeq(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			if header != nil {
				break // the first table only; the per-machine table follows
			}
			continue
		}
		var cols []string
		for c := range strings.SplitSeq(strings.Trim(line, "|"), "|") {
			cols = append(cols, strings.TrimSpace(c))
		}
		switch {
		case header == nil:
			header = cols
		case strings.HasPrefix(cols[0], "---"):
		default:
			row := map[string]string{}
			for i, c := range cols {
				row[header[i]] = c
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func benchTopics(t *testing.T, brokers []string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tds, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tds.Names()
}

// TestTransactionsOnFakeCluster: a transactional scenario with aborts,
// read_committed, drains (the records of aborted transactions are not
// awaited) and counts none of them lost; read_uncommitted reads them all.
func TestTransactionsOnFakeCluster(t *testing.T) {
	brokers := probetest.Kfake(t, 1)
	const n = 2000
	_, results, _ := runBench(t, brokers, `
num_records: 2000
rate: 4000
defaults:
  create_topic: {partitions: 3}
  producer: {transactional.id: bench, transaction.duration.ms: 50, transaction.abort.ratio: 0.5}
matrix:
  consumer.isolation.level: [read_committed, read_uncommitted]
`)
	if len(results) != 2 {
		t.Fatalf("%d results, want 2", len(results))
	}
	for _, r := range results {
		if r.Failed() {
			t.Fatalf("%s: %s", r.Scenario, r.Err)
		}
		t.Logf("%s: produced %d, consumed %d, lost %d", r.Scenario, r.Produce.Records, r.Consume.Records, r.Consume.Lost)
		if r.Produce.Records != n || r.Consume.Lost != 0 || r.Consume.Duplicates != 0 {
			t.Errorf("%s: produced %d, lost %d, duplicates %d; want %d, 0, 0", r.Scenario, r.Produce.Records, r.Consume.Lost, r.Consume.Duplicates, n)
		}
		committed := strings.Contains(r.Scenario, "read_committed")
		if committed && (r.Consume.Records == 0 || r.Consume.Records >= n) || !committed && r.Consume.Records != n {
			t.Errorf("%s: consumed %d of %d produced records, want fewer with read_committed and all without", r.Scenario, r.Consume.Records, n)
		}
		// Half the transactions abort: their records are the result's
		// not committed ones, and exactly those a read_committed
		// consumer does not read.
		if nc := r.Produce.NotCommitted; nc == 0 || nc >= n || committed && r.Consume.Records != n-nc {
			t.Errorf("%s: %d of %d produced records not committed, %d consumed; want some, and with read_committed the others consumed", r.Scenario, nc, n, r.Consume.Records)
		}
	}
}

// TestRebalanceVerdictOnFakeCluster: "classic cooperative-sticky vs the
// consumer protocol" is one matrix; with consumer.churn each run measures
// the group's rebalances, and the summary judges their p99.
func TestRebalanceVerdictOnFakeCluster(t *testing.T) {
	// Members hear of a rebalance at their next heartbeat: 200 ms in both
	// protocols, so the churn member's second is a rebalance in each.
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{"group.consumer.heartbeat.interval.ms": "200"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	b, results, _ := runBench(t, c.ListenAddrs(), `
duration: 3s
rate: 500
rounds: 3
defaults:
  create_topic: {partitions: 4}
  record_size: 100
  consumer: {fetch.max.wait.ms: 100, churn: {interval: 1500ms, duration: 700ms}}
scenarios:
  # heartbeat.interval.ms is the classic protocol's: with the consumer
  # protocol the broker's applies (and Java refuses the client's).
  - {name: classic, consumer: {group.protocol: classic, heartbeat.interval.ms: 200}}
  - {name: consumer, consumer: {group.protocol: consumer}}
`)
	for _, r := range results {
		if r.Failed() {
			t.Fatalf("%s round %d: %s", r.Scenario, r.Round, r.Err)
		}
		t.Logf("%s round %d: %d rebalances, p99 %v", r.Scenario, r.Round, r.Consume.Rebalances, r.Consume.RebalanceP99)
		if r.Consume.Rebalances == 0 || r.Consume.RebalanceP99 <= 0 {
			t.Errorf("%s round %d: %d rebalances, p99 %v; want the churn's", r.Scenario, r.Round, r.Consume.Rebalances, r.Consume.RebalanceP99)
		}
	}
	judged := 0
	for _, s := range report.Summarize(b, results) {
		if s.Metric.Key == "rebalance_p99_ms" && !s.Baseline && s.Verdict != "" {
			judged++
		}
	}
	if judged != 1 {
		t.Errorf("%d verdicts on rebalance p99, want 1 (consumer against classic)", judged)
	}
}
