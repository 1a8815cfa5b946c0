package probes

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// A member's rebalances: its own join is counted but not timed; a revoke
// starts a rebalance, later callbacks extend it, and its first records end
// it; records whose intended time fell within it are told apart; the
// cause follows what happened just before.
func TestMemberRebalances(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newRebalanceMetrics(reg)
	cfg := config.NewProbe("p")
	cfg.Resolve()
	r := newRebalances(cfg, m, nil)
	base := time.Unix(1_000_000, 0)
	now := base
	clk := clock{base: base, mono: func() time.Duration { return now.Sub(base) }, wall: func() time.Time { return now }}
	mb := newMember(r, clk, false)
	count := func(cause string) float64 {
		var out dto.Metric
		if err := m.rebalances.WithLabelValues("p", "classic", cause).Write(&out); err != nil {
			t.Fatal(err)
		}
		return out.GetCounter().GetValue()
	}
	mb.begin(false) // the first assignment
	mb.consumed(now)
	if count(CauseJoined) != 1 || rebalanceCount(t, m, "classic") != 0 {
		t.Fatalf("join: joined=%v durations=%d; want 1 and 0", count(CauseJoined), rebalanceCount(t, m, "classic"))
	}

	start := now.Add(time.Minute)
	now = start
	mb.begin(false) // revoked
	now = now.Add(200 * time.Millisecond)
	mb.begin(false) // assigned, same rebalance
	if !r.during(start.Add(100 * time.Millisecond).UnixNano()) {
		t.Error("a record intended during the rebalance is not told apart")
	}
	now = now.Add(300 * time.Millisecond)
	mb.consumed(now)
	if got := count(CauseReassigned); got != 1 {
		t.Errorf("reassigned = %v, want 1", got)
	}
	if n, sum := rebalanceCount(t, m, "classic"), rebalanceSum(t, m, "classic"); n != 1 || sum != 0.5 {
		t.Errorf("durations: %d, sum %v; want 1, 0.5", n, sum)
	}
	if r.during(now.Add(time.Millisecond).UnixNano()) || r.during(start.Add(-time.Millisecond).UnixNano()) {
		t.Error("a record intended outside the rebalance counted as within it")
	}

	now = now.Add(time.Minute)
	r.churnAt.Store(now.UnixNano())
	now = now.Add(time.Second)
	mb.begin(false)
	mb.consumed(now)
	now = now.Add(2 * time.Minute)
	mb.begin(true) // lost
	mb.consumed(now)
	if count(CauseChurn) != 1 || count(CauseLost) != 1 {
		t.Errorf("churn = %v, lost = %v; want 1 and 1", count(CauseChurn), count(CauseLost))
	}

	r.described("consumer")
	now = now.Add(time.Minute)
	mb.begin(false)
	mb.consumed(now)
	if rebalanceCount(t, m, "consumer") != 1 {
		t.Error("a rebalance after the group was described as consumer is not labelled with it")
	}
}

func rebalanceCount(t *testing.T, m *rebalanceMetrics, protocol string) uint64 {
	t.Helper()
	return durations(t, m, protocol).GetSampleCount()
}

func rebalanceSum(t *testing.T, m *rebalanceMetrics, protocol string) float64 {
	t.Helper()
	return durations(t, m, protocol).GetSampleSum()
}

func durations(t *testing.T, m *rebalanceMetrics, protocol string) *dto.Histogram {
	t.Helper()
	return histogramOf(t, m.duration, "p", protocol)
}
