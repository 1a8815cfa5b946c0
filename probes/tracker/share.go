package tracker

import (
	"sync"
	"time"
)

// Share accounts the probe records a share group (KIP-932) delivers, by
// the queue's semantics rather than a consumer group's:
//
//   - A record delivered again before the probe's accept of it was
//     confirmed is a redelivery, not a duplicate. Its cause is read from
//     the probe's own acknowledgement log: the probe released it, or it
//     came back without a release: its acquisition lock expired (or the
//     member holding it went away without releasing it).
//   - A record delivered again after its accept (or its reject) was
//     confirmed is a duplicate.
//   - A record rejected (confirmed) is archived by the broker and never
//     delivered again; so is one released, or left to its lock, at the
//     delivery attempt limit.
//   - A record Kafka acknowledged to the producer that is neither accepted
//     nor archived within ShareConfig.Grace is lost. The grace runs from
//     its acknowledgement and from the group's first delivery of a later
//     record of its partition (the broker hands a partition's records out
//     in offset order, a redelivery aside), whichever is later: a group
//     that stalls delivers nothing past the record, and its records are
//     late (lag), not lost.
//   - The broker applies an acknowledgement by offset to the member's
//     acquisition of the record at the time it arrives, whichever delivery
//     it was sent for: an accept (or reject) confirmed after the record was
//     delivered again to the same member settles the record.
//   - An acknowledgement whose outcome is unknown (its answer was lost or
//     late) is settled by what the probe sees next: a delivery of the
//     record within ShareConfig.UnknownWindow says it was not applied, none
//     that it was.
//   - Order is not a property of a queue: nothing is counted as reordered.
//
// Every delivery is of a record of the own run or of another (a previous
// process of the probe); only the own run is accounted.
type Share struct {
	own uint64
	cfg ShareConfig

	mu    sync.Mutex
	parts map[int32]*sharePart
}

// ShareConfig holds the share tracker's settings.
type ShareConfig struct {
	// Grace is how long after its acknowledgement to the producer a
	// record may stay neither accepted nor archived before it counts as
	// lost: at least the group's record lock duration times its delivery
	// attempt limit, the longest the broker takes to give up on a record.
	Grace time.Duration
	// DeliveryLimit is the group's delivery attempt limit: a record
	// released or left to its lock at this delivery count is archived.
	DeliveryLimit int32
	// UnknownWindow is how long after an acknowledgement's outcome became
	// unknown a record that is not delivered again counts as applied: the
	// record lock duration plus loss_grace_period (a record whose
	// acknowledgement the broker did not apply comes back when its lock
	// expires). Zero is Grace.
	UnknownWindow time.Duration
}

// AckOutcome is what the probe knows of the broker's answer to an
// acknowledgement.
type AckOutcome int8

const (
	// AckApplied is an acknowledgement the broker confirmed.
	AckApplied AckOutcome = iota + 1
	// AckRefused is one the broker refused (the lock had expired, the
	// record was acknowledged already): not applied.
	AckRefused
	// AckUnknown is no answer of the broker's (a request that failed or
	// timed out, a session that ended, an answer that cannot be matched
	// to it): applied or not.
	AckUnknown
)

// UnknownResolution is how an acknowledgement of unknown outcome was
// settled.
type UnknownResolution int8

const (
	// UnknownUnresolved is not an unknown outcome, or not settled yet.
	UnknownUnresolved UnknownResolution = iota
	// UnknownApplied is one the broker applied (it confirmed it late, or
	// the record was not delivered again within the window).
	UnknownApplied
	// UnknownNotApplied is one the broker did not apply (it refused it
	// late, or delivered the record again).
	UnknownNotApplied
)

func (u UnknownResolution) String() string {
	switch u {
	case UnknownApplied:
		return "applied"
	case UnknownNotApplied:
		return "not_applied"
	}
	return "unresolved"
}

