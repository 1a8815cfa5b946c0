package probes

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// replicaProbe is a probe with a replica block (never started) on the fake
// time ft, both with loss grace period grace, and its registry.
func replicaProbe(t *testing.T, ft *fakeTime, grace string) (*Probe, *prometheus.Registry) {
	t.Helper()
	cfg, err := config.Parse([]byte(`
probes:
  - name: dr
    loss_grace_period: ` + grace + `
    replica: {kafka: {brokers: ["127.0.0.1:1"]}, loss_grace_period: ` + grace + `}
`))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	p := New(cfg.Probes[0], Options{Kafka: config.Cluster{Kafka: cfg.Kafka}, Sinks: []event.Sink{promsink.NewMetrics(reg)}})
	p.clk = ft.clock()
	p.partitions.Store(1)
	return p, reg
}

func histogramSum(t *testing.T, f scrape.Families, name string) float64 {
	t.Helper()
	mf, ok := f[name]
	if !ok || len(mf.GetMetric()) != 1 {
		t.Fatalf("%s: no single series", name)
	}
	return mf.GetMetric()[0].GetHistogram().GetSampleSum()
}

// Replication latency is read from the probe's steady clock, like every
// other latency of its own records: a wall-clock step between the probe's
// start and its replica run's start (+1 h) and one during the run (-2 h)
// move none of it, where the step was added to every latency of the run
// (or, backwards, clamped it to 0).
func TestReplicationLatencyIgnoresWallClockSteps(t *testing.T) {
	ft := &fakeTime{wall: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	p, reg := replicaProbe(t, ft, "1m")
	ft.advance(time.Minute)
	ft.step(time.Hour) // before the replica run starts
	run := p.replica.newRun(p.runID, p.clk)
	if !run.startWall.Equal(ft.wall) {
		t.Errorf("the reader starts at %v, want the wall clock %v (record timestamps are the wall clock's)", run.startWall, ft.wall)
	}
	p.replica.cur.Store(run)
	read := func(seq uint64, intended time.Time) {
		h := headerOf(p.runID, intended)
		h.Seq = seq
		p.replica.process(fetchOf(&kgo.Record{Partition: 0, Offset: int64(seq), Value: header(h, 64)}), run, run.clk.now())
	}
	intended := p.clk.now()
	ft.advance(50 * time.Millisecond)
	read(0, intended)
	if got := histogramSum(t, scrape.MustGather(t, reg), "kafka_bench_replication_latency_seconds"); got != 0.050 {
		t.Errorf("replication latency %v s after a +1 h wall-clock step before the run, want 0.050", got)
	}
	intended = p.clk.now()
	ft.advance(10 * time.Millisecond)
	ft.step(-2 * time.Hour)
	ft.advance(10 * time.Millisecond)
	read(1, intended)
	if got := histogramSum(t, scrape.MustGather(t, reg), "kafka_bench_replication_latency_seconds"); got != 0.070 {
		t.Errorf("replication latencies sum to %v s after a -2 h wall-clock step in the run, want 0.050 + 0.020", got)
	}
}

// A record that failed to produce will never arrive, on the source or on
// the replica: both trackers hear of it, so neither keeps a gap for it. A
// long run where every second record fails keeps a bounded state (counted
// in gaps and remembered failures, not time): it used to keep one
// replica gap per failure for ever.
func TestFailedRecordsLeaveNoGaps(t *testing.T) {
	ft := &fakeTime{wall: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	p, _ := replicaProbe(t, ft, "10s")
	run := p.replica.newRun(p.runID, p.clk)
	p.replica.cur.Store(run)
	pr := newProducer(p.runDeps, nil, 0)
	c := &consumer{runDeps: p.runDeps}
	const n = 4000
	for i := range n {
		r := pr.record(p.clk.now(), p.clk.now())
		value := append([]byte(nil), r.Value...)
		ft.advance(100 * time.Millisecond)
		if i%2 == 1 {
			pr.promise(r, kgo.ErrRecordTimeout)
		} else {
			r.Offset = int64(i / 2)
			pr.promise(r, nil)
			read := &kgo.Record{Partition: 0, Offset: r.Offset, Value: value}
			c.process(fetchOf(read), p.clk.now())
			p.replica.process(fetchOf(read), run, p.clk.now())
		}
		if i%10 == 9 {
			p.tracker.Expire(p.clk.now())
			run.tracker.Expire(p.clk.now())
		}
	}
	// 10 s of grace at 5 failures a second: about 50 remembered, whatever n.
	for name, tr := range map[string]interface {
		Pending() (int, uint64, uint64)
	}{"source": p.tracker, "replica": run.tracker} {
		gaps, missing, failed := tr.Pending()
		if gaps != 0 || failed > 60 {
			t.Errorf("%s tracker after %d failures: %d gaps (%d records), %d failures remembered; want 0 gaps and at most a grace period's failures",
				name, n/2, gaps, missing, failed)
		}
	}
	if lost := run.tracker.Expire(p.clk.now().Add(time.Hour)); lost != 0 {
		t.Errorf("replica: %d failed records counted lost", lost)
	}
}
