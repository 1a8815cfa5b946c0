package tracker

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

const (
	own  uint64 = 0xAAAA
	old  uint64 = 0xBBBB // a previous process of the same probe
	old2 uint64 = 0xCCCC
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

type op int

const (
	opObserve op = iota
	opAck
	opFail
	opExpire
	opPending
	opReset
)

// event is one step of a scenario; fields not used by its op are ignored.
type event struct {
	op     op
	p      int32
	run    uint64
	seq    uint64
	hi     uint64        // opAck: seqs [seq, hi)
	at     time.Duration // since t0
	want   Result        // opObserve
	lost   uint64        // opExpire
	gaps   int           // opPending
	recs   uint64        // opPending
	failed uint64        // opPending
}

func obs(p int32, run, seq uint64, at time.Duration, want Result) event {
	return event{op: opObserve, p: p, run: run, seq: seq, at: at, want: want}
}

// acks: Kafka acknowledged seqs [lo, hi) of the own run on partition p.
func acks(p int32, lo, hi uint64, at time.Duration) event {
	return event{op: opAck, p: p, seq: lo, hi: hi, at: at}
}
func fail(p int32, seq uint64, at time.Duration) event {
	return event{op: opFail, p: p, seq: seq, at: at}
}
func expire(at time.Duration, lost uint64) event { return event{op: opExpire, at: at, lost: lost} }
func pending(gaps int, recs, failed uint64) event {
	return event{op: opPending, gaps: gaps, recs: recs, failed: failed}
}
func reset(p int32) event { return event{op: opReset, p: p} }

// in-order own-run record on partition 0 at t0.
func ok(seq uint64) event { return obs(0, own, seq, 0, InOrder) }

func TestTracker(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name   string
		cfg    Config
		events []event
	}{
		{"in order", Config{}, []event{
			acks(0, 0, 3, 0), ok(0), ok(1), ok(2), pending(0, 0, 0), expire(time.Hour, 0),
		}},
		{"duplicate", Config{}, []event{
			ok(0), ok(1), obs(0, own, 1, 0, Duplicate), obs(0, own, 0, 0, Duplicate), ok(2),
		}},
		{"acknowledged and never delivered: exactly one lost after the grace", Config{}, []event{
			acks(0, 0, 3, 0), ok(0), obs(0, own, 2, s, Gap), pending(1, 1, 0),
			expire(31*s-1, 0), expire(31*s, 1), expire(32*s, 0), expire(time.Hour, 0),
			obs(0, own, 1, time.Hour, Duplicate), // already declared lost
			pending(0, 0, 0), expire(2*time.Hour, 0),
		}},
		{"missing from the start is a gap", Config{}, []event{
			acks(0, 0, 3, 0), obs(0, own, 2, 0, Gap), pending(1, 2, 0), expire(30*s, 2),
		}},
		{"never acknowledged is never lost", Config{}, []event{
			ok(0), obs(0, own, 4, 0, Gap), pending(1, 3, 0), expire(time.Hour, 0),
			fail(0, 1, time.Hour), fail(0, 2, time.Hour), pending(1, 1, 2), expire(2*time.Hour, 0),
		}},
		{"grace runs from a late acknowledgement", Config{}, []event{
			ok(0), obs(0, own, 4, 0, Gap), // 1..3 not acknowledged yet
			acks(0, 2, 3, 20*s), pending(3, 3, 0), // [1,2) [2,3)* [3,4)
			acks(0, 3, 4, 25*s), pending(2, 3, 0), // [1,2) [2,4)*, acknowledged last at 25 s
			expire(50*s, 0), expire(55*s, 2),
			fail(0, 1, time.Minute), pending(0, 0, 1), expire(time.Hour, 0),
		}},
		{"out of order fills and splits a gap", Config{}, []event{
			acks(0, 0, 7, 0), ok(0), obs(0, own, 5, 0, Gap), pending(1, 4, 0),
			obs(0, own, 3, s, OutOfOrder), pending(2, 3, 0), // [1,3) [4,5)
			obs(0, own, 1, s, OutOfOrder), pending(2, 2, 0), // [2,3) [4,5)
			obs(0, own, 4, s, OutOfOrder), pending(1, 1, 0),
			obs(0, own, 3, s, Duplicate),
			obs(0, own, 2, s, OutOfOrder), pending(0, 0, 0),
			ok(6), expire(time.Hour, 0),
		}},
		{"gaps age independently", Config{GracePeriod: 10 * s}, []event{
			acks(0, 0, 6, 0), ok(0), obs(0, own, 2, 0, Gap), obs(0, own, 5, 5*s, Gap),
			expire(10*s, 1), pending(1, 2, 0), expire(15*s, 2), pending(0, 0, 0),
		}},
		{"failure before the gap forms", Config{}, []event{
			fail(0, 2, 0), acks(0, 0, 2, 0), ok(0), ok(1),
			obs(0, own, 3, 0, InOrder), // 2 was never written: no gap
			pending(0, 0, 1),
			acks(0, 3, 8, 0), fail(0, 5, 0), obs(0, own, 7, 0, Gap), pending(2, 2, 2), // [4,5) [6,7)
			obs(0, own, 2, s, OutOfOrder), // reported failed, arrived anyway
			obs(0, own, 2, s, Duplicate),
			obs(0, own, 5, 10*s, OutOfOrder), pending(2, 2, 0),
			expire(30*s, 2), pending(0, 0, 0),
		}},
		{"failure after the gap forms", Config{}, []event{
			ok(0), obs(0, own, 5, 0, Gap), pending(1, 4, 0),
			fail(0, 3, 0), pending(2, 3, 1), // [1,3) [4,5)
			fail(0, 1, 0), pending(2, 2, 2), // [2,3) [4,5)
			fail(0, 0, 0), // already received: ignored
			obs(0, own, 0, s, Duplicate), pending(2, 2, 2),
			acks(0, 2, 3, s), acks(0, 4, 5, s), expire(31*s, 2),
		}},
		{"a failure reported after the grace counts once, as failed", Config{}, []event{
			acks(0, 0, 1, 0), acks(0, 2, 3, 0), ok(0), obs(0, own, 2, 0, Gap),
			expire(30*s, 0), expire(119*s, 0), // delivery.timeout.ms 120 s: seq 1 is still in flight
			fail(0, 1, 120*s), pending(0, 0, 1), expire(121*s, 0), expire(time.Hour, 0),
			pending(0, 0, 0), // forgotten once the grace passed
		}},
		{"acknowledgement after consumption is ignored", Config{}, []event{
			ok(0), ok(1), acks(0, 0, 2, 0), pending(0, 0, 0), expire(time.Hour, 0),
		}},
		{"restart: another run gets a fresh baseline", Config{}, []event{
			obs(0, old, 500, 0, OtherRun), pending(0, 0, 0),
			obs(0, old, 501, 0, InOrder), obs(0, old, 501, 0, Duplicate),
			obs(0, old, 504, 0, Gap), obs(0, old, 503, 0, OutOfOrder), pending(1, 1, 0),
			obs(0, old2, 10, 0, OtherRun), pending(0, 0, 0), // old gaps dropped, not lost
			obs(0, old2, 11, 0, InOrder), obs(0, old2, 13, 0, Gap), pending(1, 1, 0),
			expire(30*s, 0), pending(0, 0, 0), // another run's gaps: dropped, never lost
			ok(0), ok(1), expire(time.Hour, 0),
		}},
		{"own run after another run", Config{}, []event{
			obs(0, old, 100, 0, OtherRun), obs(0, old, 103, 0, Gap), pending(1, 2, 0),
			ok(0), pending(0, 0, 0), expire(time.Hour, 0), // dropped, not lost
			obs(0, old, 104, 0, OtherRun), // stale foreign record: ignored
			ok(1), obs(0, old, 1000, 0, OtherRun), ok(2), pending(0, 0, 0),
		}},
		{"own run after another run starts at seq 0", Config{}, []event{
			obs(0, old, 7, 0, OtherRun), obs(0, own, 3, 0, Gap), pending(1, 3, 0),
		}},
		{"partitions are independent", Config{}, []event{
			acks(0, 0, 4, 0), acks(1, 0, 6, 0),
			obs(0, own, 0, 0, InOrder), obs(1, own, 0, 0, InOrder),
			obs(1, own, 2, 0, Gap), obs(0, own, 1, 0, InOrder),
			obs(2, old, 9, 0, OtherRun), obs(2, old, 10, 0, InOrder),
			obs(1, own, 1, 0, OutOfOrder), obs(0, own, 1, 0, Duplicate),
			obs(0, own, 3, 0, Gap), fail(1, 4, 0), obs(1, own, 5, 0, Gap),
			pending(2, 2, 1), expire(30*s, 2),
		}},
		{"reset forgets a partition without loss", Config{}, []event{
			acks(0, 0, 6, 0), acks(1, 0, 6, 0),
			obs(0, own, 5, 0, Gap), obs(1, own, 5, 0, Gap), reset(0), pending(1, 5, 0),
			expire(time.Hour, 5), ok(0),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, New(own, tt.cfg), tt.events)
		})
	}
}

