package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/bench/verdict"
)

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
	if err := Write(&md, FormatMarkdown, Report{ParamKeys: b.ParamKeys, Results: results, Bench: b, Seed: 7}); err != nil {
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
	if err := Write(&cs, FormatCSV, Report{ParamKeys: b.ParamKeys, Results: results, Bench: b, Seed: 7}); err != nil {
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
	if err := Write(&js, FormatJSON, Report{ParamKeys: b.ParamKeys, Results: results, Bench: b, Seed: 7}); err != nil {
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

// TestWriteRoundsWithoutVerdicts: two rounds have medians, no baseline.
func TestWriteRoundsWithoutVerdicts(t *testing.T) {
	b, results := roundsBench(t)
	b.Rounds, b.Baseline = 2, ""
	var js, md bytes.Buffer
	if err := Write(&js, FormatJSON, Report{ParamKeys: b.ParamKeys, Results: results[:4], Bench: b, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&md, FormatMarkdown, Report{ParamKeys: b.ParamKeys, Results: results[:4], Bench: b, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), `"baseline"`) || strings.Contains(js.String(), `"verdict"`) {
		t.Errorf("JSON of 2 rounds has a baseline or verdicts:\n%s", js.String())
	}
	if !strings.Contains(md.String(), "| scenario | metric | per round | median |\n") || strings.Contains(md.String(), "verdict") {
		t.Errorf("markdown of 2 rounds:\n%s", md.String())
	}
}
