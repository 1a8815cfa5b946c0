package probes

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// TestLagView: records past the offset are summed over partitions, seconds
// are the age of the oldest of them, and a position at or past the end
// offset (read after the end offsets were listed) is no lag at all.
func TestLagView(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	pt := newProduceTimes()
	for off := int64(0); off < 100; off++ {
		pt.add(0, off, t0.Add(time.Duration(off)*10*time.Millisecond).UnixNano())
		pt.add(1, off, t0.Add(time.Duration(off)*10*time.Millisecond).UnixNano())
	}
	now := t0.Add(time.Second)

	var caughtUp lagView
	caughtUp.add(pt, 0, 100, 100)
	caughtUp.add(pt, 1, 100, 103) // position past the listed end
	if caughtUp.records != 0 || caughtUp.seconds(now) != 0 {
		t.Errorf("caught up: %d records, %v s; want 0, 0", caughtUp.records, caughtUp.seconds(now))
	}

	var behind lagView
	behind.add(pt, 0, 100, 90) // oldest unread record intended at +900 ms
	behind.add(pt, 1, 100, 95)
	if behind.records != 15 {
		t.Errorf("records = %d, want 15", behind.records)
	}
	if got := behind.seconds(now); got < 0.0999 || got > 0.1001 {
		t.Errorf("seconds = %v, want 0.1 (the record at offset 90 of partition 0)", got)
	}
}

// TestPositions: unknown until the first record, then the last value set;
// reset forgets everything.
func TestPositions(t *testing.T) {
	ps := newPositions()
	if _, ok := ps.get(0); ok {
		t.Fatal("position known before any record")
	}
	ps.set(0, 10)
	ps.set(0, 7) // a rebalance restarted the partition at its committed offset
	if n, ok := ps.get(0); !ok || n != 7 {
		t.Fatalf("get = %d, %v; want 7, true", n, ok)
	}
	ps.reset()
	if _, ok := ps.get(0); ok {
		t.Fatal("position kept after reset")
	}
}

// TestConsumerSetsPosition: processing a poll moves each partition's
// position past its last record, probe record or not.
func TestConsumerSetsPosition(t *testing.T) {
	p := newIdleProbe(t)
	c := &consumer{runDeps: p.runDeps()}
	rec := func(part int32, off int64) *kgo.Record {
		return &kgo.Record{Partition: part, Offset: off, Value: header(payload.Header{RunID: p.runID, Partition: part, Seq: uint64(off)}, 64)}
	}
	c.process(fetchOf(rec(0, 0), rec(0, 1), rec(2, 41), &kgo.Record{Partition: 2, Offset: 42, Value: []byte("foreign")}), time.Now())
	for part, want := range map[int32]int64{0: 2, 2: 43} {
		if got, ok := p.positions.get(part); !ok || got != want {
			t.Errorf("partition %d: position %d, %v; want %d", part, got, ok, want)
		}
	}
	if _, ok := p.positions.get(1); ok {
		t.Error("partition 1 has a position without a record")
	}
}