func run(t *testing.T, tr *Tracker, events []event) {
	t.Helper()
	for i, e := range events {
		switch e.op {
		case opObserve:
			if got := tr.Observe(e.p, e.run, e.seq, t0.Add(e.at)); got != e.want {
				t.Fatalf("event %d: Observe(p%d, %#x, %d) = %v, want %v", i, e.p, e.run, e.seq, got, e.want)
			}
		case opAck:
			for seq := e.seq; seq < e.hi; seq++ {
				tr.Acked(e.p, seq, t0.Add(e.at))
			}
		case opFail:
			tr.WillNotArrive(e.p, e.seq, e.seq+1, t0.Add(e.at))
		case opExpire:
			if got := tr.Expire(t0.Add(e.at)); got != e.lost {
				t.Fatalf("event %d: Expire(+%v) = %d, want %d", i, e.at, got, e.lost)
			}
		case opPending:
			if g, r, f := tr.Pending(); g != e.gaps || r != e.recs || f != e.failed {
				t.Fatalf("event %d: Pending = (%d, %d, %d), want (%d, %d, %d)", i, g, r, f, e.gaps, e.recs, e.failed)
			}
		case opReset:
			tr.Reset(e.p)
		}
	}
}

// TestInterleavedFailures: 10,000 failures interleaved with successes in one
// partition are 0 lost, whether the failures are reported before the
// consumer reads past them, or long after the grace period (in flight for
// up to delivery.timeout.ms); and nothing is left pending.
func TestInterleavedFailures(t *testing.T) {
	const n = 10_000
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("failures reported late=%v", late), func(t *testing.T) {
			tr := New(own, Config{})
			failAll := func(at time.Time) {
				for seq := uint64(0); seq < 2*n; seq += 2 {
					tr.WillNotArrive(0, seq, seq+1, at)
				}
			}
			if !late {
				failAll(t0)
			}
			for seq := uint64(1); seq < 2*n; seq += 2 {
				tr.Acked(0, seq, t0)
				tr.Observe(0, own, seq, t0)
			}
			if lost := tr.Expire(t0.Add(time.Hour)); lost != 0 {
				t.Fatalf("lost %d records after the grace, want 0", lost)
			}
			if late {
				failAll(t0.Add(2 * time.Hour))
			}
			if g, r, _ := tr.Pending(); g != 0 || r != 0 {
				t.Fatalf("Pending = %d gaps, %d records; want none", g, r)
			}
			if lost := tr.Expire(t0.Add(3 * time.Hour)); lost != 0 {
				t.Fatalf("lost %d records, want 0", lost)
			}
			if _, _, f := tr.Pending(); f != 0 {
				t.Fatalf("%d failed records still remembered after the grace", f)
			}
		})
	}
}

