package run

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/bench/report"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
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

// TestRoundsOnFakeCluster: every scenario runs once per round, each round
// on a topic of its own, and the summary has a verdict per metric.
func TestRoundsOnFakeCluster(t *testing.T) {
	brokers := probetest.Kfake(t, 3)
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
	sums := report.Summarize(b, results)
	if len(sums) != 8 {
		t.Fatalf("%d summary rows, want 2 scenarios × 4 metrics", len(sums))
	}
	for _, s := range sums[4:] {
		if s.Verdict == "" || s.Interval.Level != 0.9 {
			t.Errorf("%s %s: verdict %q at level %v, want one at 90 %% (3 and 3 rounds)", s.Scenario, s.Metric.Name, s.Verdict, s.Interval.Level)
		}
	}
}
