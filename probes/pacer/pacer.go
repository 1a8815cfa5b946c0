// Package pacer schedules probe records by their intended send time.
//
// Records are intended in rounds of a fixed number of records: round r is
// intended at start + r*round/rate, computed from r rather than by adding up
// intervals, so the schedule never drifts. Every record of a round shares the
// round's intended time, so one wake-up hands out a whole round and no
// record is ever handed out before its intended time. The sender measures
// latency from the intended time, so a stall is charged to every record it
// delayed instead of being hidden (no coordinated omission). A round of 1 is
// one record every 1/rate.
package pacer

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// Pacer hands out record indexes as they become due. Wait and SkipTo must be
// called from a single goroutine; Next and Behind may be called concurrently
// (e.g. from a metrics scrape).
type Pacer struct {
	clock      Clock
	start      time.Time
	rate       float64 // records per second; <= 0 means unlimited
	round      uint64  // records per round, 1 ... maxRound
	nsPerRound float64 // nanoseconds between the intended times of two rounds
	next       atomic.Uint64
	// corrections counts the steps dueBefore took from its estimate to
	// the exact end, so tests can tell that it never spins.
	corrections uint64
}

// Bounds that keep every schedule computable without overflow or spinning:
// at most one record per nanosecond (1e9 records/s; a faster rate is paced
// at that), rounds of at most maxRound records, intended times within
// time.Duration's range of start (later ones saturate), and a bounded
// correction of dueBefore's float estimate.
const (
	maxRound       = 1 << 32
	maxCorrections = 1 << 12
)

// New returns a pacer whose first round is intended at start, with round
// records per round (0 is treated as 1, more than 2^32 as 2^32). A rate
// <= 0, NaN or +Inf means unlimited: Wait never blocks.
func New(clock Clock, start time.Time, rate float64, round uint64) *Pacer {
	p := &Pacer{clock: clock, start: start, round: min(max(round, 1), maxRound)}
	if rate > 0 && !math.IsInf(rate, 1) {
		p.rate = rate
		// A nanosecond per record at least: the float estimate of
		// dueBefore then stays within a few rounds of the exact end, and
		// record indexes stay below 2^64 for time.Duration's whole range.
		// At most time.Duration's range: for a rate near the smallest
		// float, 1e9/rate is +Inf and round 0's time 0*Inf would be NaN
		// (configuration refuses rates below config.MinRate).
		p.nsPerRound = min(max(float64(p.round)*1e9/rate, float64(p.round)), math.MaxInt64)
	}
	return p
}

func (p *Pacer) unlimited() bool { return p.rate == 0 }

// Intended returns the intended send time of record i: that of its round. It
// is start for an unlimited rate, where intended times have no meaning.
func (p *Pacer) Intended(i uint64) time.Time {
	if p.unlimited() {
		return p.start
	}
	return p.roundTime(i / p.round)
}

// Round returns the intended send time of record i, as Intended, and the
// index of the first record of the next round: every record in between
// shares that time, so a caller handing out many records computes it once
// per round. For an unlimited rate it is start and no record ends the round.
func (p *Pacer) Round(i uint64) (intended time.Time, next uint64) {
	if p.unlimited() {
		return p.start, math.MaxUint64
	}
	r := i / p.round
	next = (r + 1) * p.round
	if next <= i { // past 2^64
		next = math.MaxUint64
	}
	return p.roundTime(r), next
}

func (p *Pacer) roundTime(r uint64) time.Time {
	d := float64(r) * p.nsPerRound
	if !(d < math.MaxInt64) { // +Inf too; converting 2^63 or more is undefined
		return p.start.Add(math.MaxInt64)
	}
	return p.start.Add(time.Duration(d))
}

// Next returns the index of the next record not yet handed out.
func (p *Pacer) Next() uint64 { return p.next.Load() }

// Behind reports how far the next undelivered record's intended time lies
// before now, or 0 if it is not yet due.
func (p *Pacer) Behind(now time.Time) time.Duration {
	if p.unlimited() {
		return 0
	}
	if d := now.Sub(p.Intended(p.next.Load())); d > 0 {
		return d
	}
	return 0
}

// Wait blocks until at least one record is due and returns the due range
// [first, first+n) with 1 <= n <= maxBatch (a maxBatch of 0 is treated as 1):
// on time, that is one whole round. After a stall every due record is handed
// out, maxBatch at a time, each keeping its original intended time. With an unlimited rate it returns
// maxBatch records at once. It returns ctx.Err() if ctx is done.
func (p *Pacer) Wait(ctx context.Context, maxBatch uint64) (first, n uint64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	maxBatch = max(maxBatch, 1)
	first = p.next.Load()
	if p.unlimited() {
		p.next.Store(first + maxBatch)
		return first, maxBatch, nil
	}
	due := p.Intended(first)
	now := p.clock.Now()
	// Loop because a clock may wake early; a record is never handed out
	// before its intended time.
	for now.Before(due) {
		if err := p.clock.SleepUntil(ctx, due); err != nil {
			return 0, 0, err
		}
		now = p.clock.Now()
	}
	n = min(p.dueBefore(now, true)-first, maxBatch)
	p.next.Store(first + n)
	return first, n, nil
}

// SkipTo drops, without handing them out, every record intended strictly
// before t and returns how many were dropped. The caller counts them as
// failed when it has fallen too far behind to catch up.
func (p *Pacer) SkipTo(t time.Time) uint64 {
	if p.unlimited() {
		return 0
	}
	first := p.next.Load()
	end := p.dueBefore(t, false)
	if end <= first {
		return 0
	}
	p.next.Store(end)
	return end - first
}

// dueBefore returns the smallest index whose intended time is after t
// (inclusive=true) or not before t (inclusive=false): the end of the range of
// records due by t, always the end of a round. The float estimate is
// corrected against roundTime so both always agree despite rounding.
func (p *Pacer) dueBefore(t time.Time, inclusive bool) uint64 {
	in := func(r uint64) bool {
		rt := p.roundTime(r)
		return rt.Before(t) || (inclusive && rt.Equal(t))
	}
	elapsed := float64(t.Sub(p.start))
	if elapsed < 0 {
		elapsed = 0
	}
	// elapsed < 2^63 and nsPerRound >= 1: the estimate fits a uint64,
	// and so does end*round (nsPerRound >= round).
	end := uint64(elapsed/p.nsPerRound) + 1 // in rounds
	steps := 0
	for ; steps < maxCorrections && end > 0 && !in(end-1); steps++ {
		end--
	}
	for ; steps < maxCorrections && in(end); steps++ {
		end++
	}
	p.corrections += uint64(steps)
	return end * p.round
}
