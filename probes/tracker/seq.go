package tracker

import (
	"slices"
	"sort"
	"time"
)

// gap is a range [lo, hi) of sequence numbers the consumer read past without
// receiving them. acked: Kafka acknowledged all of them, the latest at or
// before since, or the gap opened (since) after their acknowledgement; only
// then does the grace period run.
type gap struct {
	lo, hi uint64
	acked  bool
	since  time.Time
}

// seqState tracks one run on one partition. gaps is sorted by lo and holds
// only seqs below expected; acked and failed (own run only) come from the
// producer: acked holds seqs at or above expected, failed any seq the
// producer gave up on that has not arrived (yet).
type seqState struct {
	expected uint64
	gaps     []gap
	acked    spans
	failed   spans
	runs     ackRuns // Config.LoseUnread only
	// aborted are the failed seqs of aborted transactions (Tracker.Aborted).
	aborted spans
}

func (s *seqState) observe(seq uint64, now time.Time) Result {
	r := s.classify(seq, now)
	if len(s.aborted) > 0 && s.aborted.remove(seq) {
		return Aborted
	}
	return r
}

func (s *seqState) classify(seq uint64, now time.Time) Result {
	switch {
	case seq == s.expected:
		s.expected++
		s.acked.dropBelow(s.expected)
		if len(s.failed) > 0 {
			s.failed.remove(seq) // reported failed, yet written
		}
		return InOrder
	case seq > s.expected:
		added := s.openGaps(s.expected, seq, now)
		s.expected = seq + 1
		s.acked.dropBelow(s.expected)
		s.failed.remove(seq)
		if added {
			return Gap
		}
		return InOrder // every record skipped had failed to produce
	}
	// seq < expected: a late record, or one seen before.
	if s.fill(seq) || s.failed.remove(seq) {
		return OutOfOrder
	}
	return Duplicate
}

// openGaps records [lo, hi) as missing, except the failed seqs (which stay
// in failed so a late arrival is OutOfOrder), split by whether they were
// acknowledged. It reports whether any gap was added.
func (s *seqState) openGaps(lo, hi uint64, now time.Time) bool {
	added := false
	fi, ai := s.failed.search(lo), s.acked.search(lo)
	for cur := lo; cur < hi; {
		if fi < len(s.failed) && s.failed[fi].lo <= cur {
			cur = s.failed[fi].hi
			fi++
			continue
		}
		end := hi
		if fi < len(s.failed) {
			end = min(end, s.failed[fi].lo)
		}
		for ai < len(s.acked) && s.acked[ai].hi <= cur {
			ai++
		}
		acked := ai < len(s.acked) && s.acked[ai].lo <= cur
		switch {
		case acked:
			end = min(end, s.acked[ai].hi)
		case ai < len(s.acked):
			end = min(end, s.acked[ai].lo)
		}
		s.gaps = append(s.gaps, gap{cur, end, acked, now})
		added = true
		cur = end
	}
	return added
}

// gapOf returns the index of the gap holding seq, or -1.
func (s *seqState) gapOf(seq uint64) int {
	i := sort.Search(len(s.gaps), func(i int) bool { return s.gaps[i].hi > seq })
	if i == len(s.gaps) || s.gaps[i].lo > seq {
		return -1
	}
	return i
}

// fill removes seq from the gap holding it and reports whether there was one.
func (s *seqState) fill(seq uint64) bool {
	i := s.gapOf(seq)
	if i < 0 {
		return false
	}
	s.cut(i, seq)
	return true
}

// cut removes seq from gaps[i], splitting it when seq is inside.
func (s *seqState) cut(i int, seq uint64) {
	g := &s.gaps[i]
	switch {
	case g.lo == seq && g.hi == seq+1:
		s.gaps = slices.Delete(s.gaps, i, i+1)
	case g.lo == seq:
		g.lo++
	case g.hi == seq+1:
		g.hi--
	default:
		right := gap{seq + 1, g.hi, g.acked, g.since}
		g.hi = seq
		s.gaps = slices.Insert(s.gaps, i+1, right)
	}
}

// ack notes that Kafka acknowledged seq. Below expected, an unacknowledged
// gap record starts its grace period now.
func (s *seqState) ack(seq uint64, now time.Time) {
	if seq >= s.expected {
		s.acked.add(seq, now)
		return
	}
	i := s.gapOf(seq)
	if i < 0 || s.gaps[i].acked {
		return // already received (the consumer was faster than the callback)
	}
	// Joined to an acknowledged gap just before it when adjacent, so a
	// run of late acknowledgements stays one gap.
	if prev := i - 1; seq == s.gaps[i].lo && prev >= 0 && s.gaps[prev].acked && s.gaps[prev].hi == seq {
		s.gaps[prev].hi++
		s.gaps[prev].since = now
		s.cut(i, seq)
		return
	}
	s.cut(i, seq)
	j := sort.Search(len(s.gaps), func(j int) bool { return s.gaps[j].lo > seq })
	s.gaps = slices.Insert(s.gaps, j, gap{seq, seq + 1, true, now})
}

// fail notes that the producer gave up on seq: it is never expected, so it
// leaves a gap and is remembered for a late arrival. A seq already received
// is ignored; fail reports whether seq was not.
func (s *seqState) fail(seq uint64, now time.Time) bool {
	if seq < s.expected && !s.fill(seq) {
		return false
	}
	s.failed.add(seq, now)
	return true
}

// expire declares acknowledged gaps pending for at least grace lost and
// returns their records. Gaps never acknowledged are kept (their outcome is
// still to come), unless dropUnacked: a run whose producer is not ours
// sends no acknowledgements, so its gaps are dropped after grace uncounted.
// Failed seqs the consumer passed more than grace ago are forgotten.
func (s *seqState) expire(now time.Time, grace time.Duration, dropUnacked bool) (lost uint64) {
	kept := s.gaps[:0]
	for _, g := range s.gaps {
		if now.Sub(g.since) >= grace && (g.acked || dropUnacked) {
			if g.acked {
				lost += g.hi - g.lo
			}
			continue
		}
		kept = append(kept, g)
	}
	clear(s.gaps[len(kept):])
	s.gaps = kept
	s.failed.forgetPassed(s.expected, now, grace)
	s.aborted.forgetPassed(s.expected, now, grace)
	return lost
}

// forgetPassed drops the spans wholly below expected added more than grace
// before now.
func (s *spans) forgetPassed(expected uint64, now time.Time, grace time.Duration) {
	kept := (*s)[:0]
	for _, f := range *s {
		if f.hi <= expected && now.Sub(f.at) >= grace {
			continue
		}
		kept = append(kept, f)
	}
	clear((*s)[len(kept):])
	*s = kept
}
