package tracker

import (
	"slices"
	"sort"
	"time"
)

// gap is a pending range [lo, hi) of missing sequence numbers.
type gap struct {
	lo, hi uint64
	since  time.Time
}

// seqState tracks one run on one partition. Gaps are opened at increasing
// sequence numbers, so gaps is sorted by lo and, for a monotonic clock, by
// age: gaps[0] is the oldest.
type seqState struct {
	expected uint64
	gaps     []gap
}

// push appends g, first declaring the oldest gap lost if MaxGaps is reached.
// It returns the records so lost.
func (s *seqState) push(g gap, maxGaps int) (lost uint64) {
	if len(s.gaps) >= maxGaps {
		lost = s.gaps[0].hi - s.gaps[0].lo
		s.gaps = slices.Delete(s.gaps, 0, 1)
	}
	s.gaps = append(s.gaps, g)
	return lost
}

// fill removes seq from the gap containing it and reports whether seq was
// pending. Splitting a gap in two may exceed maxGaps, in which case the oldest
// gap is declared lost and its records returned.
func (s *seqState) fill(seq uint64, maxGaps int) (ok bool, lost uint64) {
	i := sort.Search(len(s.gaps), func(i int) bool { return s.gaps[i].hi > seq })
	if i == len(s.gaps) || s.gaps[i].lo > seq {
		return false, 0
	}
	g := &s.gaps[i]
	switch {
	case g.lo == seq && g.hi == seq+1:
		s.gaps = slices.Delete(s.gaps, i, i+1)
	case g.lo == seq:
		g.lo++
	case g.hi == seq+1:
		g.hi--
	default:
		right := gap{seq + 1, g.hi, g.since}
		g.hi = seq
		s.gaps = slices.Insert(s.gaps, i+1, right)
		if len(s.gaps) > maxGaps {
			lost = s.gaps[0].hi - s.gaps[0].lo
			s.gaps = slices.Delete(s.gaps, 0, 1)
		}
	}
	return true, lost
}

// expire removes gaps pending for at least grace and returns their records.
func (s *seqState) expire(now time.Time, grace time.Duration) (lost uint64) {
	kept := s.gaps[:0]
	for _, g := range s.gaps {
		if now.Sub(g.since) >= grace {
			lost += g.hi - g.lo
			continue
		}
		kept = append(kept, g)
	}
	clear(s.gaps[len(kept):])
	s.gaps = kept
	return lost
}

// searchSkips returns the index of the first skip >= seq.
func searchSkips(skips []uint64, seq uint64) int {
	i, _ := slices.BinarySearch(skips, seq)
	return i
}

// addSkip inserts seq into the sorted set, dropping the lowest on overflow.
func addSkip(skips *[]uint64, seq uint64, max int) {
	i, found := slices.BinarySearch(*skips, seq)
	if found {
		return
	}
	*skips = slices.Insert(*skips, i, seq)
	if len(*skips) > max {
		*skips = slices.Delete(*skips, 0, 1)
	}
}

// removeSkip deletes seq from the set and reports whether it was there.
func removeSkip(skips *[]uint64, seq uint64) bool {
	if len(*skips) == 0 {
		return false
	}
	i, found := slices.BinarySearch(*skips, seq)
	if found {
		*skips = slices.Delete(*skips, i, i+1)
	}
	return found
}
