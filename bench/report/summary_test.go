package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/verdict"
	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// A paced scenario's throughput is judged as achieved ÷ target: linger.ms
// 100 against 0 at rate 200 measured 202 against 204 records/s in every
// round (records over first send → last acknowledgement; linger lengthens
// the tail), which used to read "worse"; a scenario that falls 10 % short
// of its target is still worse, and the table says what was judged.
func TestPacedThroughputVerdict(t *testing.T) {
	b := &spec.Bench{Rounds: 5, Baseline: "linger0", ParamKeys: []string{"scenario", "round"}, Scenarios: []spec.Scenario{
		{Name: "linger0", Probe: config.Probe{Rate: 200}},
		{Name: "linger100", Probe: config.Probe{Rate: 200}},
		{Name: "slow", Probe: config.Probe{Rate: 200}},
	}}
	var results []result.Result
	add := func(name string, round int, records int64) {
		results = append(results, result.Result{Scenario: name, Round: round, Params: []string{name, strconv.Itoa(round)},
			Produce: &result.ProduceResult{Records: records, Elapsed: 10 * time.Second, Latency: result.Latencies{P99: time.Millisecond}}})
	}
	for round := 1; round <= 5; round++ {
		add("linger0", round, 2040+int64(round))
		add("linger100", round, 2020+int64(round))
		add("slow", round, 1800+int64(round))
	}
	verdicts := map[string]Summary{}
	for _, s := range Summarize(b, results) {
		if s.Metric.Key == "produce_records_per_sec" {
			verdicts[s.Scenario] = s
		}
	}
	if s := verdicts["linger100"]; s.Verdict != verdict.NoDifference || s.Target != 200 || s.Interval.Ratio != 1 {
		t.Errorf("linger100 at 202 vs 204 records/s, target 200: %s, ratio %v, target %v; want no difference, 1, 200", s.Verdict, s.Interval.Ratio, s.Target)
	}
	if s := verdicts["slow"]; s.Verdict != verdict.Worse || math.Abs(s.Interval.Ratio-0.9) > 0.005 {
		t.Errorf("slow at 180 records/s, target 200: %s, ratio %v; want worse, 0.9", s.Verdict, s.Interval.Ratio)
	}
	var md bytes.Buffer
	if err := Write(&md, FormatMarkdown, Report{ParamKeys: b.ParamKeys, Results: results, Bench: b, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| linger100 | produce records/s (÷ target 200) | 202, 202, 202, 202, 202 | 202 | 1.000 |", "beyond ±2 %"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// At rounds: 100 (the maximum) the summary of two scenarios — every
// metric, each judged against the baseline — allocates well under 50 MB
// (the table of every smaller pair of sizes took ~220 MB per verdict).
// Bytes allocated are deterministic; time is not measured.
func TestVerdictMemoryAt100Rounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := &spec.Bench{Rounds: spec.MaxRounds, Baseline: "base", Scenarios: []spec.Scenario{{Name: "base"}, {Name: "other"}}}
	var results []result.Result
	for _, name := range []string{"base", "other"} {
		for round, v := range rounds(rng, spec.MaxRounds, 10000, 0.05) {
			lat := result.Latencies{P99: time.Duration(v) * time.Microsecond}
			results = append(results, result.Result{Scenario: name, Round: round + 1,
				Produce: &result.ProduceResult{Records: int64(v), Elapsed: time.Second, Latency: lat},
				Consume: &result.ConsumeResult{Start: time.Unix(0, 0), End: time.Unix(1, 0), Records: int64(v), EndToEnd: &lat,
					Rebalances: 2, RebalanceP99: lat.P99}})
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sums := Summarize(b, results)
	runtime.ReadMemStats(&after)
	judged := 0
	for _, s := range sums {
		if s.Verdict != "" {
			judged++
		}
	}
	if judged != len(verdictMetrics) {
		t.Fatalf("%d verdicts, want %d", judged, len(verdictMetrics))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 10<<20 {
		t.Errorf("the summary at %d rounds allocated %d MB, want under 10 MB", spec.MaxRounds, got>>20)
	} else {
		t.Logf("the summary at %d rounds allocated %d kB", spec.MaxRounds, got>>10)
	}
}

// rounds draws n rounds around mean with relative normal noise.
func rounds(rng *rand.Rand, n int, mean, noise float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = mean * (1 + noise*rng.NormFloat64())
	}
	return v
}
