package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	benchreport "github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
)

// ProducerPerformance's output of Kafka 4.x: progress lines every 5 s, then
// the result line.
const ppOutput = `612337 records sent, 122467.4 records/sec (119.60 MB/sec), 183.0 ms avg latency, 460.0 ms max latency.
1000000 records sent, 120581.334940 records/sec (117.75 MB/sec), 201.43 ms avg latency, 512.00 ms max latency, 190 ms 50th, 402 ms 95th, 470 ms 99th, 501 ms 99.9th.
`

// ConsumerPerformance's output: a warning, the header and the result line.
const cpOutput = `WARNING: option [timeout] is deprecated
start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
2026-12-02 05:01:02:345, 2026-12-02 05:01:05:519, 976.5625, 307.6694, 1000000, 315059.8614, 415, 2759, 353.9552, 362450.1631
`

// TestProducerPerfArgs: produce-txn's ProducerPerformance is produce's with
// a transactional id, the transaction duration and idempotence on.
func TestProducerPerfArgs(t *testing.T) {
	brokers := []string{"127.0.0.1:9092"}
	plain := producerPerfArgs(brokers, "pp-1024-all-1", 1000, 1024, "all", nil)
	txn := producerPerfArgs(brokers, "pp-txn-1024-1", 1000, 1024, "all", &txnSettings{id: "txn-kafka-1024-1", durationMS: 3000})
	flag := func(args []string, name string) (string, bool) {
		i := slices.Index(args, name)
		if i < 0 || i+1 >= len(args) {
			return "", false
		}
		return args[i+1], true
	}
	for _, name := range []string{"--transactional-id", "--transaction-duration-ms"} {
		if v, ok := flag(plain, name); ok {
			t.Errorf("produce: %s %s, want none", name, v)
		}
	}
	if slices.Contains(plain, "enable.idempotence=true") {
		t.Errorf("produce: %q sets enable.idempotence, want it to follow acks", plain)
	}
	for name, want := range map[string]string{"--topic": "pp-txn-1024-1", "--num-records": "1000", "--record-size": "1024",
		"--throughput": "-1", "--transactional-id": "txn-kafka-1024-1", "--transaction-duration-ms": "3000"} {
		if got, _ := flag(txn, name); got != want {
			t.Errorf("produce-txn: %s %q, want %q (%q)", name, got, want, txn)
		}
	}
	// The flags come before --producer-props, whose values run to the end.
	props := slices.Index(txn, "--producer-props")
	if props < 0 || props < slices.Index(txn, "--transaction-duration-ms") {
		t.Fatalf("produce-txn: %q, want the transaction flags before --producer-props", txn)
	}
	for _, want := range []string{"bootstrap.servers=127.0.0.1:9092", "acks=all", "enable.idempotence=true", "linger.ms=5", "batch.size=16384",
		"buffer.memory=33554432", "compression.type=none"} {
		if !slices.Contains(txn[props+1:], want) {
			t.Errorf("produce-txn: producer props %q lack %s", txn[props+1:], want)
		}
	}
}

// TestTxnRate: produce-txn's rate comes from the bench's JSON result, and
// a run with records of transactions not committed is an error.
func TestTxnRate(t *testing.T) {
	start := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		notCommitted int64
		want         float64
		err          string
	}{
		{0, 3000, ""},
		{7, 0, "7 acknowledged records of transactions not committed (see w/txn.err)"},
	} {
		r := result.Result{Topic: "t", Produce: &result.ProduceResult{Records: 9000, NotCommitted: c.notCommitted,
			Elapsed: 3 * time.Second, First: start, Last: start.Add(3 * time.Second)}}
		var b bytes.Buffer
		if err := benchreport.Write(&b, benchreport.FormatJSON, benchreport.Report{Results: []result.Result{r}}); err != nil {
			t.Fatal(err)
		}
		res, err := parseResult(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		got, err := txnRate(res, "w/txn")
		if msg := fmt.Sprint(err); got != c.want || (c.err == "") != (err == nil) || err != nil && msg != c.err {
			t.Errorf("not committed %d: txnRate = %v, %v; want %v, %q", c.notCommitted, got, err, c.want, c.err)
		}
	}
	if _, err := txnRate(result.JSONResult{}, "w/txn"); err == nil {
		t.Error("a result without a produce part: no error")
	}
}

