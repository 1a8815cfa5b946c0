package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/verdict"
)

// TestConfigSettingsExpansion: broker and topic keys in defaults, scenarios
// and matrix become each scenario's Configs (matrix over scenario over
// defaults), not probe keys; they name the scenarios like any matrix key.
func TestConfigSettingsExpansion(t *testing.T) {
	b, err := spec.Parse([]byte(`
num_records: 10
rounds: 3
defaults:
  record_size: 100
  topic.min.insync.replicas: 1
scenarios:
  - {name: baseline}
  - name: io1
    broker.num.io.threads: 1
    broker.2.num.io.threads: 2
    topic.min.insync.replicas: 2
matrix:
  topic.compression.type: [lz4, zstd]
`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"scenario", "topic.compression.type", "round"}; !reflect.DeepEqual(b.ParamKeys, want) {
		t.Errorf("ParamKeys %v, want %v", b.ParamKeys, want)
	}
	if b.Rounds != 3 || b.Baseline != "baseline,topic.compression.type=lz4" {
		t.Errorf("rounds %d, baseline %q; want 3 and the first scenario (none is named exactly baseline)", b.Rounds, b.Baseline)
	}
	s := b.Scenarios[3]
	if s.Name != "io1,topic.compression.type=zstd" || s.Probe.RecordSize != 100 {
		t.Fatalf("scenario %q record_size %d", s.Name, s.Probe.RecordSize)
	}
	want := []spec.ConfigSetting{
		{Key: "broker.2.num.io.threads", Broker: 2, Name: "num.io.threads", Value: "2"},
		{Key: "broker.num.io.threads", Broker: spec.AllBrokers, Name: "num.io.threads", Value: "1"},
		{Key: "topic.compression.type", Topic: true, Broker: spec.AllBrokers, Name: "compression.type", Value: "zstd"},
		{Key: "topic.min.insync.replicas", Topic: true, Broker: spec.AllBrokers, Name: "min.insync.replicas", Value: "2"},
	}
	if !reflect.DeepEqual(s.Configs, want) {
		t.Errorf("configs\n got %+v\nwant %+v", s.Configs, want)
	}
	if got := b.Scenarios[0].Configs; len(got) != 2 || got[1].Value != "1" {
		t.Errorf("baseline configs %+v: want compression.type and the defaults' min.insync.replicas=1", got)
	}
	if s.Probe.Name != "io1_topic_compression_type_zstd" {
		t.Errorf("probe label %q: the scenario name made a label", s.Probe.Name)
	}

	named, err := spec.Parse([]byte("num_records: 10\nrounds: 3\nscenarios: [{name: a}, {name: baseline}]\n"))
	if err != nil || named.Baseline != "baseline" {
		t.Errorf("baseline %q (%v): want the scenario named baseline", named.Baseline, err)
	}
	chosen, err := spec.Parse([]byte("num_records: 10\nrounds: 4\nbaseline: broker.num.io.threads=8\nmatrix: {broker.num.io.threads: [1, 8]}\n"))
	if err != nil || chosen.Baseline != "broker.num.io.threads=8" {
		t.Errorf("baseline %q (%v): want the one the file names", chosen.Baseline, err)
	}
}

// TestSchedule: every round runs every scenario once; the same seed gives
// the same order, another seed (almost surely) another; one round keeps the
// file's order.
func TestSchedule(t *testing.T) {
	order := func(seed uint64) [][]int {
		out := make([][]int, 5)
		for _, r := range schedule(6, 5, seed) {
			out[r.round-1] = append(out[r.round-1], r.scenario)
		}
		return out
	}
	a := order(42)
	for i, round := range a {
		if sorted := slices.Sorted(slices.Values(round)); !reflect.DeepEqual(sorted, []int{0, 1, 2, 3, 4, 5}) {
			t.Errorf("round %d runs %v, want each of 6 scenarios once", i+1, round)
		}
	}
	if !reflect.DeepEqual(a, order(42)) {
		t.Error("the same seed gave another order")
	}
	if reflect.DeepEqual(a, order(43)) {
		t.Error("seeds 42 and 43 gave the same order of 5 rounds of 6")
	}
	if reflect.DeepEqual(a[0], a[1]) && reflect.DeepEqual(a[1], a[2]) {
		t.Error("the rounds are not shuffled apart")
	}
	for i, r := range schedule(3, 1, 42) {
		if r.scenario != i || r.round != 1 {
			t.Errorf("one round: run %d is %+v, want the file order", i, r)
		}
	}
}

// roundsBench is a bench of two scenarios, three rounds, with made-up
// results: "fast" has 20 % more throughput, the same latency.
func roundsBench(t *testing.T) (*spec.Bench, []result.Result) {
	t.Helper()
	b, err := spec.Parse([]byte("num_records: 10\nrounds: 3\nbaseline: base\nscenarios: [{name: base}, {name: fast, broker.num.io.threads: 16}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	runResult := func(name string, round int, rps float64, p99 time.Duration) result.Result {
		lat := result.Latencies{P99: p99}
		return result.Result{Scenario: name, Round: round, Params: []string{name, string(rune('0' + round))},
			Produce: &result.ProduceResult{Records: int64(rps), Bytes: int64(rps) * 100, Elapsed: time.Second, Latency: lat},
			Consume: &result.ConsumeResult{Start: time.Unix(0, 0), End: time.Unix(1, 0), Records: int64(rps), EndToEnd: &lat}}
	}
	var results []result.Result
	for round, noise := range []float64{0, 30, -20} {
		results = append(results,
			runResult("base", round+1, 10000+noise, time.Duration(5000+noise)*time.Microsecond),
			runResult("fast", round+1, 12000-noise, time.Duration(5010-noise)*time.Microsecond))
	}
	results[2].Err = "failed" // base, round 2: out of the sample
	return b, results
}

func TestWriteRounds(t *testing.T) {
	b, results := roundsBench(t)
	var md bytes.Buffer
	if err := WriteRounds(&md, FormatMarkdown, b, 7, results); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| scenario | round | records |",
		"Over 3 rounds (--seed=7); ratio to the baseline \"base\"",
		"| base | produce records/s | 10000, -, 9980 | 9990 | 1 |  |  | baseline |",
		// 2 base rounds are too few for a verdict.
		"| fast | produce records/s | 12000, 11970, 12020 | 12000 |  |  |  | too few rounds |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}

	results[2].Err = "" // all three base rounds
	var cs bytes.Buffer
	if err := WriteRounds(&cs, FormatCSV, b, 7, results); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"scenario", "metric", "round_1", "round_2", "round_3", "median", "ratio", "ci_low", "ci_high", "confidence", "verdict"}
	if !reflect.DeepEqual(rows[0], wantHeader) || len(rows) != 9 {
		t.Fatalf("CSV header %v and %d rows, want %v and 8 rows", rows[0], len(rows)-1, wantHeader)
	}
	// fast/base throughput: all 9 pairwise ratios above 1; with 3 and 3
	// rounds the interval is their range, at 90 %.
	if got := rows[5]; got[0] != "fast" || got[1] != "produce_records_per_sec" || got[3] != "11970" || got[9] != "0.9" || got[10] != verdict.Better {
		t.Errorf("fast throughput row %v", got)
	}
	if got := rows[6]; got[1] != "produce_p99_ms" || got[10] != verdict.NoDifference {
		t.Errorf("fast p99 row %v: a 0.2 %% wobble both ways is no difference", got)
	}

	var js bytes.Buffer
	if err := WriteRounds(&js, FormatJSON, b, 7, results); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rounds, Seed int
		Baseline     string
		Runs         []struct {
			Scenario string
			Round    int
		}
		Summary []struct {
			Scenario, Metric, Verdict string
			Values                    []*float64
			Low                       *float64 `json:"ci_low"`
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Rounds != 3 || doc.Seed != 7 || doc.Baseline != "base" || len(doc.Runs) != 6 || doc.Runs[5].Round != 3 {
		t.Errorf("JSON head %+v", doc)
	}
	if s := doc.Summary[4]; s.Scenario != "fast" || len(s.Values) != 3 || *s.Values[1] != 11970 || s.Low == nil || *s.Low <= 1 || s.Verdict != verdict.Better {
		t.Errorf("JSON summary %+v", s)
	}
}

// TestRoundsOnFakeCluster: every scenario runs once per round, each round
// on a topic of its own, and the summary has a verdict per metric.
func TestRoundsOnFakeCluster(t *testing.T) {
	brokers := fakeCluster(t)
	b, results, progress := runBench(t, brokers, `
num_records: 300
rate: 1000
rounds: 3
defaults: {create_topic: {partitions: 2}, record_size: 100}
scenarios: [{name: baseline}, {name: acks1, producer: {acks: "1", enable.idempotence: false}}]
`)
	if len(results) != 6 {
		t.Fatalf("%d runs, want 2 scenarios × 3 rounds", len(results))
	}
	topics := map[string]bool{}
	perRound := map[int][]string{}
	for _, r := range results {
		if r.Failed() {
			t.Errorf("%s round %d: %s", r.Name(), r.Round, r.Err)
		}
		topics[r.Topic] = true
		perRound[r.Round] = append(perRound[r.Round], r.Scenario)
		if got := r.Params[len(r.Params)-1]; got != strconv.Itoa(r.Round) {
			t.Errorf("round column %q, want %d", got, r.Round)
		}
	}
	if len(topics) != 6 {
		t.Errorf("topics %v: want one per scenario and round", topics)
	}
	for round := 1; round <= 3; round++ {
		if got := slices.Sorted(slices.Values(perRound[round])); !reflect.DeepEqual(got, []string{"acks1", "baseline"}) {
			t.Errorf("round %d ran %v", round, got)
		}
	}
	if !strings.Contains(progress, ", round 3 of 3): ") {
		t.Errorf("progress lacks the round:\n%s", progress)
	}
	sums := Summarize(b, results)
	if len(sums) != 8 {
		t.Fatalf("%d summary rows, want 2 scenarios × 4 metrics", len(sums))
	}
	for _, s := range sums[4:] {
		if s.Verdict == "" || s.Interval.Level != 0.9 {
			t.Errorf("%s %s: verdict %q at level %v, want one at 90 %% (3 and 3 rounds)", s.Scenario, s.Metric.Name, s.Verdict, s.Interval.Level)
		}
	}
}

// TestWriteRoundsWithoutVerdicts: two rounds have medians, no baseline.
func TestWriteRoundsWithoutVerdicts(t *testing.T) {
	b, results := roundsBench(t)
	b.Rounds, b.Baseline = 2, ""
	var js, md bytes.Buffer
	if err := WriteRounds(&js, FormatJSON, b, 7, results[:4]); err != nil {
		t.Fatal(err)
	}
	if err := WriteRounds(&md, FormatMarkdown, b, 7, results[:4]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), `"baseline"`) || strings.Contains(js.String(), `"verdict"`) {
		t.Errorf("JSON of 2 rounds has a baseline or verdicts:\n%s", js.String())
	}
	if !strings.Contains(md.String(), "| scenario | metric | per round | median |\n") || strings.Contains(md.String(), "verdict") {
		t.Errorf("markdown of 2 rounds:\n%s", md.String())
	}
}
