package tracker

import (
	"slices"
	"sort"
	"time"
)

// span is a range [lo, hi) of sequence numbers; at is the latest time one
// of them was added.
type span struct {
	lo, hi uint64
	at     time.Time
}

// spans is a sorted set of disjoint, non-adjacent ranges: a run of n
// consecutive sequence numbers costs one span, not n entries.
type spans []span

// search returns the index of the first span that ends after seq.
func (s spans) search(seq uint64) int {
	return sort.Search(len(s), func(i int) bool { return s[i].hi > seq })
}

// add inserts seq, merging with its neighbours.
func (s *spans) add(seq uint64, at time.Time) {
	v := *s
	n := len(v)
	if n > 0 && v[n-1].hi == seq { // the common case: the next in order
		v[n-1].hi++
		v[n-1].at = latest(v[n-1].at, at)
		return
	}
	i := v.search(seq)
	if i < n && v[i].lo <= seq {
		return // already present
	}
	left := i > 0 && v[i-1].hi == seq
	right := i < n && v[i].lo == seq+1
	switch {
	case left && right:
		v[i-1].hi = v[i].hi
		v[i-1].at = latest(latest(v[i-1].at, v[i].at), at)
		*s = slices.Delete(v, i, i+1)
	case left:
		v[i-1].hi++
		v[i-1].at = latest(v[i-1].at, at)
	case right:
		v[i].lo--
		v[i].at = latest(v[i].at, at)
	default:
		*s = slices.Insert(v, i, span{seq, seq + 1, at})
	}
}

// remove deletes seq and reports whether it was present.
func (s *spans) remove(seq uint64) bool {
	v := *s
	i := v.search(seq)
	if i == len(v) || v[i].lo > seq {
		return false
	}
	g := &v[i]
	switch {
	case g.lo == seq && g.hi == seq+1:
		*s = slices.Delete(v, i, i+1)
	case g.lo == seq:
		g.lo++
	case g.hi == seq+1:
		g.hi--
	default:
		*s = slices.Insert(v, i+1, span{seq + 1, g.hi, g.at})
		(*s)[i].hi = seq
	}
	return true
}

// dropBelow removes every seq below x.
func (s *spans) dropBelow(x uint64) {
	v := *s
	i := 0
	for i < len(v) && v[i].hi <= x {
		i++
	}
	if i < len(v) && v[i].lo < x {
		v[i].lo = x
	}
	if i > 0 {
		*s = slices.Delete(v, 0, i)
	}
}

// count is the number of seqs in the set.
func (s spans) count() (n uint64) {
	for _, g := range s {
		n += g.hi - g.lo
	}
	return n
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