// ShareAction is what the probe answered a delivery with.
type ShareAction int8

const (
	// NoAction is no answer (yet).
	NoAction ShareAction = iota
	// Accept is processed: the broker moves past it.
	Accept
	// Release gives it back for redelivery.
	Release
	// Reject is unprocessable: the broker archives it.
	Reject
)

// Cause is why a record was delivered again.
type Cause int8

const (
	// CauseNone is no redelivery.
	CauseNone Cause = iota
	// CauseReleased is a release of the probe's.
	CauseReleased
	// CauseLockExpired is a return without a release of the probe's: its
	// acquisition lock expired (an acknowledgement too late or failed), or
	// its holder's session ended without releasing it.
	CauseLockExpired
)

func (c Cause) String() string {
	switch c {
	case CauseReleased:
		return "released"
	case CauseLockExpired:
		return "lock_expired"
	}
	return "none"
}

// Delivery classifies one delivered record.
type Delivery struct {
	// OtherRun: not a record of the own run; nothing else is set.
	OtherRun bool
	// First is the probe's first sight of the record (its delivery
	// latency is measured here), whatever its delivery count.
	First bool
	// Redelivery: the broker delivered it before (delivery count above
	// 1, or seen before by the probe), for Cause.
	Redelivery bool
	Cause      Cause
	// Duplicate: delivered again after its accept or reject was
	// confirmed, or after it was declared lost.
	Duplicate bool
	// UnknownNotApplied: the delivery settles an acknowledgement of
	// unknown outcome as not applied.
	UnknownNotApplied bool
}

// Confirmation is what a confirmed (or failed) acknowledgement did.
type Confirmation struct {
	// Archived: the broker archived the record without accepting it: a
	// reject, or a release at the delivery attempt limit.
	Archived bool
	// Unknown settles an earlier acknowledgement of unknown outcome.
	Unknown UnknownResolution
}

// UnknownSettled counts the acknowledgements of unknown outcome that
// SettleUnknown settled as applied, by what they did.
type UnknownSettled struct {
	Accepted, ArchivedReject, ArchivedLimit uint64
}

// shareRec is a delivered record that is not done yet.
type shareRec struct {
	deliveryCount int32       // the broker's, at the latest delivery
	action        ShareAction // the probe's answer to that delivery
	// unknown: when the outcome of the answer became unknown (zero: it
	// did not).
	unknown time.Time
}

// unknownRef is an acknowledgement whose outcome became unknown at, in
// that order.
type unknownRef struct {
	seq           uint64
	deliveryCount int32
	at            time.Time
}

// shareAcks are consecutive seqs [lo, hi) the producer heard acknowledged
// (or gave up on) within runSpan, the latest at last; passed is when the
// group first delivered a record after all of them (zero: not yet).
type shareAcks struct {
	lo, hi      uint64
	first, last time.Time
	passed      time.Time
}

func (ps *sharePart) addAck(seq uint64, now time.Time) {
	ps.acked = addRun(ps.acked, seq, seq+1, now)
	ps.pass(now)
}

// addRun appends [lo, hi) to runs at now, extending the last run when it
// continues it.
func addRun(v []shareAcks, lo, hi uint64, now time.Time) []shareAcks {
	if n := len(v); n > 0 && v[n-1].hi == lo && now.Sub(v[n-1].first) < runSpan && v[n-1].passed.IsZero() {
		v[n-1].hi = hi
		v[n-1].last = now
		return v
	}
	return append(v, shareAcks{lo: lo, hi: hi, first: now, last: now})
}

// pass marks the runs below the frontier read past at now.
func (ps *sharePart) pass(now time.Time) {
	passRuns(ps.acked, ps.frontier, now)
	passRuns(ps.gaveUp, ps.frontier, now)
}

func passRuns(v []shareAcks, frontier uint64, now time.Time) {
	for i := range v {
		r := &v[i]
		if r.hi > frontier {
			break
		}
		if r.passed.IsZero() {
			r.passed = now
		}
	}
}

