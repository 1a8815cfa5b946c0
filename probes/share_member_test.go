package probes

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testwait"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// memberT is a share member without a client, whose answers the tests
// send (queue) and whose broker's answers they make (onAck), on a clock
// they move.
type memberT struct {
	*shareMember
	at   atomic.Int64 // the clock, past s0
	sink *shareSinkT
}

// shareSinkT counts the share acknowledgements' events a member reports.
type shareSinkT struct {
	mu        sync.Mutex
	acks      map[tracker.ShareAction]uint64
	ackFailed map[tracker.ShareAction]uint64
	unknown   map[tracker.UnknownResolution]uint64
}

func (k *shareSinkT) OnShareAcked(a tracker.ShareAction, confirmed bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if confirmed {
		k.acks[a]++
	} else {
		k.ackFailed[a]++
	}
}

func (k *shareSinkT) OnShareUnknown(r tracker.UnknownResolution, n uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.unknown[r] += n
}

func (k *shareSinkT) acked(a tracker.ShareAction) uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.acks[a]
}

func (k *shareSinkT) failed(a tracker.ShareAction) uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ackFailed[a]
}

func (k *shareSinkT) settled(r tracker.UnknownResolution) uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.unknown[r]
}

var shareS0 = time.Unix(1_000_000, 0)

func newMemberT() *memberT {
	cfg := config.Probe{Name: "sm", Topic: "t"}
	mt := &memberT{sink: &shareSinkT{acks: map[tracker.ShareAction]uint64{}, ackFailed: map[tracker.ShareAction]uint64{},
		unknown: map[tracker.UnknownResolution]uint64{}}}
	sh := &shared{cfg: cfg, ev: event.New(mt.sink), logger: slog.New(slog.DiscardHandler),
		clk: clock{base: shareS0, mono: func() time.Duration { return time.Duration(mt.at.Load()) }, wall: time.Now}}
	rs := runState{runID: 7, share: tracker.NewShare(7, tracker.ShareConfig{Grace: 10 * time.Second, DeliveryLimit: 5,
		UnknownWindow: 3 * time.Second})}
	mt.shareMember = newShareMember(runDeps{shared: sh, runState: rs}, 0)
	return mt
}

// deliver delivers seqs [lo, hi) of partition p with delivery count dc, the
// producer having heard them acknowledged, and returns their answers.
func (m *memberT) deliver(p int32, lo, hi uint64, dc int32, act tracker.ShareAction) []answer {
	var as []answer
	for seq := lo; seq < hi; seq++ {
		m.share.Acked(p, seq, shareS0)
		m.share.Deliver(p, 7, seq, dc, shareS0)
		as = append(as, answer{own: true, partition: p, seq: seq, count: dc, action: act})
	}
	return as
}

func (m *memberT) send(answers []answer) {
	sets, _ := ackSets(answers)
	m.queue(sets)
}

func (m *memberT) answer(p int32, err error) {
	m.onAck(nil, kgo.ShareAckResults{{Topic: "t", Partition: p, Err: err}})
}

func (m *memberT) settle(t *testing.T, at time.Duration) (lost float64) {
	t.Helper()
	m.at.Store(int64(at))
	now := m.clk.now()
	u := m.share.SettleUnknown(now)
	m.ev.ShareUnknown(tracker.UnknownApplied, u.Accepted+u.ArchivedReject+u.ArchivedLimit)
	l, _ := m.share.Expire(now)
	return float64(l)
}

func wantCount(t *testing.T, name string, got, want uint64) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// Each partition's answer is matched to its set: sets of two partitions
// waiting at once, answered in any order.
func TestShareMemberMatchesAnswersByPartition(t *testing.T) {
	m := newMemberT()
	m.send(append(m.deliver(0, 0, 3, 1, tracker.Accept), m.deliver(1, 0, 2, 1, tracker.Accept)...))
	m.answer(1, kerr.InvalidRecordState)
	m.answer(0, nil)
	wantCount(t, "accepts confirmed", m.sink.acked(tracker.Accept), 3)
	wantCount(t, "accepts refused", m.sink.failed(tracker.Accept), 2)
	if n := m.share.Held(); n != 2 {
		t.Fatalf("held %d, want partition 1's refused records", n)
	}
}

