// Package tracker classifies consumed probe records per partition as in
// order, duplicate, out of order or missing, with bounded memory.
//
// For the own run, the expected sequence number of a partition starts at 0,
// so records missing from the very start count as gaps too. A gap that stays
// unfilled for Config.GracePeriod is declared lost, once. A record whose
// sequence number was already declared lost is reported as Duplicate: the
// loss was final and the record cannot be told apart from a redelivery.
//
// Records of another run (a previous process of the same probe whose records
// are still in the topic) get their own baseline on the partition: the first
// one returns OtherRun and later ones of that run are tracked the same way,
// including gap expiry, until the own run appears. The own run is tracked in
// separate state, so it is never disturbed by foreign records: once it has
// appeared, foreign records only return OtherRun.
package tracker

import (
	"sync"
	"time"
)

// Config bounds the tracker. Zero values select the defaults.
type Config struct {
	// GracePeriod is how long a gap may stay unfilled before its records
	// count as lost (default 30s).
	GracePeriod time.Duration
	// MaxGaps bounds the pending gap ranges per partition (default 1024).
	// On overflow the oldest gap is declared lost at once.
	MaxGaps int
	// MaxSkips bounds the sequence numbers per partition that the producer
	// reported as never sent (default 4096). On overflow the lowest, in
	// practice the oldest, is forgotten.
	MaxSkips int
}

// Defaults for zero Config fields.
const (
	DefaultGracePeriod = 30 * time.Second
	DefaultMaxGaps     = 1024
	DefaultMaxSkips    = 4096
)

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
	}
	return "unknown"
}

// Tracker holds per-partition sequence state. It is safe for concurrent use.
type Tracker struct {
	own uint64
	cfg Config

	mu         sync.Mutex
	parts      map[int32]*partition
	unreported uint64 // lost through MaxGaps overflow, returned by the next Expire
}

// partition keeps the own run and at most one foreign run apart.
type partition struct {
	own     seqState
	ownSeen bool
	skips   []uint64 // own-run seqs never sent, sorted ascending

	other    *seqState // foreign run tracked until the own run appears
	otherRun uint64
}

// New returns a tracker for records produced under run id ownRun.
func New(ownRun uint64, cfg Config) *Tracker {
	if cfg.GracePeriod <= 0 {
		cfg.GracePeriod = DefaultGracePeriod
	}
	if cfg.MaxGaps <= 0 {
		cfg.MaxGaps = DefaultMaxGaps
	}
	if cfg.MaxSkips <= 0 {
		cfg.MaxSkips = DefaultMaxSkips
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
		return t.observe(&ps.own, &ps.skips, seq, now)
	}
	if ps.ownSeen {
		return OtherRun
	}
	if ps.other == nil || ps.otherRun != run {
		ps.other, ps.otherRun = &seqState{expected: seq + 1}, run
		return OtherRun
	}
	var noSkips []uint64
	return t.observe(ps.other, &noSkips, seq, now)
}

func (t *Tracker) observe(s *seqState, skips *[]uint64, seq uint64, now time.Time) Result {
	switch {
	case seq == s.expected:
		s.expected++
		removeSkip(skips, seq)
		return InOrder
	case seq > s.expected:
		lo := s.expected
		s.expected = seq + 1
		removeSkip(skips, seq)
		if t.addGap(s, *skips, lo, seq, now) {
			return Gap
		}
		return InOrder // every missing record was reported as never sent
	}
	// seq < expected: a late record, or one seen before.
	if ok, lost := s.fill(seq, t.cfg.MaxGaps); ok {
		t.unreported += lost
		return OutOfOrder
	}
	if removeSkip(skips, seq) {
		return OutOfOrder // reported as failed, yet arrived after later ones
	}
	return Duplicate
}

// addGap records [lo, hi) minus the skipped seqs, which stay in the skip set
// so a late arrival is classified OutOfOrder. It reports whether any range
// was added.
func (t *Tracker) addGap(s *seqState, skips []uint64, lo, hi uint64, now time.Time) bool {
	added := false
	for _, k := range skips[searchSkips(skips, lo):searchSkips(skips, hi)] {
		if k > lo {
			t.unreported += s.push(gap{lo, k, now}, t.cfg.MaxGaps)
			added = true
		}
		lo = k + 1
	}
	if hi > lo {
		t.unreported += s.push(gap{lo, hi, now}, t.cfg.MaxGaps)
		added = true
	}
	return added
}

// Skip tells the tracker the producer failed to send seq of the own run on
// partition, so it is never expected: it is removed from a pending gap, or
// remembered (bounded) so a later gap excludes it. A seq already received or
// already declared lost is ignored.
func (t *Tracker) Skip(partition int32, seq uint64, _ time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ps := t.part(partition)
	if seq < ps.own.expected {
		ok, lost := ps.own.fill(seq, t.cfg.MaxGaps)
		t.unreported += lost
		if !ok {
			return
		}
	}
	// Kept even when removed from a gap, so a late arrival is OutOfOrder.
	addSkip(&ps.skips, seq, t.cfg.MaxSkips)
}

// Expire declares every gap pending for at least GracePeriod lost and returns
// the number of records newly lost, including those lost through MaxGaps
// overflow since the last call. Each missing record is counted once, ever.
func (t *Tracker) Expire(now time.Time) (lost uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	lost, t.unreported = t.unreported, 0
	for _, ps := range t.parts {
		lost += ps.own.expire(now, t.cfg.GracePeriod)
		if ps.other != nil {
			lost += ps.other.expire(now, t.cfg.GracePeriod)
		}
	}
	return lost
}

// Pending returns the number of pending gap ranges and the records in them.
func (t *Tracker) Pending() (gaps int, records uint64) {
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
		}
	}
	return gaps, records
}

// Reset forgets a partition, e.g. after the topic was recreated. Its pending
// gaps are dropped, not counted as lost.
func (t *Tracker) Reset(partition int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.parts, partition)
}