// TestAckedSpansStayCompact: in-order acknowledgements ahead of a lagging
// consumer are one range, however many.
func TestAckedSpansStayCompact(t *testing.T) {
	tr := New(own, Config{})
	for seq := range uint64(100_000) {
		tr.Acked(0, seq, t0)
	}
	for seq := range uint64(50_000) {
		tr.Observe(0, own, seq, t0)
	}
	if n := len(tr.parts[0].own.acked); n != 1 {
		t.Fatalf("%d acknowledged ranges, want 1", n)
	}
	if c := tr.parts[0].own.acked.count(); c != 50_000 {
		t.Fatalf("%d acknowledged records not consumed, want 50000", c)
	}
}

func TestConcurrent(t *testing.T) {
	tr := New(own, Config{})
	var wg sync.WaitGroup
	for p := range int32(4) {
		wg.Go(func() {
			for seq := range uint64(1000) {
				tr.Acked(p, seq, t0)
			}
		})
		wg.Go(func() {
			for seq := range uint64(1000) {
				if r := tr.Observe(p, own, seq, t0); r != InOrder {
					panic(fmt.Sprintf("p%d seq %d: %v", p, seq, r))
				}
			}
		})
	}
	wg.Go(func() {
		for range 100 {
			tr.Expire(t0)
			tr.Pending()
		}
	})
	wg.Wait()
	if g, r, f := tr.Pending(); g != 0 || r != 0 || f != 0 {
		t.Fatalf("Pending = (%d, %d, %d)", g, r, f)
	}
}

