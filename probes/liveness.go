package probes

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// liveness is kafka_bench_probe_up: a record acknowledged and (with a
// consumer) consumed within the up window.
type liveness struct {
	cfg        config.Probe
	partitions *atomic.Int32
	gauge      prometheus.Gauge
	logger     *slog.Logger

	lastProduced atomic.Int64 // unix ns of the last acknowledged record
	lastConsumed atomic.Int64 // unix ns of the last consumed record
	up           atomic.Bool
	mu           sync.Mutex // one update at a time: the gauge follows up
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

// window is how recent the last produced and consumed record must be for
// probe_up = 1: two lag intervals, or three rounds of records at low rates.
func (l *liveness) window() time.Duration {
	return max(2*time.Duration(l.cfg.LagInterval), 3*roundPeriod(l.cfg, l.partitions.Load()))
}

func (l *liveness) update(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.window().Nanoseconds()
	up := now.UnixNano()-l.lastProduced.Load() < w
	if l.cfg.Consumer.Enabled {
		up = up && now.UnixNano()-l.lastConsumed.Load() < w
	}
	up = up && l.failure == ""
	was := l.up.Swap(up)
	switch {
	case up:
		l.gauge.Set(1)
		if !was {
			l.logger.Info("probe is up: records are produced and consumed")
		}
	default:
		l.gauge.Set(0)
		switch {
		case was && l.failure != "":
			l.logger.Warn("probe is down: a client fails", "reason", l.failure)
		case was:
			l.logger.Warn("probe is down: no records produced or consumed within the window", "window", l.window())
		}
	}
}
