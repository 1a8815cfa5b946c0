package main

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"

	"github.com/alecthomas/kingpin/v2"

	"github.com/kafka-bench/kafka_bench_exporter/bench/brokercfg"
	benchrun "github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
)

// roundFlags are the bench flags of rounds and configuration experiments.
type roundFlags struct {
	seed    uint64
	setSeed bool
	dryRun  bool
}

func addRoundFlags(cmd *kingpin.CmdClause, rf *roundFlags) {
	cmd.Flag("seed", "Seed of the shuffled scenario order of each round (rounds > 1); printed at the start, so a sweep's order can be repeated. Default: random.").IsSetByUser(&rf.setSeed).Uint64Var(&rf.seed)
	cmd.Flag("dry-run", "Print the plan (runs in order, broker and topic configurations to change and how they are restored) and exit without changing anything.").BoolVar(&rf.dryRun)
}

// pickSeed returns --seed, or a random seed, printed when it matters.
func (rf *roundFlags) pickSeed(b *spec.Bench, stderr io.Writer) uint64 {
	if !rf.setSeed {
		rf.seed = rand.Uint64()
	}
	if b.Rounds > 1 {
		say(stderr, "%s %s: %d rounds, scenario order shuffled with --seed=%d\n", program, benchCommand, b.Rounds, rf.seed)
	}
	return rf.seed
}

// plan runs --dry-run: exit 0 with the plan on stdout, 2 for a setting the
// bench refuses, 1 when the cluster cannot be read.
func plan(ctx context.Context, r *benchrun.Runner, b *spec.Bench, stdout, stderr io.Writer) int {
	if err := r.Plan(ctx, b, stdout); err != nil {
		say(stderr, "%s %s: %v\n", program, benchCommand, err)
		return runErrCode(err)
	}
	return exitOK
}

// runErrCode is the exit code of an error that stopped the bench: a setting
// refused before anything ran is bad input.
func runErrCode(err error) int {
	if _, ok := errors.AsType[*brokercfg.RefusedError](err); ok {
		return exitBadInput
	}
	return exitFailed
}
