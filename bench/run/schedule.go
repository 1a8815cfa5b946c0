package run

import (
	"math/rand/v2"
	"strconv"

	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// scheduled is one run of a scenario: its index in Bench.Scenarios and its
// round, from 1.
type scheduled struct {
	scenario, round int
}

// schedule lists the runs: every scenario once per round. With one round
// the order is the file's; with more, each round is shuffled, so that drift
// over time (page cache, compaction, a noisy neighbour) spreads over all
// scenarios instead of passing for a configuration's effect. The same seed
// gives the same order on every machine and Go release: the shuffle is
// Fisher–Yates over PCG, both fully specified.
func schedule(scenarios, rounds int, seed uint64) []scheduled {
	out := make([]scheduled, 0, scenarios*rounds)
	for round := 1; round <= rounds; round++ {
		order := make([]int, scenarios)
		for i := range order {
			order[i] = i
		}
		if rounds > 1 {
			src := rand.NewPCG(seed, uint64(round))
			for i := len(order) - 1; i > 0; i-- {
				j := int(src.Uint64() % uint64(i+1))
				order[i], order[j] = order[j], order[i]
			}
		}
		for _, i := range order {
			out = append(out, scheduled{scenario: i, round: round})
		}
	}
	return out
}

// runName is how a run is shown while it runs: the scenario, and its round
// when there are several.
func runName(s spec.Scenario, round, rounds int) string {
	if rounds <= 1 {
		return s.DisplayName()
	}
	return s.DisplayName() + ", round " + strconv.Itoa(round) + " of " + strconv.Itoa(rounds)
}
