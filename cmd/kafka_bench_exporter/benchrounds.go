package main

import (
	"math/rand/v2"

	"github.com/alecthomas/kingpin/v2"
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

// pick returns --seed, or a random seed.
func (rf *roundFlags) pick() uint64 {
	if rf.setSeed {
		return rf.seed
	}
	return rand.Uint64()
}
