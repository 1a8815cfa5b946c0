package tracker

import (
	"slices"
	"sort"
	"time"
)

// Ranges is a set of sequence numbers kept as sorted, disjoint ranges: a
// bench keeps which records were acknowledged and which were read in it, so
// that results of several processes can be compared exactly.
type Ranges struct{ s spans }

// Add inserts seq and reports whether it was new.
func (r *Ranges) Add(seq uint64) bool {
	v := r.s
	if n := len(v); n > 0 && v[n-1].hi == seq {
		v[n-1].hi++ // the common case: the next in order
		return true
	}
	if i := v.search(seq); i < len(v) && v[i].lo <= seq {
		return false
	}
	r.s.add(seq, time.Time{})
	return true
}

// AddRange inserts [lo, hi), joining every range it touches.
func (r *Ranges) AddRange(lo, hi uint64) {
	if lo >= hi {
		return
	}
	v := r.s
	i := sort.Search(len(v), func(k int) bool { return v[k].hi >= lo })
	j := i
	for ; j < len(v) && v[j].lo <= hi; j++ {
		lo, hi = min(lo, v[j].lo), max(hi, v[j].hi)
	}
	r.s = slices.Replace(v, i, j, span{lo: lo, hi: hi})
}

// RemoveRange removes [lo, hi) and returns how many of them were in the set.
func (r *Ranges) RemoveRange(lo, hi uint64) (removed uint64) {
	if lo >= hi {
		return 0
	}
	var out spans
	for _, g := range r.s {
		if g.hi <= lo || g.lo >= hi {
			out = append(out, g)
			continue
		}
		removed += min(g.hi, hi) - max(g.lo, lo)
		if g.lo < lo {
			out = append(out, span{lo: g.lo, hi: lo})
		}
		if g.hi > hi {
			out = append(out, span{lo: hi, hi: g.hi})
		}
	}
	r.s = out
	return removed
}

// Count is the number of sequence numbers in the set.
func (r *Ranges) Count() uint64 { return r.s.count() }

// List returns the ranges as [lo, hi) pairs, in order.
func (r *Ranges) List() [][2]uint64 {
	out := make([][2]uint64, len(r.s))
	for i, g := range r.s {
		out[i] = [2]uint64{g.lo, g.hi}
	}
	return out
}

// Intersect is the number of sequence numbers in both r and o.
func (r *Ranges) Intersect(o *Ranges) (n uint64) {
	a, b := r.s, o.s
	for len(a) > 0 && len(b) > 0 {
		lo, hi := max(a[0].lo, b[0].lo), min(a[0].hi, b[0].hi)
		if lo < hi {
			n += hi - lo
		}
		if a[0].hi < b[0].hi {
			a = a[1:]
		} else {
			b = b[1:]
		}
	}
	return n
}
