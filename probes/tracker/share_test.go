package tracker

import (
	"testing"
	"time"
)

var s0 = time.Unix(1_000_000, 0)

func newShareT() *Share {
	return NewShare(7, ShareConfig{Grace: 10 * time.Second, DeliveryLimit: 3})
}

func wantDelivery(t *testing.T, got, want Delivery) {
	t.Helper()
	if got != want {
		t.Fatalf("delivery = %+v, want %+v", got, want)
	}
}

func wantExpire(t *testing.T, s *Share, now time.Time, lost, archived uint64) {
	t.Helper()
	l, a := s.Expire(now)
	if l != lost || a != archived {
		t.Fatalf("Expire = lost %d, archived %d; want lost %d, archived %d", l, a, lost, archived)
	}
}

// accept delivers, accepts and confirms seq at its delivery count.
func accept(t *testing.T, s *Share, p int32, seq uint64, dc int32) Delivery {
	t.Helper()
	d := s.Deliver(p, 7, seq, dc, s0)
	s.Answered(p, seq, dc, Accept)
	if c := s.Confirmed(p, seq, dc, true); c.Archived {
		t.Fatalf("accepted %d archived", seq)
	}
	return d
}

func TestShareSteadyNothingLost(t *testing.T) {
	s := newShareT()
	for seq := range uint64(100) {
		s.Acked(0, seq, s0)
	}
	// Order is not required: odd then even.
	for seq := uint64(1); seq < 100; seq += 2 {
		wantDelivery(t, accept(t, s, 0, seq, 1), Delivery{First: true})
	}
	for seq := uint64(0); seq < 100; seq += 2 {
		wantDelivery(t, accept(t, s, 0, seq, 1), Delivery{First: true})
	}
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
	if n := s.Held(); n != 0 {
		t.Fatalf("held %d", n)
	}
}

func TestShareNeverDeliveredIsLostAfterGrace(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	s.Acked(0, 1, s0)
	accept(t, s, 0, 1, 1)
	wantExpire(t, s, s0.Add(9*time.Second), 0, 0) // within grace
	wantExpire(t, s, s0.Add(10*time.Second), 1, 0)
	wantExpire(t, s, s0.Add(20*time.Second), 0, 0) // counted once
	// Arriving after it was declared lost: the loss was final.
	wantDelivery(t, s.Deliver(0, 7, 0, 1, s0), Delivery{Duplicate: true})
}

