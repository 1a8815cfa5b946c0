package probes

import (
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// liveness is kafka_bench_probe_up: a record acknowledged and (with a
// consumer) consumed within the up window.
type liveness struct {
	cfg        config.Probe
	partitions *atomic.Int32
	report     func(up bool) // the sinks (event.UpHook)
	logger     *slog.Logger

	lastProduced atomic.Int64 // unix ns of the last acknowledged record
	lastConsumed atomic.Int64 // unix ns of the last consumed record
	up           atomic.Bool
	mu           sync.Mutex // one update at a time: the sinks hear of up in order
	failure      string     // under mu: why a client is failing, "" if none
}

// fail holds the probe down with reason while a client fails to start (it
// is retried): probe_up is 0 at once, not a window later.
func (l *liveness) fail(now time.Time, reason string) {
	l.mu.Lock()
	l.failure = reason
	l.mu.Unlock()
	l.update(now)
}

// recovered ends a failure of fail: the next update follows the records again.
func (l *liveness) recovered() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failure = ""
}

// produced notes an acknowledged record; the first makes the probe up (and
// ready) at once, not at the next lag tick, so /-/ready and probe_up agree.
func (l *liveness) produced(now time.Time) {
	if l.lastProduced.Swap(now.UnixNano()) == 0 {
		l.update(now)
	}
}

// consumed notes a poll with records, as produced does.
func (l *liveness) consumed(now time.Time) {
	if l.lastConsumed.Swap(now.UnixNano()) == 0 {
		l.update(now)
	}
}

// window is how recent the last produced record must be for probe_up = 1:
// two lag intervals, or three rounds of records at low rates.
func (l *liveness) window() time.Duration {
	return max(2*time.Duration(l.cfg.LagInterval), 3*roundPeriod(l.cfg, l.partitions.Load()))
}

// consumeWindow is how recent the last consumed record must be: window,
// and with a read_committed consumer of a transactional producer the time
// between two commits on top, as it reads records only when their
// transaction commits (ok false: none ever commits).
func (l *liveness) consumeWindow() (w time.Duration, ok bool) {
	w = l.window()
	if !l.cfg.Producer.Transactional() || !l.cfg.Consumer.ReadCommitted() {
		return w, true
	}
	runs, ok := abortRun(l.cfg.Producer.TransactionAbortRatio)
	if !ok {
		return w, false
	}
	return w + time.Duration(runs+1)*time.Duration(l.cfg.Producer.TransactionDurationMS)*time.Millisecond, true
}

// abortRun is the longest run of consecutive transactions abortsAt aborts
// for ratio (at most, as ratio is a float): a run of m holds m aborts in m
// transactions, and any m hold at most ⌈m × ratio⌉, so m < 1 / (1 − ratio).
// With ratio 1 every transaction is aborted: ok is false.
func abortRun(ratio float64) (m int, ok bool) {
	if ratio >= 1 {
		return 0, false
	}
	return int(math.Ceil(1/(1-ratio))) - 1, true
}

func (l *liveness) update(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.window().Nanoseconds()
	up := now.UnixNano()-l.lastProduced.Load() < w
	// A read_committed consumer of transactions all aborted on purpose
	// reads nothing by design: producing alone is up.
	if cw, ok := l.consumeWindow(); l.cfg.Consumer.Enabled && ok {
		up = up && now.UnixNano()-l.lastConsumed.Load() < cw.Nanoseconds()
	}
	up = up && l.failure == ""
	was := l.up.Swap(up)
	switch {
	case up:
		l.report(true)
		if !was {
			l.logger.Info("probe is up: records are produced and consumed")
		}
	default:
		l.report(false)
		switch {
		case was && l.failure != "":
			l.logger.Warn("probe is down: a client fails", "reason", l.failure)
		case was:
			l.logger.Warn("probe is down: no records produced or consumed within the window", "window", l.window())
		}
	}
}