type sharePart struct {
	// done: accepted, archived or declared lost; a delivery of one is a
	// duplicate.
	done spans
	// held: delivered and not done.
	held map[uint64]*shareRec
	// acked: the producer's acknowledgements, in the order they came,
	// until every record of a run is done or declared.
	acked []shareAcks
	// frontier is one past the highest seq the group delivered; the first
	// runs of acked below it are read past.
	frontier uint64
	// failed: records the producer gave up on (a failed produce, an
	// aborted transaction); never lost.
	failed spans
	// gaveUp: the runs of failed in the order the producer gave up on
	// them, until their grace is over: failed then forgets them, and done
	// takes them, so that neither keeps a span per aborted transaction or
	// failed produce for the life of the run.
	gaveUp []shareAcks
	// unknown: the acknowledgements of unknown outcome, in the order
	// their outcome became unknown, until settled (an entry whose record
	// was settled otherwise is skipped).
	unknown []unknownRef
}

// NewShare returns a share tracker for records produced under run id
// ownRun. A zero Grace is DefaultGracePeriod; a zero DeliveryLimit is 5,
// the broker's default.
func NewShare(ownRun uint64, cfg ShareConfig) *Share {
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGracePeriod
	}
	if cfg.DeliveryLimit <= 0 {
		cfg.DeliveryLimit = 5
	}
	if cfg.UnknownWindow <= 0 {
		cfg.UnknownWindow = cfg.Grace
	}
	return &Share{own: ownRun, cfg: cfg, parts: make(map[int32]*sharePart)}
}

// Config is the tracker's effective configuration.
func (t *Share) Config() ShareConfig { return t.cfg }

func (t *Share) part(p int32) *sharePart {
	ps := t.parts[p]
	if ps == nil {
		ps = &sharePart{held: make(map[uint64]*shareRec)}
		t.parts[p] = ps
	}
	return ps
}

func (s spans) has(seq uint64) bool {
	i := s.search(seq)
	return i < len(s) && s[i].lo <= seq
}

// Deliver classifies a record delivered at now with the broker's delivery
// count.
func (t *Share) Deliver(partition int32, run, seq uint64, deliveryCount int32, now time.Time) Delivery {
	if run != t.own {
		return Delivery{OtherRun: true}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	ps := t.part(partition)
	if seq >= ps.frontier {
		ps.frontier = seq + 1
		ps.pass(now)
	}
	if ps.done.has(seq) {
		return Delivery{Duplicate: true}
	}
	if r := ps.held[seq]; r != nil {
		// A release of the probe's own counts even before its
		// confirmation: the broker may hand the record to another member
		// before the releasing one hears back.
		cause := CauseLockExpired
		if r.action == Release {
			cause = CauseReleased
		}
		unknown := !r.unknown.IsZero()
		*r = shareRec{deliveryCount: deliveryCount}
		return Delivery{Redelivery: true, Cause: cause, UnknownNotApplied: unknown}
	}
	ps.held[seq] = &shareRec{deliveryCount: deliveryCount}
	d := Delivery{First: true}
	if deliveryCount > 1 {
		// Delivered before, but not to this probe: another process's
		// member, gone without releasing it, or a record this probe's
		// client held unread when it closed.
		d.Redelivery, d.Cause = true, CauseLockExpired
	}
	return d
}

// Answered notes the action the probe sent for the delivery of seq with
// deliveryCount; an answer to an older delivery is ignored.
func (t *Share) Answered(partition int32, seq uint64, deliveryCount int32, a ShareAction) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.part(partition).held[seq]; r != nil && r.deliveryCount == deliveryCount {
		r.action = a
	}
}

