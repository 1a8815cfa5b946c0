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
	opSkip
	opExpire
	opPending
	opReset
)

// event is one step of a scenario; fields not used by its op are ignored.
type event struct {
	op   op
	p    int32
	run  uint64
	seq  uint64
	at   time.Duration // since t0
	want Result        // opObserve
	lost uint64        // opExpire
	gaps int           // opPending
	recs uint64        // opPending
}

func obs(p int32, run, seq uint64, at time.Duration, want Result) event {
	return event{op: opObserve, p: p, run: run, seq: seq, at: at, want: want}
}
func skip(p int32, seq uint64) event             { return event{op: opSkip, p: p, seq: seq} }
func expire(at time.Duration, lost uint64) event { return event{op: opExpire, at: at, lost: lost} }
func pending(gaps int, recs uint64) event        { return event{op: opPending, gaps: gaps, recs: recs} }
func reset(p int32) event                        { return event{op: opReset, p: p} }

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
			ok(0), ok(1), ok(2), pending(0, 0), expire(time.Hour, 0),
		}},
		{"duplicate", Config{}, []event{
			ok(0), ok(1), obs(0, own, 1, 0, Duplicate), obs(0, own, 0, 0, Duplicate), ok(2),
		}},
		{"missing from the start is a gap", Config{}, []event{
			obs(0, own, 2, 0, Gap), pending(1, 2), expire(30*s, 2),
		}},
		{"out of order fills and splits a gap", Config{}, []event{
			ok(0), obs(0, own, 5, 0, Gap), pending(1, 4),
			obs(0, own, 3, s, OutOfOrder), pending(2, 3), // [1,3) [4,5)
			obs(0, own, 1, s, OutOfOrder), pending(2, 2), // [2,3) [4,5)
			obs(0, own, 4, s, OutOfOrder), pending(1, 1),
			obs(0, own, 3, s, Duplicate),
			obs(0, own, 2, s, OutOfOrder), pending(0, 0),
			ok(6), expire(time.Hour, 0),
		}},
		{"gap expires to loss exactly once", Config{}, []event{
			ok(0), obs(0, own, 4, 0, Gap),
			expire(30*s-1, 0), expire(30*s, 3), expire(31*s, 0), expire(time.Hour, 0),
			obs(0, own, 2, time.Hour, Duplicate), // already declared lost
			pending(0, 0), expire(2*time.Hour, 0),
		}},
		{"gaps age independently", Config{GracePeriod: 10 * s}, []event{
			ok(0), obs(0, own, 2, 0, Gap), obs(0, own, 5, 5*s, Gap),
			expire(10*s, 1), pending(1, 2), expire(15*s, 2), pending(0, 0),
		}},
		{"skip before the gap forms", Config{}, []event{
			skip(0, 2), ok(0), ok(1),
			obs(0, own, 3, 0, InOrder), // 2 was never sent: no gap
			pending(0, 0),
			skip(0, 5), obs(0, own, 7, 0, Gap), pending(2, 2), // [4,5) [6,7)
			obs(0, own, 2, s, OutOfOrder), // reported failed, arrived anyway
			obs(0, own, 2, s, Duplicate),
			expire(30*s, 2),
			obs(0, own, 5, time.Hour, OutOfOrder),
		}},
		{"skip after the gap forms", Config{}, []event{
			ok(0), obs(0, own, 5, 0, Gap), pending(1, 4),
			skip(0, 3), pending(2, 3), // [1,3) [4,5)
			skip(0, 1), pending(2, 2), // [2,3) [4,5)
			skip(0, 0), // already received: ignored
			obs(0, own, 0, s, Duplicate),
			expire(30*s, 2), skip(0, 2), // already lost: ignored
			obs(0, own, 2, time.Hour, Duplicate),
		}},
		{"skip set is bounded", Config{MaxSkips: 2}, []event{
			skip(0, 1), skip(0, 2), skip(0, 3), // 1 forgotten
			ok(0), obs(0, own, 4, 0, Gap), pending(1, 1), expire(30*s, 1),
		}},
		{"restart: another run gets a fresh baseline", Config{}, []event{
			obs(0, old, 500, 0, OtherRun), pending(0, 0),
			obs(0, old, 501, 0, InOrder), obs(0, old, 501, 0, Duplicate),
			obs(0, old, 504, 0, Gap), obs(0, old, 503, 0, OutOfOrder), pending(1, 1),
			obs(0, old2, 10, 0, OtherRun), pending(0, 0), // old gaps dropped, not lost
			obs(0, old2, 11, 0, InOrder), obs(0, old2, 13, 0, Gap), pending(1, 1),
			expire(30*s, 1), // another run's gaps expire like the own run's
			ok(0), ok(1), expire(time.Hour, 0),
		}},
		{"own run after another run", Config{}, []event{
			obs(0, old, 100, 0, OtherRun), obs(0, old, 103, 0, Gap), pending(1, 2),
			ok(0), pending(0, 0), expire(time.Hour, 0), // dropped, not lost
			obs(0, old, 104, 0, OtherRun), // stale foreign record: ignored
			ok(1), obs(0, old, 1000, 0, OtherRun), ok(2), pending(0, 0),
		}},
		{"own run after another run starts at seq 0", Config{}, []event{
			obs(0, old, 7, 0, OtherRun), obs(0, own, 3, 0, Gap), pending(1, 3),
		}},
		{"MaxGaps overflow declares the oldest gap lost", Config{MaxGaps: 2}, []event{
			obs(0, own, 1, 0, Gap), obs(0, own, 3, 0, Gap), pending(2, 2),
			obs(0, own, 5, 0, Gap), pending(2, 2), // {0} lost
			expire(s, 1), expire(2*s, 0),
			obs(0, own, 0, 2*s, Duplicate),
			obs(0, own, 2, 2*s, OutOfOrder),
		}},
		{"MaxGaps overflow on split", Config{MaxGaps: 1}, []event{
			ok(0), obs(0, own, 10, 0, Gap), pending(1, 9),
			obs(0, own, 5, 0, OutOfOrder), pending(1, 4), // [1,5) lost, [6,10) kept
			expire(s, 4), expire(30*s, 4),
		}},
		{"partitions are independent", Config{}, []event{
			obs(0, own, 0, 0, InOrder), obs(1, own, 0, 0, InOrder),
			obs(1, own, 2, 0, Gap), obs(0, own, 1, 0, InOrder),
			obs(2, old, 9, 0, OtherRun), obs(2, old, 10, 0, InOrder),
			obs(1, own, 1, 0, OutOfOrder), obs(0, own, 1, 0, Duplicate),
			obs(0, own, 3, 0, Gap), skip(1, 4), obs(1, own, 5, 0, Gap),
			pending(2, 2), expire(30*s, 2),
		}},
		{"reset forgets a partition without loss", Config{}, []event{
			obs(0, own, 5, 0, Gap), obs(1, own, 5, 0, Gap), reset(0), pending(1, 5),
			expire(time.Hour, 5), ok(0),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := New(own, tt.cfg)
			for i, e := range tt.events {
				switch e.op {
				case opObserve:
					if got := tr.Observe(e.p, e.run, e.seq, t0.Add(e.at)); got != e.want {
						t.Fatalf("event %d: Observe(p%d, %#x, %d) = %v, want %v", i, e.p, e.run, e.seq, got, e.want)
					}
				case opSkip:
					tr.Skip(e.p, e.seq, t0.Add(e.at))
				case opExpire:
					if got := tr.Expire(t0.Add(e.at)); got != e.lost {
						t.Fatalf("event %d: Expire(+%v) = %d, want %d", i, e.at, got, e.lost)
					}
				case opPending:
					if g, r := tr.Pending(); g != e.gaps || r != e.recs {
						t.Fatalf("event %d: Pending = (%d, %d), want (%d, %d)", i, g, r, e.gaps, e.recs)
					}
				case opReset:
					tr.Reset(e.p)
				}
			}
		})
	}
}