// TestAbortedTransactions: transactions of 10 records alternate committed
// and aborted on one partition. A read_committed consumer reads the
// committed ones only: nothing lost, nothing pending after the grace. One
// that reads an aborted record (a broken read_committed) gets Aborted for
// it, once; a read_uncommitted consumer, which reads every record before
// its transaction ends, gets no Aborted at all.
func TestAbortedTransactions(t *testing.T) {
	const txns, size = 101, 10 // the last committed, so the consumer reads past every abort
	aborted := func(seq uint64) bool { return seq/size%2 == 1 }
	run := func(t *testing.T, read func(seq uint64) bool, abortFirst bool) (tr *Tracker, results map[Result]int) {
		tr, results = New(own, Config{}), map[Result]int{}
		for txn := range uint64(txns) {
			lo, hi := txn*size, txn*size+size
			for seq := lo; seq < hi; seq++ {
				tr.Acked(0, seq, t0)
			}
			end := func() {
				if aborted(lo) {
					tr.Aborted(0, lo, hi, t0)
				}
			}
			if abortFirst {
				end()
			}
			for seq := lo; seq < hi; seq++ {
				if read(seq) {
					results[tr.Observe(0, own, seq, t0)]++
				}
			}
			if !abortFirst {
				end()
			}
		}
		if lost := tr.Expire(t0.Add(time.Hour)); lost != 0 {
			t.Fatalf("lost %d records, want 0", lost)
		}
		return tr, results
	}
	t.Run("read_committed", func(t *testing.T) {
		tr, results := run(t, func(seq uint64) bool { return !aborted(seq) }, true)
		if results[Aborted] != 0 || results[Duplicate] != 0 || results[OutOfOrder] != 0 {
			t.Fatalf("results %v, want in order only", results)
		}
		if g, r, f := tr.Pending(); g != 0 || r != 0 || f != 0 {
			t.Fatalf("Pending = (%d, %d, %d) after the grace, want none", g, r, f)
		}
		if n := len(tr.parts[0].own.aborted); n != 0 {
			t.Fatalf("%d aborted ranges remembered after the grace, want none", n)
		}
	})
	t.Run("aborted records read", func(t *testing.T) {
		_, results := run(t, func(uint64) bool { return true }, true)
		if results[Aborted] != txns/2*size {
			t.Fatalf("results %v, want %d aborted", results, txns/2*size)
		}
	})
	t.Run("read_uncommitted", func(t *testing.T) {
		_, results := run(t, func(uint64) bool { return true }, false)
		if results[InOrder] != txns*size {
			t.Fatalf("results %v, want %d in order", results, txns*size)
		}
	})
}

func TestResultString(t *testing.T) {
	want := map[Result]string{InOrder: "in_order", Duplicate: "duplicate", OutOfOrder: "out_of_order", OtherRun: "other_run", Gap: "gap", Aborted: "aborted", Result(99): "unknown"}
	for r, s := range want {
		if r.String() != s {
			t.Errorf("%d.String() = %q, want %q", int(r), r.String(), s)
		}
	}
}

func BenchmarkAckAndObserveInOrder(b *testing.B) {
	tr := New(own, Config{})
	now := time.Now()
	var seq uint64
	b.ReportAllocs()
	for b.Loop() {
		tr.Acked(int32(seq&7), seq>>3, now)
		tr.Observe(int32(seq&7), own, seq>>3, now)
		seq++
	}
}
