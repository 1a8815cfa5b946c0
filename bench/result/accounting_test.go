package result

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// An Adder adds exactly what ByRun.Add adds, and says the same of each
// record (new or not), over records of interleaved runs and partitions
// (negative and past its cache too), repeats, and sets changed beside it.
func TestAdderAddsAsByRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	plain, cached := ByRun{}, ByRun{}
	a := NewAdder(cached)
	runs := []uint64{0, 7, 7 << 40}
	parts := []int32{0, 1, 5, -1, maxCachedPartition, maxCachedPartition + 3}
	seqs := map[string]uint64{}
	for i := range 200_000 {
		run, part := runs[rng.IntN(len(runs))], parts[rng.IntN(len(parts))]
		if rng.IntN(4) != 0 { // mostly long stretches of one run and partition
			run, part = runs[(i/5000)%len(runs)], parts[(i/1000)%len(parts)]
		}
		key := fmt.Sprint(run, part)
		seq := seqs[key]
		switch rng.IntN(10) {
		case 0: // a repeat (a duplicate read)
			seq = uint64(rng.IntN(int(seq) + 1))
		case 1: // a gap
			seq += uint64(rng.IntN(5))
		}
		seqs[key] = max(seqs[key], seq+1)
		id := probes.RecordID{Run: run, Partition: part, Seq: seq}
		if want, got := plain.Add(id), a.Add(id); got != want {
			t.Fatalf("add %d of %+v: Adder says new=%v, ByRun %v", i, id, got, want)
		}
		if i%50_000 == 0 { // a transaction's records taken out beside it
			lo := uint64(rng.IntN(int(seqs[key]) + 1))
			if x, y := plain.At(run, part).RemoveRange(lo, lo+10), cached.At(run, part).RemoveRange(lo, lo+10); x != y {
				t.Fatalf("RemoveRange removed %d and %d", x, y)
			}
		}
	}
	for run, ps := range plain {
		for part, r := range ps {
			c := cached[run][part]
			if c == nil || fmt.Sprint(c.List()) != fmt.Sprint(r.List()) {
				t.Fatalf("run %d partition %d: Adder's set %v, ByRun's %v", run, part, c, r.List())
			}
		}
	}
	if len(cached) != len(plain) {
		t.Fatalf("Adder added %d runs, ByRun %d", len(cached), len(plain))
	}
}
