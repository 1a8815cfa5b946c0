package tracker

import (
	"testing"
	"time"
)

// With LoseUnread, acknowledged records that are never read count as lost
// once their grace period is over, though nothing after them was read (a
// stopped replicator); records read in time, records not acknowledged yet
// and failed records never do, and a record read after it was declared lost
// is a duplicate.
func TestLoseUnread(t *testing.T) {
	const grace = 10 * time.Second
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	tr := New(own, Config{GracePeriod: grace, LoseUnread: true})
	for seq := range uint64(10) {
		tr.Acked(0, seq, at(0))
	}
	tr.Acked(1, 0, at(0))
	if got := tr.Observe(1, own, 0, at(time.Second)); got != InOrder {
		t.Fatalf("observe = %v", got)
	}
	if n, oldest := tr.Unread(); n != 10 || !oldest.Equal(at(0)) {
		t.Errorf("Unread = %d, %v; want 10 acknowledged at t0", n, oldest)
	}
	if lost := tr.Expire(at(grace - time.Millisecond)); lost != 0 {
		t.Errorf("lost %d before the grace period is over", lost)
	}
	// Later acknowledgements (in a new run of acks) keep their own grace.
	for seq := uint64(10); seq < 15; seq++ {
		tr.Acked(0, seq, at(5*time.Second))
	}
	tr.WillNotArrive(0, 15, 16, at(5*time.Second))
	tr.Acked(0, 17, at(5*time.Second)) // 16 is still in flight
	if lost := tr.Expire(at(grace)); lost != 10 {
		t.Errorf("lost %d at the end of the grace period, want the 10 acknowledged at t0", lost)
	}
	if n, oldest := tr.Unread(); n != 6 || !oldest.Equal(at(5*time.Second)) {
		t.Errorf("Unread = %d, %v; want 6 acknowledged at 5s", n, oldest)
	}
	if got := tr.Observe(0, own, 3, at(11*time.Second)); got != Duplicate {
		t.Errorf("a record read after it was declared lost: %v, want duplicate", got)
	}
	if got := tr.Observe(0, own, 12, at(11*time.Second)); got != Gap {
		t.Errorf("observe 12 = %v, want gap", got)
	}
	if lost := tr.Expire(at(grace + 5*time.Second)); lost != 3 {
		t.Errorf("lost %d, want 13, 14 and 17 (unread, acknowledged at 5s)", lost)
	}
	if lost := tr.Expire(at(11*time.Second + grace)); lost != 2 {
		t.Errorf("lost %d, want 10 and 11 (read past at 11s)", lost)
	}
	// 16 is acknowledged late: its grace period starts then.
	tr.Acked(0, 16, at(22*time.Second))
	if lost := tr.Expire(at(22*time.Second + grace - time.Millisecond)); lost != 0 {
		t.Errorf("lost %d before the late acknowledgement's grace period is over", lost)
	}
	if lost := tr.Expire(at(22*time.Second + grace)); lost != 1 {
		t.Errorf("lost %d, want 16", lost)
	}
	if n, _ := tr.Unread(); n != 0 {
		t.Errorf("Unread = %d after everything was lost or read", n)
	}

	// Without LoseUnread nothing unread is ever lost: the gaps open only
	// when a later record is read.
	plain := New(own, Config{GracePeriod: grace})
	for seq := range uint64(10) {
		plain.Acked(0, seq, at(0))
	}
	if lost := plain.Expire(at(time.Hour)); lost != 0 {
		t.Errorf("without LoseUnread: lost %d", lost)
	}
}