func TestShareRedeliveryIsNoDuplicate(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	// Released by the probe: the redelivery's cause is the release.
	wantDelivery(t, s.Deliver(0, 7, 0, 1, s0), Delivery{First: true})
	s.Answered(0, 0, 1, Release)
	if c := s.Confirmed(0, 0, 1, true); c.Archived {
		t.Fatal("a release below the limit archived")
	}
	wantDelivery(t, s.Deliver(0, 7, 0, 2, s0), Delivery{Redelivery: true, Cause: CauseReleased})
	// Accepted, but the accept failed (the lock had expired): lock expiry.
	s.Answered(0, 0, 2, Accept)
	s.Confirmed(0, 0, 2, false)
	wantDelivery(t, s.Deliver(0, 7, 0, 3, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
	s.Answered(0, 0, 3, Accept)
	s.Confirmed(0, 0, 3, true)
	// After the confirmed accept: a true duplicate.
	wantDelivery(t, s.Deliver(0, 7, 0, 4, s0), Delivery{Duplicate: true})
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
}

func TestShareHeldWithoutAnswerComesBackAsLockExpiry(t *testing.T) {
	s := newShareT()
	s.Deliver(0, 7, 5, 1, s0)
	wantDelivery(t, s.Deliver(0, 7, 5, 2, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
}

func TestShareReleaseSeenBeforeItsConfirmation(t *testing.T) {
	s := newShareT()
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Release)
	// Another member gets it before the releasing one hears back.
	wantDelivery(t, s.Deliver(0, 7, 0, 2, s0), Delivery{Redelivery: true, Cause: CauseReleased})
	s.Answered(0, 0, 2, Reject)
	// The release's late confirmation is for delivery 1: ignored.
	if c := s.Confirmed(0, 0, 1, true); c.Archived {
		t.Fatal("an older delivery's confirmation settled the record")
	}
	if c := s.Confirmed(0, 0, 2, true); !c.Archived {
		t.Fatal("a confirmed reject is not archived")
	}
}

func TestShareFirstSightAboveDeliveryCountOne(t *testing.T) {
	s := newShareT()
	// Delivered before to a member of another process that died holding
	// it: the probe's first sight, and a redelivery by lock expiry.
	wantDelivery(t, s.Deliver(1, 7, 3, 2, s0), Delivery{First: true, Redelivery: true, Cause: CauseLockExpired})
	wantDelivery(t, s.Deliver(1, 7, 3, 3, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
}

func TestShareRejectArchivesOnce(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Reject)
	if c := s.Confirmed(0, 0, 1, true); !c.Archived {
		t.Fatal("a confirmed reject is not archived")
	}
	if c := s.Confirmed(0, 0, 1, true); c.Archived {
		t.Fatal("archived twice")
	}
	wantExpire(t, s, s0.Add(time.Hour), 0, 0) // archived is not lost
	wantDelivery(t, s.Deliver(0, 7, 0, 2, s0), Delivery{Duplicate: true})
}

func TestShareFailedRejectIsNotArchived(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	accept(t, s, 0, 1, 1)
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Reject)
	if c := s.Confirmed(0, 0, 1, false); c.Archived {
		t.Fatal("a failed reject archived")
	}
	// Never delivered again, below the limit: lost.
	wantExpire(t, s, s0.Add(10*time.Second), 1, 0)
}

func TestShareReleaseAtLimitArchives(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	for dc := int32(1); dc <= 3; dc++ {
		s.Deliver(0, 7, 0, dc, s0)
		s.Answered(0, 0, dc, Release)
		c := s.Confirmed(0, 0, dc, true)
		if c.Archived != (dc == 3) {
			t.Fatalf("release at delivery %d: archived %v", dc, c.Archived)
		}
	}
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
}

func TestShareLockExpiryAtLimitArchivesAtGrace(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	s.Acked(0, 1, s0)
	s.Deliver(0, 7, 0, 3, s0) // at the limit, never answered: the broker archives it
	s.Deliver(0, 7, 1, 2, s0) // below it: it should have come back
	accept(t, s, 0, 2, 1)
	wantExpire(t, s, s0.Add(10*time.Second), 1, 1)
}

func TestShareOtherRunIsNotAccounted(t *testing.T) {
	s := newShareT()
	wantDelivery(t, s.Deliver(0, 8, 0, 1, s0), Delivery{OtherRun: true})
	wantDelivery(t, s.Deliver(0, 8, 0, 2, s0), Delivery{OtherRun: true})
	if n := s.Held(); n != 0 {
		t.Fatalf("held %d", n)
	}
}

func TestShareProducerFailureIsNeverLost(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	s.WillNotArrive(0, 1, 3, s0)
	s.Acked(0, 3, s0)
	accept(t, s, 0, 0, 1)
	accept(t, s, 0, 3, 1)
	// Written despite the failure: an ordinary delivery, within the grace.
	wantExpire(t, s, s0.Add(9*time.Second), 0, 0)
	wantDelivery(t, s.Deliver(0, 7, 2, 1, s0.Add(9*time.Second)), Delivery{First: true})
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
}

// Records the producer gave up on (aborted transactions, failed produces)
// are forgotten after the grace, as the consumer group's tracker forgets
// them: after many aborts the tracker holds a span per partition, not one
// per transaction, and the accounting stays exact: no aborted or failed
// record lost, none delivered twice, every committed one accepted once.
func TestShareGivenUpForgottenAfterGrace(t *testing.T) {
	for _, readCommitted := range []bool{true, false} {
		s := newShareT()
		now := s0
		var seq, accepted uint64
		for txn := range 1000 {
			lo := seq
			for range 10 {
				s.Acked(0, seq, now)
				seq++
			}
			if txn%4 == 0 { // aborted
				s.WillNotArrive(0, lo, seq, now)
				if readCommitted {
					now = now.Add(100 * time.Millisecond)
					continue // never delivered
				}
			}
			for x := lo; x < seq; x++ {
				d := s.Deliver(0, 7, x, 1, now)
				if !d.First || d.Duplicate || d.Redelivery {
					t.Fatalf("read_committed %v: seq %d delivered as %+v", readCommitted, x, d)
				}
				s.Answered(0, x, 1, Accept)
				if s.Confirmed(0, x, 1, true).Archived {
					t.Fatalf("accepted %d archived", x)
				}
				accepted++
			}
			if txn%3 == 0 { // a failed produce, never written
				s.WillNotArrive(0, seq, seq+1, now)
				seq++
			}
			if l, a := s.Expire(now); l != 0 || a != 0 {
				t.Fatalf("read_committed %v: at transaction %d: lost %d, archived %d", readCommitted, txn, l, a)
			}
			now = now.Add(100 * time.Millisecond)
		}
		// The last records read past, and the grace over.
		s.Acked(0, seq, now)
		accept(t, s, 0, seq, 1)
		accepted++
		wantExpire(t, s, now.Add(time.Hour), 0, 0)
		ps := s.parts[0]
		if len(ps.done) != 1 || len(ps.failed) != 0 || len(ps.gaveUp) != 0 || len(ps.acked) != 0 || len(ps.held) != 0 {
			t.Errorf("read_committed %v: %d done spans, %d failed, %d given-up runs, %d acknowledged runs, %d held: want 1, 0, 0, 0, 0",
				readCommitted, len(ps.done), len(ps.failed), len(ps.gaveUp), len(ps.acked), len(ps.held))
		}
		if c := ps.done.count(); c != seq+1 {
			t.Errorf("read_committed %v: %d records done, want %d", readCommitted, c, seq+1)
		}
		if want := map[bool]uint64{true: 750*10 + 1, false: 1000*10 + 1}[readCommitted]; accepted != want {
			t.Errorf("read_committed %v: %d accepted, want %d", readCommitted, accepted, want)
		}
		// A delivery of a record accepted long ago is a duplicate still
		// (transaction 1, after the failed produce of seq 10).
		wantDelivery(t, s.Deliver(0, 7, 12, 1, now.Add(time.Hour)), Delivery{Duplicate: true})
	}
}

func TestShareGraceRunsFromEachAcknowledgement(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	s.Acked(0, 1, s0.Add(5*time.Second)) // a later run (runSpan is 1 s)
	accept(t, s, 0, 2, 1)                // read past both at s0
	wantExpire(t, s, s0.Add(11*time.Second), 1, 0)
	wantExpire(t, s, s0.Add(14*time.Second), 0, 0)
	wantExpire(t, s, s0.Add(15*time.Second), 1, 0)
}

func TestSharePartitionsApart(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	s.Acked(1, 0, s0)
	s.Acked(1, 1, s0)
	accept(t, s, 0, 0, 1)
	accept(t, s, 1, 1, 1)
	wantDelivery(t, s.Deliver(1, 7, 0, 1, s0), Delivery{First: true})
	wantExpire(t, s, s0.Add(time.Hour), 1, 0)
}

// A group that delivers nothing past a record (stalled, or the record is
// the last) does not make it lost: it is late, which lag shows.
func TestShareNothingReadPastIsNotLost(t *testing.T) {
	s := newShareT()
	for seq := range uint64(10) {
		s.Acked(0, seq, s0)
	}
	accept(t, s, 0, 0, 1)
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
	// The group resumes an hour later: the grace runs from then.
	at := s0.Add(time.Hour)
	s.Deliver(0, 7, 9, 1, at)
	s.Answered(0, 9, 1, Accept)
	s.Confirmed(0, 9, 1, true)
	wantExpire(t, s, at.Add(9*time.Second), 0, 0)
	wantExpire(t, s, at.Add(10*time.Second), 8, 0)
}

// An acknowledgement heard after the group read past the record (the
// consumer was faster than the producer's callback) starts the grace then.
func TestShareAcknowledgedAfterReadPast(t *testing.T) {
	s := newShareT()
	s.Deliver(0, 7, 5, 1, s0)
	s.Acked(0, 3, s0.Add(time.Minute))
	wantExpire(t, s, s0.Add(time.Minute+9*time.Second), 0, 0)
	wantExpire(t, s, s0.Add(time.Minute+10*time.Second), 1, 0)
}

func TestShareAnswerToAnUnknownRecordIsIgnored(t *testing.T) {
	s := newShareT()
	s.Answered(0, 9, 1, Accept)
	if c := s.Confirmed(0, 9, 1, true); c.Archived {
		t.Fatal("archived a record never delivered")
	}
	s.Deliver(0, 7, 9, 1, s0)
	if c := s.Confirmed(0, 9, 1, true); c.Archived {
		t.Fatal("confirmed a delivery never answered")
	}
	if n := s.Held(); n != 1 {
		t.Fatalf("held %d, want 1", n)
	}
}

// The broker applies an acknowledgement by offset to the acquisition the
// record is in when it arrives. The sequence, on partition 2, of a member
// that held a poll (seqs 333-345) 5 s past a 2 s record lock on Kafka 4.4.0
// (faults.hold), its acknowledgements riding its next fetch: during the
// hold its client fetched 346-359 and, their locks expired too, acquired
// 333-359 again (delivery 2). After the hold it accepted 333-345 (refused:
// their lock had expired), then 346-359 of delivery 1: confirmed, applied
// to delivery 2; then 333-359 of delivery 2 and 360 of delivery 1 in one
// set: refused as a whole, 346-359 being accepted already. 346-359 are
// accepted, not lost; 333 and 360 come back.
func TestShareLateAcceptAppliedToTheSameMembersRedelivery(t *testing.T) {
	s := newShareT()
	for seq := uint64(333); seq <= 360; seq++ {
		s.Acked(2, seq, s0)
	}
	// The held poll and the set refused after it.
	s.Deliver(2, 7, 333, 1, s0)
	s.Answered(2, 333, 1, Accept)
	s.Acknowledged(2, 333, 1, Accept, AckRefused, s0)
	// Fetched during the hold, answered after it.
	wantDelivery(t, s.Deliver(2, 7, 346, 1, s0), Delivery{First: true})
	s.Answered(2, 346, 1, Accept)
	// Acquired again during the hold, polled after.
	wantDelivery(t, s.Deliver(2, 7, 333, 2, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
	wantDelivery(t, s.Deliver(2, 7, 346, 2, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
	wantDelivery(t, s.Deliver(2, 7, 360, 1, s0), Delivery{First: true})
	// The answer to the accept of 346's delivery 1.
	if c := s.Acknowledged(2, 346, 1, Accept, AckApplied, s0); c.Archived || c.Unknown != UnknownUnresolved {
		t.Fatalf("late accept: %+v", c)
	}
	// The set of delivery 2 (and 360's first), refused.
	for _, d := range []struct {
		seq uint64
		dc  int32
	}{{333, 2}, {346, 2}, {360, 1}} {
		s.Answered(2, d.seq, d.dc, Accept)
		s.Acknowledged(2, d.seq, d.dc, Accept, AckRefused, s0)
	}
	// 333 and 360 come back after their lock and are accepted; 346 does not.
	wantDelivery(t, s.Deliver(2, 7, 333, 3, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
	wantDelivery(t, s.Deliver(2, 7, 360, 2, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
	for seq := uint64(333); seq <= 360; seq++ {
		if seq != 333 && seq != 346 && seq != 360 {
			accept(t, s, 2, seq, 1)
		}
	}
	s.Answered(2, 333, 3, Accept)
	s.Acknowledged(2, 333, 3, Accept, AckApplied, s0)
	s.Answered(2, 360, 2, Accept)
	s.Acknowledged(2, 360, 2, Accept, AckApplied, s0)
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
	if n := s.Held(); n != 0 {
		t.Fatalf("held %d", n)
	}
	// Delivered again after that: a duplicate.
	wantDelivery(t, s.Deliver(2, 7, 346, 3, s0), Delivery{Duplicate: true})
}

// A late reject applied to a later delivery archives the record; a late
// release changes nothing.
func TestShareLateRejectArchivesLateReleaseDoesNot(t *testing.T) {
	s := newShareT()
	s.Acked(0, 0, s0)
	s.Acked(0, 1, s0)
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Reject)
	s.Deliver(0, 7, 0, 2, s0)
	if c := s.Acknowledged(0, 0, 1, Reject, AckApplied, s0); !c.Archived {
		t.Fatal("a late reject applied is not archived")
	}
	s.Deliver(0, 7, 1, 1, s0)
	s.Answered(0, 1, 1, Release)
	s.Deliver(0, 7, 1, 2, s0)
	if c := s.Acknowledged(0, 1, 1, Release, AckApplied, s0); c.Archived {
		t.Fatal("a late release archived")
	}
	if n := s.Held(); n != 1 {
		t.Fatalf("held %d, want the released record", n)
	}
}

func newShareUnknownT() *Share {
	return NewShare(7, ShareConfig{Grace: 10 * time.Second, DeliveryLimit: 3, UnknownWindow: 3 * time.Second})
}

// An accept of unknown outcome (its answer lost) that is not delivered
// again within the window was applied: accepted, never lost.
func TestShareUnknownAcceptNotRedeliveredWasApplied(t *testing.T) {
	s := newShareUnknownT()
	s.Acked(0, 0, s0)
	s.Acked(0, 1, s0)
	accept(t, s, 0, 1, 1)
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Accept)
	s.Acknowledged(0, 0, 1, Accept, AckUnknown, s0.Add(time.Second))
	if u := s.SettleUnknown(s0.Add(3 * time.Second)); u != (UnknownSettled{}) {
		t.Fatalf("settled within the window: %+v", u)
	}
	if u := s.SettleUnknown(s0.Add(4 * time.Second)); u != (UnknownSettled{Accepted: 1}) {
		t.Fatalf("settled %+v, want one accept", u)
	}
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
	if u := s.SettleUnknown(s0.Add(time.Hour)); u != (UnknownSettled{}) {
		t.Fatalf("settled twice: %+v", u)
	}
}

// Past the grace but within its window, an accept of unknown outcome is not
// lost either.
func TestShareUnknownAcceptIsNotLostAtTheGrace(t *testing.T) {
	s := newShareUnknownT()
	s.Acked(0, 0, s0)
	s.Acked(0, 1, s0)
	accept(t, s, 0, 1, 1)
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Accept)
	s.Acknowledged(0, 0, 1, Accept, AckUnknown, s0.Add(9*time.Second))
	wantExpire(t, s, s0.Add(10*time.Second), 0, 0)
	if u := s.SettleUnknown(s0.Add(12 * time.Second)); u != (UnknownSettled{Accepted: 1}) {
		t.Fatalf("settled %+v, want one accept", u)
	}
}

// An accept of unknown outcome delivered again was not applied: a
// redelivery by lock expiry, and the record is accounted on.
func TestShareUnknownAcceptRedeliveredWasNotApplied(t *testing.T) {
	s := newShareUnknownT()
	s.Acked(0, 0, s0)
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Accept)
	s.Acknowledged(0, 0, 1, Accept, AckUnknown, s0)
	wantDelivery(t, s.Deliver(0, 7, 0, 2, s0.Add(2*time.Second)),
		Delivery{Redelivery: true, Cause: CauseLockExpired, UnknownNotApplied: true})
	if u := s.SettleUnknown(s0.Add(time.Hour)); u != (UnknownSettled{}) {
		t.Fatalf("settled %+v after the redelivery", u)
	}
	s.Answered(0, 0, 2, Accept)
	s.Acknowledged(0, 0, 2, Accept, AckApplied, s0)
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
}

// The broker's late answer to an acknowledgement of unknown outcome
// settles it: a confirmation as applied, a refusal as not applied.
func TestShareUnknownSettledByALateAnswer(t *testing.T) {
	s := newShareUnknownT()
	s.Acked(0, 0, s0)
	s.Acked(0, 1, s0)
	for seq := range uint64(2) {
		s.Deliver(0, 7, seq, 1, s0)
		s.Answered(0, seq, 1, Accept)
		s.Acknowledged(0, seq, 1, Accept, AckUnknown, s0)
	}
	if c := s.Acknowledged(0, 0, 1, Accept, AckApplied, s0); c.Unknown != UnknownApplied {
		t.Fatalf("late confirmation: %+v", c)
	}
	if c := s.Acknowledged(0, 1, 1, Accept, AckRefused, s0); c.Unknown != UnknownNotApplied {
		t.Fatalf("late refusal: %+v", c)
	}
	if u := s.SettleUnknown(s0.Add(time.Hour)); u != (UnknownSettled{}) {
		t.Fatalf("settled %+v after the answers", u)
	}
	// The refused accept: the record held, it comes back after its lock.
	wantDelivery(t, s.Deliver(0, 7, 1, 2, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
}

// A reject of unknown outcome not delivered again was applied: archived.
func TestShareUnknownRejectArchives(t *testing.T) {
	s := newShareUnknownT()
	s.Acked(0, 0, s0)
	s.Deliver(0, 7, 0, 1, s0)
	s.Answered(0, 0, 1, Reject)
	s.Acknowledged(0, 0, 1, Reject, AckUnknown, s0)
	if u := s.SettleUnknown(s0.Add(time.Hour)); u != (UnknownSettled{ArchivedReject: 1}) {
		t.Fatalf("settled %+v, want one archived reject", u)
	}
	wantExpire(t, s, s0.Add(time.Hour), 0, 0)
}

// A release the broker refused (the record's lock had expired before it
// arrived, a stalled broker or member) did not give the record back: it
// comes back by its lock's expiry, and is counted so.
func TestShareRefusedReleaseComesBackByLockExpiry(t *testing.T) {
	s := newShareT()
	s.Acked(0, 5, s0)
	s.Acked(0, 6, s0)
	s.Deliver(0, 7, 5, 1, s0)
	s.Deliver(0, 7, 6, 1, s0)
	s.Answered(0, 5, 1, Release)
	s.Answered(0, 6, 1, Release)
	s.Acknowledged(0, 5, 1, Release, AckRefused, s0)
	s.Acknowledged(0, 6, 1, Release, AckApplied, s0)
	wantDelivery(t, s.Deliver(0, 7, 5, 2, s0), Delivery{Redelivery: true, Cause: CauseLockExpired})
	wantDelivery(t, s.Deliver(0, 7, 6, 2, s0), Delivery{Redelivery: true, Cause: CauseReleased})
}
