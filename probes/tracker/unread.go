package tracker

import "time"

// runSpan bounds the acknowledgement times one ackRun covers, so that the
// records of a run are declared lost within runSpan of their own grace
// period, not of the newest record's.
const runSpan = time.Second

// ackRun is a range [lo, hi) of consecutive sequence numbers acknowledged
// between first and last.
type ackRun struct {
	lo, hi      uint64
	first, last time.Time
}

// ackRuns are the acknowledgements at or above expected, in the order they
// came (Config.LoseUnread only): a FIFO of short runs, so a record that is
// never read can be found once its grace period is over.
type ackRuns []ackRun

func (r *ackRuns) add(seq uint64, now time.Time) {
	v := *r
	if n := len(v); n > 0 && v[n-1].hi == seq && now.Sub(v[n-1].first) < runSpan {
		v[n-1].hi++
		v[n-1].last = now
		return
	}
	*r = append(v, ackRun{lo: seq, hi: seq + 1, first: now, last: now})
}

// readPastUnread: with nothing read past them, acknowledged records still
// unread grace after their acknowledgement are read past now, as if a later
// record had arrived then; the gaps opened start at the cutoff, so expire
// declares the acknowledged ones lost at once, while records not
// acknowledged yet wait for their acknowledgement as usual.
func (s *seqState) readPastUnread(now time.Time, grace time.Duration) {
	cutoff := now.Add(-grace)
	var upTo uint64
	kept := s.runs[:0]
	for _, r := range s.runs {
		switch {
		case r.hi <= s.expected: // read meanwhile
		case !r.last.After(cutoff):
			upTo = max(upTo, r.hi)
		default:
			kept = append(kept, r)
		}
	}
	clear(s.runs[len(kept):])
	s.runs = kept
	if upTo > s.expected {
		s.openGaps(s.expected, upTo, cutoff)
		s.expected = upTo
		s.acked.dropBelow(upTo)
	}
}

// unread is the number of acknowledged records not received yet and the
// acknowledgement time of the oldest (zero when there is none).
func (s *seqState) unread() (n uint64, oldest time.Time) {
	older := func(t time.Time) {
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	n = s.acked.count()
	for _, g := range s.gaps {
		if g.acked {
			n += g.hi - g.lo
			older(g.since)
		}
	}
	for _, r := range s.runs {
		if r.hi > s.expected {
			older(r.first)
		}
	}
	return n, oldest
}

// Unread returns how many acknowledged records of the own run have not been
// received yet, over all partitions, and when the oldest of them was
// acknowledged (zero when there is none). The time is exact with
// Config.LoseUnread; without it only gaps read past give one.
func (t *Tracker) Unread() (n uint64, oldest time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ps := range t.parts {
		k, o := ps.own.unread()
		n += k
		if !o.IsZero() && (oldest.IsZero() || o.Before(oldest)) {
			oldest = o
		}
	}
	return n, oldest
}
