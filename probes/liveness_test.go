package probes

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// livenessOf is a probe's liveness on cfg, three partitions, whose reports
// are kept for upValue.
func livenessOf(cfg config.Probe) *liveness {
	var parts atomic.Int32
	parts.Store(3)
	l := &liveness{cfg: cfg, partitions: &parts, logger: slog.New(slog.DiscardHandler)}
	reported := new(atomic.Bool)
	l.report = reported.Store
	reports[l] = reported
	return l
}

// reports are the last up reported by each liveness of livenessOf.
var reports = map[*liveness]*atomic.Bool{}

// upValue is the last probe_up l reported: 1 or 0.
func upValue(t *testing.T, l *liveness) float64 {
	t.Helper()
	if reports[l].Load() {
		return 1
	}
	return 0
}

func txnProbeConfig(isolation string, duration time.Duration, ratio float64) config.Probe {
	cfg := config.Probe{Rate: 10, LagInterval: model.Duration(5 * time.Second)}
	cfg.Producer.TransactionalID = "canary"
	cfg.Producer.TransactionDurationMS = int(duration / time.Millisecond)
	cfg.Producer.TransactionAbortRatio = ratio
	cfg.Consumer.Enabled = true
	cfg.Consumer.IsolationLevel = isolation
	return cfg
}

// A healthy transactional probe: a record acknowledged every 100 ms, and a
// read_committed consumer that reads a transaction's records when it
// commits, every transaction.duration.ms but for those aborted on purpose
// (every other one here). It stays up at every lag tick, though its
// transactions last far longer than the base window (2 × lag_interval);
// once its consumer stalls it goes down.
func TestLivenessReadCommittedTransactions(t *testing.T) {
	const duration = 6 * time.Minute
	l := livenessOf(txnProbeConfig("read_committed", duration, 0.5))
	start := time.Unix(1_000_000, 0)
	tick := 5 * time.Second
	var k uint64 // the transaction open at now
	now := start
	for ; now.Before(start.Add(30 * time.Minute)); now = now.Add(100 * time.Millisecond) {
		l.produced(now)
		if now.Sub(start) >= time.Duration(k+1)*duration {
			if !abortsAt(k, 0.5) {
				l.consumed(now)
			}
			k++
		}
		if l.lastConsumed.Load() != 0 && now.Sub(start)%tick == 0 { // from the first commit on
			l.update(now)
			if got := upValue(t, l); got != 1 {
				t.Fatalf("probe_up = %v at %s of a healthy read_committed probe (transaction %d), want 1", got, now.Sub(start), k)
			}
		}
	}
	// The consumer stalls: down once two transactions' time and the base
	// window are over, not never.
	cw, ok := l.consumeWindow()
	if !ok || cw != l.window()+2*duration {
		t.Fatalf("consume window %s (%v), want %s", cw, ok, l.window()+2*duration)
	}
	l.update(now.Add(cw + time.Second))
	if got := upValue(t, l); got != 0 {
		t.Errorf("probe_up = %v after the consumer stalled for %s, want 0", got, cw+time.Second)
	}
}

// A read_uncommitted consumer reads records as they are written: its window
// is the base one, transactions or not.
func TestLivenessReadUncommittedWindow(t *testing.T) {
	l := livenessOf(txnProbeConfig("read_uncommitted", time.Minute, 0))
	start := time.Unix(1_000_000, 0)
	l.produced(start)
	l.consumed(start)
	at := start.Add(l.window() + time.Second)
	l.produced(at)
	l.update(at)
	if got := upValue(t, l); got != 0 {
		t.Errorf("probe_up = %v with nothing consumed for %s (window %s), want 0", got, l.window()+time.Second, l.window())
	}
}

func TestAbortRun(t *testing.T) {
	for _, ratio := range []float64{0, 0.1, 0.25, 1.0 / 3, 0.5, 0.6, 0.75, 0.9, 0.99} {
		longest, run := 0, 0
		for k := range uint64(100_000) {
			if abortsAt(k, ratio) {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
		got, ok := abortRun(ratio)
		if !ok || got < longest || got > longest+1 {
			t.Errorf("abortRun(%v) = %d, %v; the longest run of abortsAt is %d", ratio, got, ok, longest)
		}
	}
	if _, ok := abortRun(1); ok {
		t.Error("abortRun(1): ok, want none (every transaction aborted)")
	}
}