func TestProducerRate(t *testing.T) {
	got, err := producerRate(ppOutput)
	if err != nil || got != 120581.334940 {
		t.Errorf("producerRate = %v, %v; want 120581.334940 from the result line, not the progress line", got, err)
	}
	// Ours prints the same line.
	ours := benchreport.ProducerLine(&result.ProduceResult{Records: 5000, Bytes: 5000 * 1024, Elapsed: 2 * time.Second})
	if got, err := producerRate("banner\n" + ours + "\n| table |\n"); err != nil || got != 2500 {
		t.Errorf("producerRate(%q) = %v, %v; want 2500", ours, got, err)
	}
	for _, bad := range []string{"", strings.SplitN(ppOutput, "\n", 2)[0], "10 records sent, fast records/sec (1 MB/sec), 1 ms 99.9th."} {
		if got, err := producerRate(bad); err == nil {
			t.Errorf("producerRate(%q) = %v, want an error", bad, got)
		}
	}
}

func TestConsumerRate(t *testing.T) {
	got, err := consumerRate(cpOutput)
	if err != nil || got != (consumerRates{total: 315059.8614, fetch: 362450.1631}) {
		t.Errorf("consumerRate = %+v, %v", got, err)
	}
	start := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	c := &result.ConsumeResult{Start: start, End: start.Add(4 * time.Second), Records: 40000, Bytes: 40000 * 100, Rebalance: 2 * time.Second}
	ours := benchreport.ConsumerHeader + "\n" + benchreport.ConsumerLine(c) + "\n"
	if got, err := consumerRate(ours); err != nil || got != (consumerRates{total: 10000, fetch: 20000}) {
		t.Errorf("consumerRate(%q) = %+v, %v; want 10000 and 20000", ours, got, err)
	}
	short := strings.Replace(cpOutput, ", 362450.1631", "", 1)
	for _, bad := range []string{"", "start.time, end.time\n", short, strings.Replace(cpOutput, "315059.8614", "many", 1)} {
		if got, err := consumerRate(bad); err == nil {
			t.Errorf("consumerRate(%q) = %+v, want an error", bad, got)
		}
	}
}

