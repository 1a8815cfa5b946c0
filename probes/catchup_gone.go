package probes

import (
	"sort"
	"sync"
)

// maxGoneRanges bounds the ranges a goneLog keeps; past it a run's gaps
// can no longer be told from loss, and its records count as unchecked.
const maxGoneRanges = 1 << 16

// seqRange is the sequence numbers [lo, hi) of one partition.
type seqRange struct{ lo, hi uint64 }

// goneLog keeps, per run and partition, the sequence numbers that are never
// to arrive: records the producer gave up on (WillNotArrive) and those of
// transactions that were aborted or ended with an unknown outcome. A
// catch-up reader (catchup.go) excuses its gaps with them: the steady
// consumer's tracker forgets them once it read past them, a window hours
// back still needs them.
type goneLog struct {
	mu       sync.Mutex
	runs     map[uint64]map[int32][]seqRange // sorted by lo, merged
	n        int
	overflow map[uint64]bool // runs with ranges left out (maxGoneRanges)
	own      map[uint64]bool // the runs this process produced
}

func newGoneLog() *goneLog {
	return &goneLog{runs: map[uint64]map[int32][]seqRange{}, overflow: map[uint64]bool{}, own: map[uint64]bool{}}
}

// producing: a producer of this process writes run, whose records given up
// on are all put down here; nil keeps nothing.
func (g *goneLog) producing(run uint64) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.own[run] = true
}

// ownRun says run's records given up on are known: this process produced it.
func (g *goneLog) ownRun(run uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.own[run]
}

// add puts down [lo, hi) of partition in run as never to arrive; nil keeps
// nothing.
func (g *goneLog) add(run uint64, partition int32, lo, hi uint64) {
	if g == nil || hi <= lo {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	parts := g.runs[run]
	if parts == nil {
		parts = map[int32][]seqRange{}
		g.runs[run] = parts
	}
	rs := parts[partition]
	// The producer reports in order almost always: merge with the last.
	if k := len(rs); k > 0 && rs[k-1].lo <= lo && lo <= rs[k-1].hi {
		rs[k-1].hi = max(rs[k-1].hi, hi)
		return
	}
	if g.n >= maxGoneRanges {
		g.overflow[run] = true
		return
	}
	i := sort.Search(len(rs), func(i int) bool { return rs[i].lo > lo })
	rs = append(rs, seqRange{})
	copy(rs[i+1:], rs[i:])
	rs[i] = seqRange{lo, hi}
	parts[partition] = rs
	g.n++
}

// uncovered counts the sequence numbers of [lo, hi) that no range of run
// and partition covers; complete is false when ranges of run were left out,
// so a gap cannot be told from loss.
func (g *goneLog) uncovered(run uint64, partition int32, lo, hi uint64) (n uint64, complete bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.overflow[run] {
		return 0, false
	}
	at := lo
	for _, r := range g.runs[run][partition] {
		if r.hi <= at {
			continue
		}
		if r.lo >= hi {
			break
		}
		if r.lo > at {
			n += r.lo - at
		}
		at = max(at, r.hi)
		if at >= hi {
			return n, true
		}
	}
	if at < hi {
		n += hi - at
	}
	return n, true
}
