package report

import (
	"math"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/verdict"
)

// VerdictMetric is one metric the rounds are summarised and judged on.
type VerdictMetric struct {
	Name           string // as in the table
	Key            string // as in JSON and CSV
	HigherIsBetter bool
	value          func(result.Result) (float64, bool)
	// throughput: a paced scenario's value is judged against its target
	// (attainment), not as it is.
	throughput bool
}

// verdictMetrics are the metrics of the verdict table.
var verdictMetrics = []VerdictMetric{
	{"produce records/s", "produce_records_per_sec", true, func(r result.Result) (float64, bool) {
		if r.Produce == nil || r.Produce.Records == 0 {
			return 0, false
		}
		return r.Produce.RecordsPerSec(), true
	}, true},
	{"produce p99 (ms)", "produce_p99_ms", false, func(r result.Result) (float64, bool) {
		if r.Produce == nil || r.Produce.Records == 0 {
			return 0, false
		}
		return result.Millis(r.Produce.Latency.P99), true
	}, false},
	{"e2e p99 (ms)", "end_to_end_p99_ms", false, func(r result.Result) (float64, bool) {
		if r.Consume == nil || r.Consume.EndToEnd == nil || r.Consume.Records == 0 {
			return 0, false
		}
		return result.Millis(r.Consume.EndToEnd.P99), true
	}, false},
	{"rebalance p99 (ms)", "rebalance_p99_ms", false, func(r result.Result) (float64, bool) {
		if r.Consume == nil || r.Consume.Rebalances == 0 {
			return 0, false
		}
		return result.Millis(r.Consume.RebalanceP99), true
	}, false},
	{"consumer records/s", "consumer_records_per_sec", true, func(r result.Result) (float64, bool) {
		if r.Consume == nil || r.Consume.Records == 0 {
			return 0, false
		}
		return r.Consume.RecordsPerSec(), true
	}, true},
}

// Summary is one scenario's metric over the rounds.
type Summary struct {
	Scenario string // the scenario's display name
	Metric   VerdictMetric
	// Values holds each round's value, in round order; NaN where the round
	// failed or did not run (an interrupted bench).
	Values []float64
	Median float64
	// Baseline marks the baseline's own rows.
	Baseline bool
	// Interval and Verdict compare with the baseline; Verdict is empty
	// when there is none (fewer than MinVerdictRounds rounds on a side).
	Interval verdict.Interval
	Verdict  string
	// Target, when > 0, is the paced scenario's rate in records/s: its
	// throughput (and the baseline's) was judged as achieved ÷ target,
	// capped at 1, so a rate that only the measuring window moves (the
	// tail after the last send) is no effect.
	Target float64
}

// attainment is achieved ÷ target, capped at 1: what a paced throughput is
// judged on, as a paced run cannot send faster than its target.
func attainment(values []float64, target float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = min(v/target, 1)
	}
	return out
}

// Summarize gathers each scenario's metrics over the rounds, in the file's
// scenario order, and judges them against the baseline when the bench has
// enough rounds.
func Summarize(b *spec.Bench, results []result.Result) []Summary {
	values := func(name string, m VerdictMetric) (all, valid []float64) {
		all = make([]float64, b.Rounds)
		for i := range all {
			all[i] = math.NaN()
		}
		for _, r := range results {
			if r.Scenario != name || r.Failed() || r.Round < 1 || r.Round > b.Rounds {
				continue
			}
			if v, ok := m.value(r); ok && v > 0 {
				all[r.Round-1] = v
			}
		}
		for _, v := range all {
			if !math.IsNaN(v) {
				valid = append(valid, v)
			}
		}
		return all, valid
	}
	target := func(name string) float64 {
		for _, s := range b.Scenarios {
			if s.Name == name {
				return s.Probe.Rate
			}
		}
		return 0
	}
	var out []Summary
	for _, s := range b.Scenarios {
		for _, m := range verdictMetrics {
			all, valid := values(s.Name, m)
			if len(valid) == 0 {
				continue
			}
			sm := Summary{Scenario: s.DisplayName(), Metric: m, Values: all, Median: verdict.MedianOf(valid),
				Baseline: b.Rounds >= spec.MinVerdictRounds && s.Name == b.Baseline}
			if b.Rounds >= spec.MinVerdictRounds && !sm.Baseline {
				_, base := values(b.Baseline, m)
				if len(valid) >= spec.MinVerdictRounds && len(base) >= spec.MinVerdictRounds {
					if t, bt := s.Probe.Rate, target(b.Baseline); m.throughput && t > 0 && bt > 0 {
						sm.Target = t
						valid, base = attainment(valid, t), attainment(base, bt)
					}
					sm.Interval, _ = verdict.RatioInterval(valid, base)
					sm.Verdict = verdict.Judge(sm.Interval, m.HigherIsBetter)
				}
			}
			out = append(out, sm)
		}
	}
	return out
}