// TestOurResult: a result as `bench --format json` writes it is read back,
// with ConsumerPerformance's two rates.
func TestOurResult(t *testing.T) {
	start := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	r := result.Result{Scenario: "", Topic: "fill-100",
		Produce: &result.ProduceResult{Records: 9000, Bytes: 900000, Elapsed: 3 * time.Second, First: start, Last: start.Add(3 * time.Second)},
		Consume: &result.ConsumeResult{Start: start, End: start.Add(5 * time.Second), Records: 9000, Rebalance: 500 * time.Millisecond}}
	var b bytes.Buffer
	if err := benchreport.Write(&b, benchreport.FormatJSON, benchreport.Report{Results: []result.Result{r}}); err != nil {
		t.Fatal(err)
	}
	got, err := parseResult(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Produce.RecordsPerSec != 3000 {
		t.Errorf("produce records/s = %v, want 3000", got.Produce.RecordsPerSec)
	}
	rates, err := ourConsumerRates(got)
	if err != nil || rates.total != 1800 || rates.fetch != 2000 {
		t.Errorf("ourConsumerRates = %+v, %v; want 1800 (9000 in 5 s) and 2000 (in 4.5 s)", rates, err)
	}

	failed := r
	failed.Err = "drain timeout"
	b.Reset()
	if err := benchreport.Write(&b, benchreport.FormatJSON, benchreport.Report{Results: []result.Result{failed}}); err != nil {
		t.Fatal(err)
	}
	if _, err := parseResult(b.Bytes()); err == nil || !strings.Contains(err.Error(), "drain timeout") {
		t.Errorf("a failed scenario: err = %v, want its error", err)
	}
	b.Reset()
	if err := benchreport.Write(&b, benchreport.FormatJSON, benchreport.Report{Results: []result.Result{r, r}}); err != nil {
		t.Fatal(err)
	}
	if _, err := parseResult(b.Bytes()); err == nil {
		t.Error("two scenarios were accepted as one")
	}
	if _, err := ourConsumerRates(result.JSONResult{Scenario: "x"}); err == nil {
		t.Error("a result without a consumer gave rates")
	}
	if math.IsNaN(rates.total) {
		t.Error("NaN rate")
	}
}

// ShareConsumerPerformance's output (Kafka 4.4.0, --threads 3
// --show-detailed-stats --reporting-interval 1000): its header orders the
// columns differently and has no group join; each member's first progress
// line comes at its first record (two members' lines can share a line), the
// result line last.
const scpOutput = `start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms
2026-12-03 12:03:50:140, 2026-12-03 12:03:55:400, 0.0010, 0.0002, 0.1901, 1, 5260 for share consumer 22026-12-03 12:03:50:131, 2026-12-03 12:03:55:210, 0.0010, 0.0002, 0.1969, 1, 5079 for share consumer 1

2026-12-03 12:03:55:210, 2026-12-03 12:03:56:215, 30.1, 29.9, 30650.7, 30822, 1005 for share consumer 1
2026-12-03 12:03:50:122, 2026-12-03 12:03:58:000, 97.6563, 12.3961, 12693.5771, 100000, 7878
`

func TestShareConsumerRates(t *testing.T) {
	got, err := shareConsumerRates(scpOutput)
	if err != nil || got.total != 12693.5771 || math.Abs(got.fetch-100000/2.790) > 0.01 {
		t.Errorf("shareConsumerRates = %+v, %v; want nMsg.sec 12693.5771 (not the column at ConsumerPerformance's place) and 100000 records over 2.790 s from the first record", got, err)
	}
	noProgress := "start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms\n" +
		"2026-12-03 12:03:50:122, 2026-12-03 12:03:58:000, 97.6563, 12.3961, 12693.5771, 100000, 7878\n"
	for name, bad := range map[string]string{"ProducerPerformance's": ppOutput, "no progress line": noProgress,
		"no result line": strings.Join(strings.Split(scpOutput, "\n")[:4], "\n")} {
		if got, err := shareConsumerRates(bad); err == nil {
			t.Errorf("shareConsumerRates of %s output = %+v, want an error", name, got)
		}
	}
}

func TestFloorShareRates(t *testing.T) {
	got, err := floorShareRates("consumed 1000000 in 9.894137997s, 101069.9 records/s\nfrom the first record 4.8s, 208333.3 records/s\n")
	if err != nil || got.total != 101069.9 || got.fetch != 208333.3 {
		t.Errorf("floorShareRates = %+v, %v; want 101069.9 and 208333.3", got, err)
	}
	for _, bad := range []string{"", "consumed 1000000\n", "consumed 1000000 in 9.894137997s, 101069.9 records/s\n", scpOutput} {
		if got, err := floorShareRates(bad); err == nil {
			t.Errorf("floorShareRates(%q) = %+v, want an error", bad, got)
		}
	}
}

func TestFloorProduceRate(t *testing.T) {
	if got, err := floorProduceRate("acked 200000 failed 0 in 7.5s, 26666.7 records/s\n"); err != nil || got != 26666.7 {
		t.Errorf("floorProduceRate = %v, %v; want 26666.7", got, err)
	}
	for _, bad := range []string{"", "acked 200000 failed 0\n", "acked 199990 failed 10 in 7.5s, 26665.3 records/s\n", ppOutput} {
		if got, err := floorProduceRate(bad); err == nil {
			t.Errorf("floorProduceRate(%q) = %v, want an error", bad, got)
		}
	}
}

// In the produce part's rounds ours runs between Kafka's tool and the
// floor, and each of those two is in turn first and last: the order of
// alternate (roundTools) with inTurn's (the floor before ours where ours
// goes first).
func TestProduceRoundOrder(t *testing.T) {
	var firsts, lasts []string
	for r := 1; r <= 4; r++ {
		var order []string
		run := func(tool string) func() error {
			return func() error { order = append(order, tool); return nil }
		}
		for _, tool := range roundTools(r) {
			if tool == "ours" {
				_ = inTurn(!oursFirst(r), run("floor"), run("ours"), func() {})
			} else {
				order = append(order, tool)
			}
		}
		if len(order) != 3 || order[1] != "ours" {
			t.Fatalf("round %d runs %v, want ours in the middle", r, order)
		}
		firsts, lasts = append(firsts, order[0]), append(lasts, order[2])
	}
	for _, tool := range []string{"floor", "kafka"} {
		if !slices.Contains(firsts, tool) || !slices.Contains(lasts, tool) {
			t.Errorf("%s is never first or never last: firsts %v, lasts %v", tool, firsts, lasts)
		}
	}
	err := errors.New("failed")
	ran := false
	if got := inTurn(false, func() error { return err }, func() error { ran = true; return nil }, func() {}); !errors.Is(got, err) || ran {
		t.Errorf("inTurn after a failed first = %v, second ran %v; want the error and no second", got, ran)
	}
}