// A partition's next set waits for the answer to its previous one (at most
// one set of a partition waits for an answer); another partition's does not.
func TestShareMemberSendsAPartitionsNextSetOnceAnswered(t *testing.T) {
	m := newMemberT()
	m.send(m.deliver(0, 0, 3, 1, tracker.Accept))
	other, _ := ackSets(m.deliver(1, 0, 3, 1, tracker.Accept))
	if !m.waitAnswered(context.Background(), other) {
		t.Fatal("the wait for another partition's set ended with its context")
	}
	next, _ := ackSets(m.deliver(0, 3, 6, 1, tracker.Accept))
	done := make(chan bool, 1)
	go func() { done <- m.waitAnswered(context.Background(), next) }()
	select {
	case <-done:
		t.Fatal("the next set did not wait for the answer to the previous one")
	default:
	}
	m.answer(0, nil)
	var ok bool
	testwait.Until(t, 10*time.Second, 5*time.Millisecond, "the wait ends at the answer", func() (bool, string) {
		select {
		case ok = <-done:
			return true, ""
		default:
			return false, "waiting"
		}
	})
	if !ok {
		t.Fatal("waitAnswered = false")
	}
	wantCount(t, "accepts confirmed", m.sink.acked(tracker.Accept), 3)
	wantCount(t, "unknown", m.sink.settled(tracker.UnknownApplied), 0)
}

// A set not answered in time is of unknown outcome; its answer, collected
// later, settles it (applied), and the set sent behind it, whose answer
// cannot be told from it, stays unknown and is settled as applied when not
// delivered again within the window. Nothing is lost.
func TestShareMemberLateAnswerSettlesUnknownSet(t *testing.T) {
	m := newMemberT()
	m.ackTimeout = time.Millisecond
	m.send(m.deliver(0, 0, 3, 1, tracker.Accept))
	next := m.deliver(0, 3, 5, 1, tracker.Accept)
	sets, _ := ackSets(next)
	if !m.waitAnswered(context.Background(), sets) {
		t.Fatal("waitAnswered = false")
	}
	m.send(next)
	m.answer(0, nil) // the first set's, late
	wantCount(t, "accepts confirmed", m.sink.acked(tracker.Accept), 3)
	wantCount(t, "unknown applied", m.sink.settled(tracker.UnknownApplied), 3)
	if !m.unmatched {
		t.Fatal("the set behind the answered one is matched")
	}
	m.answer(0, nil) // the second's, or not: not trusted
	wantCount(t, "accepts confirmed", m.sink.acked(tracker.Accept), 3)
	if lost := m.settle(t, time.Hour); lost != 0 {
		t.Fatalf("lost %v", lost)
	}
	wantCount(t, "unknown applied", m.sink.settled(tracker.UnknownApplied), 5)
	if n := m.share.Held(); n != 0 {
		t.Fatalf("held %d", n)
	}
}

// An answer that is no broker's (the request failed, the member left) is
// of unknown outcome: a record delivered again within the window was not
// applied, one that is not was.
func TestShareMemberFailedRequestIsUnknown(t *testing.T) {
	m := newMemberT()
	m.send(m.deliver(0, 0, 2, 1, tracker.Accept))
	m.answer(0, errors.New("connection reset"))
	wantCount(t, "accepts refused", m.sink.failed(tracker.Accept), 0)
	// Seq 0 comes back after its lock: not applied.
	m.at.Store(int64(2 * time.Second))
	d := m.share.Deliver(0, 7, 0, 2, m.clk.now())
	if !d.UnknownNotApplied || !d.Redelivery {
		t.Fatalf("redelivery after an unknown accept: %+v", d)
	}
	m.send([]answer{{own: true, partition: 0, seq: 0, count: 2, action: tracker.Accept}})
	m.answer(0, nil)
	// Seq 1 does not: applied.
	if lost := m.settle(t, time.Hour); lost != 0 {
		t.Fatalf("lost %v", lost)
	}
	wantCount(t, "unknown applied", m.sink.settled(tracker.UnknownApplied), 1)
}

// The client drops the part of a set stamped with an ended share session
// and reports it apart, then the broker's answer to the rest: an answer
// for a partition with no set waiting makes the refused set before it of
// unknown outcome, so the part the broker applied is not lost.
func TestShareMemberAnswerForNoSetMakesRefusedSetUnknown(t *testing.T) {
	m := newMemberT()
	m.send(m.deliver(0, 0, 4, 1, tracker.Accept))
	m.answer(0, kerr.InvalidRecordState) // the dropped part
	m.answer(0, nil)                     // the rest, applied
	if lost := m.settle(t, time.Hour); lost != 0 {
		t.Fatalf("lost %v", lost)
	}
	wantCount(t, "unknown applied", m.sink.settled(tracker.UnknownApplied), 4)
}