// Confirmed notes the broker's answer to the action the probe answered
// the delivery of seq with deliveryCount: ok says it was confirmed (applied),
// else refused. It is Acknowledged with the action noted by Answered; the
// answer to an older delivery is ignored.
func (t *Share) Confirmed(partition int32, seq uint64, deliveryCount int32, ok bool) Confirmation {
	t.mu.Lock()
	a := NoAction
	if r := t.part(partition).held[seq]; r != nil && r.deliveryCount == deliveryCount {
		a = r.action
	}
	t.mu.Unlock()
	o := AckRefused
	if ok {
		o = AckApplied
	}
	return t.Acknowledged(partition, seq, deliveryCount, a, o, time.Time{})
}

// Acknowledged notes what became of action a, sent for the delivery of seq
// with deliveryCount, at now.
//
//   - Applied to the latest delivery: an accept finishes the record, a
//     reject or a release at the delivery attempt limit archives it.
//   - Applied, sent for an older delivery: the broker applied it to the
//     acquisition the record was in when it arrived, a later delivery to
//     the same member (another member's would have refused it), so an
//     accept or a reject settles the record. A release applied to an
//     older delivery changes nothing: the record is delivered again or
//     left to its lock.
//   - Refused: the record stays held, as if unanswered; it comes back
//     after its lock (a lock expiry, a refused release too), or is
//     archived or lost.
//   - Unknown: the record stays held, and the outcome is settled by a
//     later delivery (not applied) or by SettleUnknown (applied).
//
// An answer applied or refused settles an earlier unknown outcome of the
// same delivery (Confirmation.Unknown).
func (t *Share) Acknowledged(partition int32, seq uint64, deliveryCount int32, a ShareAction, o AckOutcome, now time.Time) Confirmation {
	t.mu.Lock()
	defer t.mu.Unlock()
	ps := t.part(partition)
	r := ps.held[seq]
	if r == nil || a == NoAction || deliveryCount > r.deliveryCount {
		return Confirmation{}
	}
	if deliveryCount < r.deliveryCount {
		if o == AckApplied && (a == Accept || a == Reject) {
			var c Confirmation
			if !r.unknown.IsZero() {
				c.Unknown = UnknownApplied
			}
			ps.finish(seq)
			c.Archived = a == Reject
			return c
		}
		return Confirmation{}
	}
	var c Confirmation
	switch o {
	case AckUnknown:
		// Maybe applied: a (the answer of a refusal made unknown again)
		// settles it.
		r.action = a
		if r.unknown.IsZero() {
			r.unknown = now
			ps.unknown = append(ps.unknown, unknownRef{seq: seq, deliveryCount: deliveryCount, at: now})
		}
		return c
	case AckRefused:
		if !r.unknown.IsZero() {
			r.unknown = time.Time{}
			c.Unknown = UnknownNotApplied
		}
		// Nothing was applied: a refused release did not give the
		// record back, its lock's expiry will.
		r.action = NoAction
		return c
	}
	if !r.unknown.IsZero() {
		r.unknown = time.Time{}
		c.Unknown = UnknownApplied
	}
	switch {
	case a == Accept:
		ps.finish(seq)
	case a == Reject, a == Release && r.deliveryCount >= t.cfg.DeliveryLimit:
		ps.finish(seq)
		c.Archived = true
	}
	return c
}

// SettleUnknown settles as applied every acknowledgement of unknown outcome
// whose record was not delivered again within UnknownWindow: an accept
// finishes the record, a reject archives it, so does a release at the
// delivery attempt limit; a release below it is left to the grace (the
// record should have come back).
func (t *Share) SettleUnknown(now time.Time) UnknownSettled {
	t.mu.Lock()
	defer t.mu.Unlock()
	cutoff := now.Add(-t.cfg.UnknownWindow)
	var u UnknownSettled
	for _, ps := range t.parts {
		n := 0
		for _, ref := range ps.unknown {
			if ref.at.After(cutoff) {
				break
			}
			n++
			r := ps.held[ref.seq]
			if r == nil || r.deliveryCount != ref.deliveryCount || r.unknown.IsZero() {
				continue // settled otherwise
			}
			switch {
			case r.action == Accept:
				u.Accepted++
				ps.finish(ref.seq)
			case r.action == Reject:
				u.ArchivedReject++
				ps.finish(ref.seq)
			case r.deliveryCount >= t.cfg.DeliveryLimit:
				u.ArchivedLimit++
				ps.finish(ref.seq)
			default:
				r.unknown = time.Time{}
			}
		}
		ps.unknown = append(ps.unknown[:0], ps.unknown[n:]...)
	}
	return u
}

