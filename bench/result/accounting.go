package result

import (
	"fmt"
	"strconv"

	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// ByPart is a set of sequence numbers of one run id, by partition.
type ByPart map[int32]*tracker.Ranges

// ByRun is ByPart by run id.
type ByRun map[uint64]ByPart

// At is run's set of partition part, created when missing.
func (b ByRun) At(run uint64, part int32) *tracker.Ranges {
	parts := b[run]
	if parts == nil {
		parts = ByPart{}
		b[run] = parts
	}
	r := parts[part]
	if r == nil {
		r = &tracker.Ranges{}
		parts[part] = r
	}
	return r
}

// Clone is a deep copy, so a snapshot taken under a lock stays as it was
// while the recorder keeps adding.
func (b ByRun) Clone() ByRun {
	c := ByRun{}
	for run, parts := range b {
		for part, r := range parts {
			for _, g := range r.List() {
				c.At(run, part).AddRange(g[0], g[1])
			}
		}
	}
	return c
}

// Add inserts id and reports whether it was new.
func (b ByRun) Add(id probes.RecordID) bool { return b.At(id.Run, id.Partition).Add(id.Seq) }

// Adder adds records to one ByRun, keeping the sets of the run it added to
// last by partition: a process adds the records of one run after another
// (its producer's, its consumer's of each worker), and two map lookups per
// record, by run and by partition, were most of the cost of an add. The
// sets are the ByRun's own: whatever else changes them (RemoveRange on At)
// the Adder sees. Only for a ByRun none deletes from.
type Adder struct {
	to    ByRun
	run   uint64
	parts []*tracker.Ranges // of run, by partition; nil until one is added
}

// NewAdder adds to b.
func NewAdder(b ByRun) *Adder { return &Adder{to: b} }

// maxCachedPartition bounds the partitions an Adder keeps by index.
const maxCachedPartition = 1 << 16

// Add is b.Add(id): whether id was not in the set before.
func (a *Adder) Add(id probes.RecordID) bool {
	if id.Run == a.run && id.Partition >= 0 && int(id.Partition) < len(a.parts) {
		if r := a.parts[id.Partition]; r != nil {
			return r.Add(id.Seq)
		}
	}
	r := a.to.At(id.Run, id.Partition)
	if id.Run != a.run || a.parts == nil {
		a.run = id.Run
		a.parts = a.parts[:0]
	}
	if id.Partition >= 0 && id.Partition < maxCachedPartition {
		for int(id.Partition) >= len(a.parts) {
			a.parts = append(a.parts, nil)
		}
		a.parts[id.Partition] = r
	}
	return r.Add(id.Seq)
}

// Accounting is which records one process's producer had acknowledged and
// which its consumer read, by run and partition, warm-up included: what
// "bench merge" needs to count loss and duplicates exactly over workers
// whose consumers share one group (each reads a part of every worker's
// records).
type Accounting struct {
	Acked, Seen ByRun
	// Duplicates are reads of a record this consumer had read before.
	Duplicates int64
	// Reads are all records the consumer read, of any run id or none: what
	// it fetched, so a sweep's fetch traffic shows against the topic's.
	Reads int64
}

// NewAccounting is an empty Accounting ready to record into.
func NewAccounting() *Accounting { return &Accounting{Acked: ByRun{}, Seen: ByRun{}} }

// Tally counts over the accountings of all processes of one run: lost are
// records a producer had acknowledged that no consumer read; duplicates
// are every read beyond the first of a record, within one consumer or by
// several (a redelivery after a rebalance is a duplicate delivery).
func Tally(accts []*Accounting) (lost, duplicates int64) {
	union, reads := ByRun{}, map[uint64]uint64{}
	for _, a := range accts {
		duplicates += a.Duplicates
		for run, parts := range a.Seen {
			for part, r := range parts {
				reads[run] += r.Count()
				u := union.At(run, part)
				for _, g := range r.List() {
					u.AddRange(g[0], g[1])
				}
			}
		}
	}
	for run, parts := range union {
		n := uint64(0)
		for _, r := range parts {
			n += r.Count()
		}
		duplicates += int64(reads[run] - n)
	}
	for _, a := range accts {
		for run, parts := range a.Acked {
			for part, r := range parts {
				lost += int64(r.Count() - r.Intersect(union.At(run, part)))
			}
		}
	}
	return lost, duplicates
}

// AccountingJSON is a's form in a worker's JSON result; nil without one.
func AccountingJSON(a *Accounting) *JSONAccounting {
	if a == nil {
		return nil
	}
	return &JSONAccounting{Acked: rangesJSON(a.Acked), Seen: rangesJSON(a.Seen), Duplicates: a.Duplicates, Reads: a.Reads}
}

func rangesJSON(b ByRun) map[string]map[string][][2]uint64 {
	out := map[string]map[string][][2]uint64{}
	for run, parts := range b {
		m := map[string][][2]uint64{}
		for part, r := range parts {
			m[strconv.Itoa(int(part))] = r.List()
		}
		out[strconv.FormatUint(run, 16)] = m
	}
	return out
}

func (j *JSONAccounting) accounting() (*Accounting, error) {
	a := &Accounting{Duplicates: j.Duplicates, Reads: j.Reads}
	var err error
	if a.Acked, err = rangesOf(j.Acked); err != nil {
		return nil, fmt.Errorf("accounting: acked: %w", err)
	}
	if a.Seen, err = rangesOf(j.Seen); err != nil {
		return nil, fmt.Errorf("accounting: seen: %w", err)
	}
	return a, nil
}

func rangesOf(m map[string]map[string][][2]uint64) (ByRun, error) {
	b := ByRun{}
	for runHex, parts := range m {
		run, err := strconv.ParseUint(runHex, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("run id %q: not hex", runHex)
		}
		for p, ranges := range parts {
			part, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("partition %q: not a number", p)
			}
			for _, g := range ranges {
				b.At(run, int32(part)).AddRange(g[0], g[1])
			}
		}
	}
	return b, nil
}