// TestBoundedMemory feeds a pathological pattern (every other record missing)
// and checks pending state never exceeds the configured bounds.
func TestBoundedMemory(t *testing.T) {
	tr := New(own, Config{MaxGaps: 16, MaxSkips: 8})
	for seq := uint64(1); seq < 10_000; seq += 2 {
		tr.Observe(0, own, seq, t0)
		tr.Skip(0, seq+1000, t0)
		if g, _ := tr.Pending(); g > 16 {
			t.Fatalf("after seq %d: %d pending gaps, max 16", seq, g)
		}
	}
	if n := len(tr.parts[0].skips); n > 8 {
		t.Fatalf("%d skips retained, max 8", n)
	}
	lost := tr.Expire(t0)
	lost += tr.Expire(t0.Add(time.Hour))
	// Every even seq below 9999 is missing; the skips name odd seqs that
	// did arrive, so none is excluded. Overflow and expiry together must
	// count each missing record exactly once.
	if lost != 5000 {
		t.Fatalf("lost = %d, want 5000", lost)
	}
}

func TestConcurrent(t *testing.T) {
	tr := New(own, Config{})
	var wg sync.WaitGroup
	for p := range int32(4) {
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
	if g, r := tr.Pending(); g != 0 || r != 0 {
		t.Fatalf("Pending = (%d, %d)", g, r)
	}
}

func TestResultString(t *testing.T) {
	want := map[Result]string{InOrder: "in_order", Duplicate: "duplicate", OutOfOrder: "out_of_order", OtherRun: "other_run", Gap: "gap", Result(99): "unknown"}
	for r, s := range want {
		if r.String() != s {
			t.Errorf("%d.String() = %q, want %q", int(r), r.String(), s)
		}
	}
}

func BenchmarkObserveInOrder(b *testing.B) {
	tr := New(own, Config{})
	now := time.Now()
	var seq uint64
	b.ReportAllocs()
	for b.Loop() {
		tr.Observe(int32(seq&7), own, seq>>3, now)
		seq++
	}
}
