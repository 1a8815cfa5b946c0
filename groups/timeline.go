package groups

import "time"

// maxSamples bounds a partition's timeline: past it, every other sample
// of its older half is dropped, so the timeline spans ever longer at
// coarser steps (as kafka-lag-exporter's table does).
const maxSamples = 64

// sample is one end offset of a partition and when the exporter saw it:
// first and last, the first and last poll that read it, in Unix
// nanoseconds (24 bytes a sample where two time.Time take 56: a timeline
// is kept for every partition of every group's topics).
type sample struct {
	end, first, last int64
}

// timeline is a partition's end offsets over time, read with the
// exporter's clock at each poll: when a record was written is known to
// within the polls around it.
type timeline struct{ s []sample }

// observe adds the end offset read at now. An end offset lower than the
// last (the topic was deleted and created again) starts the timeline anew.
func (tl *timeline) observe(end int64, now time.Time) {
	if n := len(tl.s); n > 0 {
		last := &tl.s[n-1]
		switch {
		case end == last.end:
			last.last = now.UnixNano()
			return
		case end < last.end:
			tl.s = tl.s[:0]
		}
	}
	tl.s = append(tl.s, sample{end: end, first: now.UnixNano(), last: now.UnixNano()})
	if len(tl.s) > maxSamples {
		half := len(tl.s) / 2
		kept := tl.s[:0]
		for i, x := range tl.s {
			if i >= half || i%2 == 0 {
				kept = append(kept, x)
			}
		}
		tl.s = kept
	}
}

// written is when the record at offset o was written, by the exporter's
// clock: between the last poll that saw the end offset at or below o and
// the first that saw it above, interpolated by the record's place among
// the records written in between. ok is false when o is older than the
// timeline (its first end offset is above o) or not written yet.
func (tl *timeline) written(o int64) (time.Time, bool) {
	if len(tl.s) == 0 || tl.s[0].end > o {
		return time.Time{}, false
	}
	for i := 1; i < len(tl.s); i++ {
		next := tl.s[i]
		if next.end <= o {
			continue
		}
		prev := tl.s[i-1]
		frac := float64(o-prev.end+1) / float64(next.end-prev.end)
		return time.Unix(0, prev.last+int64(frac*float64(next.first-prev.last))), true
	}
	return time.Time{}, false
}
