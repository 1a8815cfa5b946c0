// Package tracker classifies consumed probe records per partition as in
// order, duplicate, out of order or missing, and declares loss.
//
// Loss is a record Kafka acknowledged that the consumer read past (it
// received a later record of the same partition) and that has not arrived
// Config.GracePeriod after both its acknowledgement and the moment the
// consumer read past it. A record not (yet) acknowledged is never lost: it
// either fails, and is counted by the producer as failed, or is
// acknowledged later and its grace period starts then. So a failure reported
// after any grace period is counted once, as failed, and the grace period
// needs no relation to delivery.timeout.ms. Failures (WillNotArrive) and
// acknowledgements are kept as ranges of sequence numbers, without a cap:
// no amount of failures turns into loss.
//
// For the own run, the expected sequence number of a partition starts at 0,
// so records missing from the very start are gaps too. A gap declared lost
// is lost once; a record arriving after that is reported as Duplicate: the
// loss was final and the record cannot be told apart from a redelivery.
//
// Records of another run (a previous process of the same probe whose records
// are still in the topic) get their own baseline on the partition: the first
// one returns OtherRun and later ones of that run are classified the same
// way until the own run appears; their gaps are never loss (their
// acknowledgements are unknown) and are dropped after the grace period. The
// own run is tracked in separate state, so it is never disturbed by foreign
// records: once it has appeared, foreign records only return OtherRun.
package tracker

import (
	"sync"
	"time"
)

// Config holds the tracker's settings. Zero values select the defaults.
type Config struct {
	// GracePeriod is how long an acknowledged record the consumer read
	// past may stay missing before it counts as lost (default 30s).
	GracePeriod time.Duration
	// LoseUnread also declares lost an acknowledged record that is not
	// received within GracePeriod of its acknowledgement although nothing
	// after it was read: a replica whose replicator stopped, or a copy
	// that is never made, reads nothing past the missing records.
	LoseUnread bool
}

// DefaultGracePeriod is used for a zero Config.GracePeriod.
const DefaultGracePeriod = 30 * time.Second

// Result classifies one observed record.
type Result int

const (
	// InOrder is the expected next sequence number.
	InOrder Result = iota
	// Duplicate was already received, or already declared lost.
	Duplicate
	// OutOfOrder filled a pending gap (or arrived after the producer
	// reported it as failed).
	OutOfOrder
	// OtherRun started tracking a run other than the own one, or is a
	// foreign record seen after the own run appeared.
	OtherRun
	// Gap is beyond the expected sequence number: in order, but the
	// records in between are now missing.
	Gap
	// Aborted was written in a transaction the producer aborted
	// (Tracker.Aborted): a read_committed consumer must never read one.
	Aborted
)

func (r Result) String() string {
	switch r {
	case InOrder:
		return "in_order"
	case Duplicate:
		return "duplicate"
	case OutOfOrder:
		return "out_of_order"
	case OtherRun:
		return "other_run"
	case Gap:
		return "gap"
	case Aborted:
		return "aborted"
	}
	return "unknown"
}

// Tracker holds per-partition sequence state. It is safe for concurrent use.
type Tracker struct {
	own uint64
	cfg Config

	mu    sync.Mutex
	parts map[int32]*partition
}

// partition keeps the own run and at most one foreign run apart.
type partition struct {
	own     seqState
	ownSeen bool

	other    *seqState // foreign run tracked until the own run appears
	otherRun uint64
}

// New returns a tracker for records produced under run id ownRun.
func New(ownRun uint64, cfg Config) *Tracker {
	if cfg.GracePeriod <= 0 {
		cfg.GracePeriod = DefaultGracePeriod
	}
	return &Tracker{own: ownRun, cfg: cfg, parts: make(map[int32]*partition)}
}

func (t *Tracker) part(p int32) *partition {
	ps := t.parts[p]
	if ps == nil {
		ps = &partition{}
		t.parts[p] = ps
	}
	return ps
}

// Observe classifies a consumed record.
func (t *Tracker) Observe(partition int32, run, seq uint64, now time.Time) Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	ps := t.part(partition)
	if run == t.own {
		if !ps.ownSeen {
			// Gaps of the old run are dropped, not lost: the old process
			// is gone and cannot resend them.
			ps.ownSeen, ps.other = true, nil
		}
		return ps.own.observe(seq, now)
	}
	if ps.ownSeen {
		return OtherRun
	}
	if ps.other == nil || ps.otherRun != run {
		ps.other, ps.otherRun = &seqState{expected: seq + 1}, run
		return OtherRun
	}
	return ps.other.observe(seq, now)
}

// Acked tells the tracker Kafka acknowledged seq of the own run on
// partition: from now on (or from when the consumer reads past it) its
// grace period runs.
func (t *Tracker) Acked(partition int32, seq uint64, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	own := &t.part(partition).own
	if t.cfg.LoseUnread && seq >= own.expected {
		own.runs.add(seq, now)
	}
	own.ack(seq, now)
}

// WillNotArrive tells the tracker that sequence numbers [lo, hi) of the own
// run on partition are not to be expected: the producer gave up on them (a
// failed produce; an aborted transaction or records a share group archived
// are the same to the tracker). They are never lost: a gap they leave is no
// loss, and they are forgotten a grace period after the consumer passed
// them, so a long run with failures keeps no state per failure. One that
// arrives anyway is OutOfOrder; one already received is ignored.
func (t *Tracker) WillNotArrive(partition int32, lo, hi uint64, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	own := &t.part(partition).own
	for seq := lo; seq < hi; seq++ {
		own.fail(seq, now)
	}
}

// Aborted tells the tracker that sequence numbers [lo, hi) of the own run
// on partition were written in a transaction the producer aborted: to the
// loss accounting they are as WillNotArrive's, and one that arrives anyway
// (before it is forgotten) is Aborted. One already received is ignored: a
// read_uncommitted consumer reads them before the abort.
func (t *Tracker) Aborted(partition int32, lo, hi uint64, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	own := &t.part(partition).own
	for seq := lo; seq < hi; seq++ {
		if own.fail(seq, now) {
			own.aborted.add(seq, now)
		}
	}
}

// Expire declares lost every acknowledged record missing for at least
// GracePeriod and returns how many were newly lost. Each record is counted
// once, ever.
func (t *Tracker) Expire(now time.Time) (lost uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ps := range t.parts {
		if t.cfg.LoseUnread {
			ps.own.readPastUnread(now, t.cfg.GracePeriod)
		}
		lost += ps.own.expire(now, t.cfg.GracePeriod, false)
		if ps.other != nil {
			ps.other.expire(now, t.cfg.GracePeriod, true)
		}
	}
	return lost
}

// Pending returns the number of gap ranges and the records in them, and the
// failed records the producer reported that are still remembered.
func (t *Tracker) Pending() (gaps int, records, failed uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ps := range t.parts {
		for _, s := range []*seqState{&ps.own, ps.other} {
			if s == nil {
				continue
			}
			gaps += len(s.gaps)
			for _, g := range s.gaps {
				records += g.hi - g.lo
			}
			failed += s.failed.count()
		}
	}
	return gaps, records, failed
}

// Reset forgets a partition, e.g. after the topic was recreated. Its pending
// gaps are dropped, not counted as lost.
func (t *Tracker) Reset(partition int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.parts, partition)
}
