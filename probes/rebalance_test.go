package probes

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// A member's rebalances: its own join is counted but not timed; a revoke
// starts a rebalance, later callbacks extend it, and its first records end
// it; records whose intended time fell within it are told apart; the
// cause follows what happened just before.
func TestMemberRebalances(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := config.NewProbe("p")
	cfg.Resolve()
	r := newRebalances(cfg, event.New(promsink.NewMetrics(reg).ForProbe(cfg)))
	base := time.Unix(1_000_000, 0)
	now := base
	clk := clock{base: base, mono: func() time.Duration { return now.Sub(base) }, wall: func() time.Time { return now }}
	mb := newMember(r, clk, false)
	count := func(cause string) float64 {
		v, _ := scrape.MustGather(t, reg).Value("kafka_bench_consumer_rebalances_total", "probe", "p", "protocol", "classic", "cause", cause)
		return v
	}
	mb.begin(false) // the first assignment
	mb.consumed(now)
	if count(CauseJoined) != 1 || rebalanceCount(t, reg, "classic") != 0 {
		t.Fatalf("join: joined=%v durations=%d; want 1 and 0", count(CauseJoined), rebalanceCount(t, reg, "classic"))
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
	if n, sum := rebalanceCount(t, reg, "classic"), rebalanceSum(t, reg, "classic"); n != 1 || sum != 0.5 {
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
	if rebalanceCount(t, reg, "consumer") != 1 {
		t.Error("a rebalance after the group was described as consumer is not labelled with it")
	}
}

// consumer.churn: the churn member leaves, its client's close revoking
// what it held; the member that stays is given those partitions and reads
// them. The rebalance the leave began ends then, not never: a record
// intended in steady state afterwards is not one of a rebalance. A churn
// member that held nothing leaves no rebalance behind.
func TestChurnMemberLeaveClosedByTheOthers(t *testing.T) {
	reg := prometheus.NewRegistry()
	cfg := config.NewProbe("p")
	cfg.Resolve()
	r := newRebalances(cfg, event.New(promsink.NewMetrics(reg).ForProbe(cfg)))
	base := time.Unix(1_000_000, 0)
	now := base
	clk := clock{base: base, mono: func() time.Duration { return now.Sub(base) }, wall: func() time.Time { return now }}
	nop := func(context.Context, *kgo.Client, map[string][]int32) {}
	stays, churn := newMember(r, clk, false), newMember(r, clk, true)
	stayAssigned, _, _ := stays.callbacks(nop)
	churnAssigned, churnRevoked, _ := churn.callbacks(nop)
	stayAssigned(t.Context(), nil, map[string][]int32{"t": {0, 1}}) // joins
	stays.consumed(now)
	churnAssigned(t.Context(), nil, map[string][]int32{"t": {2}}) // the churn member joins
	churn.consumed(now)

	now = now.Add(time.Minute)
	leave := now
	churnRevoked(t.Context(), nil, map[string][]int32{"t": {2}}) // its client closes
	churn.left()
	if !r.during(leave.Add(time.Millisecond).UnixNano()) {
		t.Fatal("a record intended right after the churn member left is not within a rebalance")
	}
	now = now.Add(time.Second)
	stayAssigned(t.Context(), nil, map[string][]int32{"t": {2}})
	now = now.Add(time.Second)
	stays.consumed(now)
	if !r.during(leave.Add(time.Second).UnixNano()) {
		t.Error("a record intended before the partitions were read again is not within the rebalance")
	}
	if r.during(now.Add(10 * time.Minute).UnixNano()) {
		t.Error("a record intended in steady state after the churn member left counts as within a rebalance")
	}

	// A churn member that held no partitions: its leave's revoke (empty)
	// is no rebalance of anyone.
	churn2 := newMember(r, clk, true)
	assigned2, revoked2, _ := churn2.callbacks(nop)
	now = now.Add(time.Minute)
	assigned2(t.Context(), nil, map[string][]int32{})
	now = now.Add(time.Minute)
	revoked2(t.Context(), nil, map[string][]int32{})
	churn2.left()
	if r.during(now.Add(time.Minute).UnixNano()) {
		t.Error("the leave of a churn member that held no partitions left a rebalance open")
	}
}

func rebalanceCount(t *testing.T, reg *prometheus.Registry, protocol string) uint64 {
	t.Helper()
	return durations(t, reg, protocol).GetSampleCount()
}

func rebalanceSum(t *testing.T, reg *prometheus.Registry, protocol string) float64 {
	t.Helper()
	return durations(t, reg, protocol).GetSampleSum()
}

// durations is the rebalance duration histogram of probe p under protocol;
// empty when it has no series.
func durations(t *testing.T, reg *prometheus.Registry, protocol string) *dto.Histogram {
	t.Helper()
	ms := scrape.MustGather(t, reg).Find("kafka_bench_consumer_rebalance_duration_seconds", "probe", "p", "protocol", protocol)
	if len(ms) == 0 {
		return &dto.Histogram{}
	}
	return ms[0].GetHistogram()
}