func (ps *sharePart) finish(seq uint64) {
	delete(ps.held, seq)
	ps.done.add(seq, time.Time{})
	if len(ps.failed) > 0 {
		ps.failed.remove(seq) // given up on, yet written and delivered
	}
}

// Acked tells the tracker Kafka acknowledged seq to the producer at now:
// its grace period starts.
func (t *Share) Acked(partition int32, seq uint64, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part(partition).addAck(seq, now)
}

// WillNotArrive tells that the producer gave up on [lo, hi): they are never
// lost, and one that arrives anyway is accounted as any delivery.
func (t *Share) WillNotArrive(partition int32, lo, hi uint64, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ps := t.part(partition)
	for seq := lo; seq < hi; seq++ {
		ps.failed.add(seq, now)
	}
	if lo < hi {
		ps.gaveUp = addRun(ps.gaveUp, lo, hi, now)
		ps.pass(now)
	}
}

// Expire settles every acknowledged record whose grace period is over (from
// its acknowledgement and from being read past) and that is not done: one last delivered at the delivery attempt limit was
// archived by the broker (its lock expired or its release was not
// confirmed), any other is lost. Each record is counted once, ever. A
// record the producer gave up on is never lost; once its grace is over
// (from the producer giving up and from being read past) it is forgotten
// as such and counts as done, as the consumer group's tracker forgets it
// after the grace: a delivery of it after that is a duplicate.
func (t *Share) Expire(now time.Time) (lost, archived uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cutoff := now.Add(-t.cfg.Grace)
	for _, ps := range t.parts {
		n := 0
		for _, r := range ps.acked {
			if r.passed.IsZero() || r.last.After(cutoff) || r.passed.After(cutoff) {
				break
			}
			n++
			for seq := r.lo; seq < r.hi; seq++ {
				if ps.done.has(seq) || ps.failed.has(seq) {
					continue // failed: forgotten with its own grace (forgetGaveUp)
				}
				h := ps.held[seq]
				if h != nil && !h.unknown.IsZero() {
					continue // settled by SettleUnknown or a delivery, never lost
				}
				if h != nil && h.deliveryCount >= t.cfg.DeliveryLimit {
					archived++
				} else {
					lost++
				}
				ps.finish(seq)
			}
		}
		ps.acked = append(ps.acked[:0], ps.acked[n:]...)
		ps.forgetGaveUp(cutoff)
	}
	return lost, archived
}

// forgetGaveUp forgets the records the producer gave up on whose grace
// ended before cutoff: they leave failed and fill their hole in done. One
// still held stays failed, so it is never lost: its answer finishes it.
func (ps *sharePart) forgetGaveUp(cutoff time.Time) {
	n := 0
	for _, r := range ps.gaveUp {
		if r.passed.IsZero() || r.last.After(cutoff) || r.passed.After(cutoff) {
			break
		}
		n++
		for seq := r.lo; seq < r.hi; seq++ {
			if ps.held[seq] == nil && ps.failed.remove(seq) {
				ps.done.add(seq, time.Time{})
			}
		}
	}
	ps.gaveUp = append(ps.gaveUp[:0], ps.gaveUp[n:]...)
}

// Held is how many delivered records of the own run are not done yet.
func (t *Share) Held() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, ps := range t.parts {
		n += len(ps.held)
	}
	return n
}
