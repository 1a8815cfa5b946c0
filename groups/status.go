package groups

import "time"

// A group's status, in the spirit of Burrow's evaluation, at each poll
// from its lag in records (summed over its partitions) and its committed
// offsets over groups.stall_window:
//
//   - ok: caught up (no lag), or not behind for long: lag was 0 at some
//     poll of the window, or is lower than at the window's start;
//   - stopped: lag and no members (its consumers are gone);
//   - stalled: lag, members, and no committed offset moved for the whole
//     window (the consumers are stuck, or do not commit);
//   - lagging: lag at every poll of the window and not lower than at its
//     start, while the offsets move (the consumers do not keep up).
const (
	StatusOK      = "ok"
	StatusLagging = "lagging"
	StatusStalled = "stalled"
	StatusStopped = "stopped"
)

// lagPoint is a group's lag in records at a poll.
type lagPoint struct {
	at  time.Time
	lag int64
}

// status is the rule above. moved is when a committed offset of the group
// last moved (its first poll when none has since the exporter started);
// history holds the lag at the polls of the window, oldest first, the
// current poll last; members < 0 is unknown (not described).
func status(history []lagPoint, moved time.Time, members int, empty bool, window time.Duration) string {
	if len(history) == 0 {
		return StatusOK
	}
	now := history[len(history)-1]
	switch {
	case now.lag == 0:
		return StatusOK
	case members == 0 || members < 0 && empty:
		return StatusStopped
	case now.at.Sub(moved) >= window:
		return StatusStalled
	}
	start := history[0]
	if now.at.Sub(start.at) < window {
		return StatusOK // not behind for a whole window yet
	}
	for _, p := range history {
		if p.lag == 0 {
			return StatusOK
		}
	}
	if now.lag < start.lag {
		return StatusOK // catching up
	}
	return StatusLagging
}

// trim keeps the points of the window before the current poll, and the
// last one older, which marks its start.
func trim(history []lagPoint, now time.Time, window time.Duration) []lagPoint {
	i := 0
	for i+1 < len(history) && now.Sub(history[i+1].at) >= window {
		i++
	}
	return history[i:]
}
