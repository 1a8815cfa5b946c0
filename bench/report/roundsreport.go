package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/verdict"
)

// IntervalMethod names the interval of the verdicts, in the reports.
const IntervalMethod = "Hodges-Lehmann ratio, exact Mann-Whitney (rank-sum) interval, on log values"

// writeMarkdown writes the runs' table (one row per scenario, and per round
// for a bench of rounds) and, for a bench of rounds that measured anything,
// the summary over the rounds with the verdicts against the baseline.
func writeMarkdown(w io.Writer, r Report) error {
	if err := writeRunsMarkdown(w, r.ParamKeys, r.Results); err != nil || !r.rounds() {
		return err
	}
	sums := Summarize(r.Bench, r.Results)
	if len(sums) == 0 {
		return nil // nothing measured: no summary
	}
	return writeSummaryMarkdown(w, r.Bench, r.Seed, sums)
}

// writeRoundsJSON writes a bench of rounds as one object: the runs, the
// summary over the rounds, the seed and, with verdicts, the baseline.
func writeRoundsJSON(w io.Writer, r Report) error {
	b := r.Bench
	doc := result.JSONRounds{Rounds: b.Rounds, Seed: r.Seed, IntervalMethod: IntervalMethod,
		Runs: jsonRuns(b.ParamKeys, r.Results), Summary: jsonSummaries(Summarize(b, r.Results))}
	if b.Rounds >= spec.MinVerdictRounds {
		doc.Baseline = spec.DisplayName(b.Baseline)
		doc.MinEffect = verdict.MinEffect
	}
	return writeIndented(w, doc)
}

func jsonRuns(paramKeys []string, results []result.Result) []result.JSONResult {
	out := result.JSONResults(paramKeys, results)
	for i := range out {
		out[i].Round = results[i].Round
	}
	return out
}

func writeSummaryMarkdown(w io.Writer, b *spec.Bench, seed uint64, sums []Summary) error {
	var sb strings.Builder
	verdicts := b.Rounds >= spec.MinVerdictRounds
	fmt.Fprintf(&sb, "\nOver %d rounds (--seed=%d)", b.Rounds, seed)
	h := []string{"scenario", "metric", "per round", "median"}
	if verdicts {
		fmt.Fprintf(&sb, "; ratio to the baseline %q with its %.0f %% interval (%s; level: the interval's exact confidence); %s", spec.DisplayName(b.Baseline), 100*verdict.ConfidenceLevel, IntervalMethod, verdictRule)
		h = append(h, "ratio", fmt.Sprintf("%.0f %% interval", 100*verdict.ConfidenceLevel), "level", "verdict")
	}
	sb.WriteString(":\n\n")
	writeMarkdownRow(&sb, h)
	sep := []string{"---", "---", "---:", "---:", "---:", "---", "---:", "---"}
	writeMarkdownRow(&sb, sep[:len(h)])
	for _, s := range sums {
		per := make([]string, len(s.Values))
		for i, v := range s.Values {
			per[i] = formatValue(s.Metric, v)
		}
		row := []string{s.Scenario, s.metricName(), strings.Join(per, ", "), formatValue(s.Metric, s.Median)}
		if verdicts {
			row = append(row, summaryVerdictCells(s)...)
		}
		writeMarkdownRow(&sb, row)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// verdictRule says when a verdict is better or worse, in the reports.
var verdictRule = fmt.Sprintf("verdict: better or worse when the interval excludes 1 and the ratio is beyond ±%.0f %%, else no difference; a paced scenario's records/s are judged as achieved ÷ target (capped at 1)", 100*verdict.MinEffect)

// metricName is the metric as the summary table shows it: a throughput
// judged against the scenario's target says so.
func (s Summary) metricName() string {
	if s.Target > 0 {
		return s.Metric.Name + " (÷ target " + strconv.FormatFloat(s.Target, 'g', -1, 64) + ")"
	}
	return s.Metric.Name
}

// summaryVerdictCells are ratio, interval, level and verdict.
func summaryVerdictCells(s Summary) []string {
	switch {
	case s.Baseline:
		return []string{"1", "", "", "baseline"}
	case s.Verdict == "":
		return []string{"", "", "", "too few rounds"}
	}
	iv := s.Interval
	return []string{f3(iv.Ratio), "[" + f3(iv.Low) + ", " + f3(iv.High) + "]", f1(100*iv.Level) + " %", s.Verdict}
}

func writeSummaryCSV(w io.Writer, b *spec.Bench, sums []Summary) error {
	h := []string{"scenario", "metric"}
	for i := 1; i <= b.Rounds; i++ {
		h = append(h, "round_"+strconv.Itoa(i))
	}
	h = append(h, "median", "ratio", "ci_low", "ci_high", "confidence", "verdict")
	rows := [][]string{h}
	for _, s := range sums {
		row := []string{s.Scenario, s.Metric.Key}
		for _, v := range s.Values {
			row = append(row, csvNumber(v))
		}
		row = append(row, csvNumber(s.Median))
		switch {
		case s.Baseline:
			row = append(row, "1", "", "", "", "baseline")
		case s.Verdict == "":
			row = append(row, "", "", "", "", "")
		default:
			iv := s.Interval
			row = append(row, csvNumber(iv.Ratio), csvNumber(iv.Low), csvNumber(iv.High), csvNumber(iv.Level), s.Verdict)
		}
		rows = append(rows, row)
	}
	return writeCSVRows(w, rows)
}

func jsonSummaries(sums []Summary) []result.JSONSummary {
	out := make([]result.JSONSummary, 0, len(sums))
	num := func(x float64) *float64 { v := result.Round(x, 6); return &v }
	for _, s := range sums {
		js := result.JSONSummary{Scenario: s.Scenario, Metric: s.Metric.Key, Median: result.Round(s.Median, 6), Baseline: s.Baseline}
		for _, v := range s.Values {
			if math.IsNaN(v) {
				js.Values = append(js.Values, nil)
				continue
			}
			js.Values = append(js.Values, num(v))
		}
		if s.Verdict != "" {
			iv := s.Interval
			js.Ratio, js.Low, js.High, js.Level, js.Verdict = num(iv.Ratio), num(iv.Low), num(iv.High), num(iv.Level), s.Verdict
			js.Target = s.Target
		}
		out = append(out, js)
	}
	return out
}

// formatValue shows a metric's value as the main table does: throughput in
// whole records/s, latency in ms to the microsecond.
func formatValue(m VerdictMetric, v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case m.HigherIsBetter:
		return f0(v)
	}
	return fmt.Sprintf("%.3f", v)
}

func csvNumber(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(result.Round(v, 6), 'f', -1, 64)
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }
