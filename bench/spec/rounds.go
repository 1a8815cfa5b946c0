package spec

import (
	"fmt"
	"strings"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

const (
	// MaxRounds bounds rounds: the exact rank statistics of the verdict
	// grow with rounds² (under 1 MB a verdict at 100), and more rounds
	// than this buy nothing.
	MaxRounds = 100
	// MinVerdictRounds is the fewest rounds that give a verdict.
	MinVerdictRounds = 3
	// baselineName is the scenario compared against when the file names
	// no baseline.
	baselineName = "baseline"
)

// roundsAndBaseline resolves `baseline` (default: the scenario named
// "baseline", else the first one) and adds the round column.
func (f *File) roundsAndBaseline(b *Bench) error {
	if f.Rounds > 1 {
		b.ParamKeys = append(b.ParamKeys, "round")
	}
	names := make([]string, len(b.Scenarios))
	for i, s := range b.Scenarios {
		names[i] = s.DisplayName()
	}
	if f.Baseline != "" {
		if f.Rounds < MinVerdictRounds {
			return config.FieldError("", "baseline", f.Baseline, fmt.Sprintf("verdicts need rounds >= %d (rounds = %d)", MinVerdictRounds, f.Rounds))
		}
		for _, s := range b.Scenarios {
			if s.DisplayName() == f.Baseline {
				b.Baseline = s.Name
				return nil
			}
		}
		return config.FieldError("", "baseline", f.Baseline, "no such scenario (scenarios: "+strings.Join(names, ", ")+")")
	}
	if f.Rounds < MinVerdictRounds {
		return nil
	}
	b.Baseline = b.Scenarios[0].Name
	for _, s := range b.Scenarios {
		if s.Name == baselineName {
			b.Baseline = s.Name
		}
	}
	return nil
}
