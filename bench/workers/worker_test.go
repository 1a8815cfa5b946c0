package workers

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// A worker that reaches a scenario after its common start goes on at once
// and says how late it is; one that is early waits for the start.
func TestWorkerWaitStart(t *testing.T) {
	ws := &workerSweep{Worker: &Worker{Workers: 2, Index: 1}, logger: slog.New(slog.DiscardHandler)}
	late, err := ws.WaitStart(context.Background(), time.Now().Add(-3*time.Second), "s")
	if err != nil || late < 3*time.Second || !(result.WorkerInfo{LateBy: late}).Late() {
		t.Errorf("3 s after the start: late by %s (err %v), want ≥ 3s and flagged late", late, err)
	}
	start := time.Now().Add(200 * time.Millisecond)
	late, err = ws.WaitStart(context.Background(), start, "s")
	if err != nil || late != 0 || time.Now().Before(start) {
		t.Errorf("before the start: returned at %s, late by %s (err %v), want at or after %s and on time", time.Now(), late, err, start)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.WaitStart(ctx, time.Now().Add(time.Hour), "s"); !errors.Is(err, run.ErrInterrupted) {
		t.Errorf("interrupted wait: err %v, want %v", err, run.ErrInterrupted)
	}
}

// What a sweep cannot split is refused, naming the flag and the value.
func TestWorkerCheck(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ok := Worker{Workers: 3, Index: 2, StartAt: start, SweepName: "r", ResultsTopic: DefaultResultsTopic}
	cases := []struct {
		w    Worker
		b    spec.Bench
		want string
	}{
		{ok, spec.Bench{NumRecords: 3}, ""},
		{Worker{Workers: 3, Index: 3}, spec.Bench{}, "--worker-index=3: must be below --workers=3"},
		{Worker{Workers: 0}, spec.Bench{}, "--workers=0: must be at least 1"},
		{ok, spec.Bench{Rounds: 3}, "--workers=3: rounds = 3"},
		{ok, spec.Bench{FindMaxRate: true}, "--workers=3: find_max_rate"},
		{ok, spec.Bench{NumRecords: 2}, "--workers=3: num_records = 2: fewer records than workers"},
		// Shares below a record/s are fine; a rate whose shares round to
		// 0 (as fast as possible) is not.
		{ok, spec.Bench{NumRecords: 3, Scenarios: []spec.Scenario{{Name: "slow", Probe: config.Probe{Rate: 2}}}}, ""},
		{ok, spec.Bench{NumRecords: 3, Scenarios: []spec.Scenario{{Name: "tiny", Probe: config.Probe{Rate: 5e-324}}}}, `--workers=3: scenario "tiny" rate = 5e-324: cannot be split`},
	}
	for _, c := range cases {
		err := c.w.Check(&c.b)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v with %+v: %v, want %q", c.w, c.b, err, c.want)
		}
	}
	if got := ok.part(&spec.Bench{NumRecords: 10}).NumRecords; got != 3 {
		t.Errorf("worker 2 of 3 takes %d of 10 records, want 3", got)
	}
	txn := &spec.Bench{Scenarios: []spec.Scenario{{Name: "tx", Probe: config.Probe{Producer: config.Producer{TransactionalID: "t-tx-host"}}}, {Name: "plain"}}}
	parted := ok.part(txn)
	if got := parted.Scenarios[0].Probe.Producer.TransactionalID; got != "t-tx-host-w2" {
		t.Errorf("worker 2's transactional.id = %q, want t-tx-host-w2", got)
	}
	if parted.Scenarios[1].Probe.Producer.TransactionalID != "" || txn.Scenarios[0].Probe.Producer.TransactionalID != "t-tx-host" {
		t.Errorf("part changed a non-transactional scenario or the bench itself: %+v", txn.Scenarios)
	}
	if id := (&Worker{SweepName: "2026-01-02T03:04:05Z"}).sweepID(); id != "2026-01-02T03-04-05Z" {
		t.Errorf("sweep id %q is not fit for a topic name", id)
	}
}

// Fixed-duration runs each get a slot from the common start; num_records
// runs after the first follow their predecessor.
func TestWorkerScenarioStart(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w := &Worker{Workers: 2, StartAt: start}
	timed := &spec.Bench{Duration: 20 * time.Second, DrainTimeout: time.Minute}
	if got, want := w.scenarioStart(timed, 2), start.Add(2*(20*time.Second+time.Minute+slotSlack)); !got.Equal(want) {
		t.Errorf("third duration run starts %s, want %s", got, want)
	}
	counted := &spec.Bench{NumRecords: 100, DrainTimeout: time.Minute}
	if got := w.scenarioStart(counted, 0); !got.Equal(start) {
		t.Errorf("first num_records run starts %s, want %s", got, start)
	}
	if got := w.scenarioStart(counted, 1); !got.IsZero() {
		t.Errorf("second num_records run starts %s, want when the first ends (zero)", got)
	}
}

// startSweep starts w's one-run sweep on k, closed at the end of the test.
func startSweep(t *testing.T, w *Worker, k config.Cluster, logger *slog.Logger) *workerSweep {
	t.Helper()
	sw, err := w.Start(context.Background(), k, nil, 1, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sw.Close)
	return sw.(*workerSweep)
}

// A sweep that reuses --run is told from the earlier one by its start:
// worker 0 does not take an earlier sweep's result for the other workers'
// (it would delete the topic while they still drain), and the merge
// ignores it; both say so.
func TestStaleResultsOfReusedRun(t *testing.T) {
	brokers := probetest.Kfake(t, 3)
	var k config.Cluster
	k.Kafka.SetDefaults()
	k.Kafka.Brokers = brokers
	ctx := context.Background()
	earlier := time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	now := earlier.Add(time.Hour)
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))

	old := startSweep(t, &Worker{Workers: 2, Index: 1, StartAt: earlier, SweepName: "r", ResultsTopic: "results"}, k, logger)
	b := &spec.Bench{ParamKeys: []string{"scenario"}}
	if err := old.publish(ctx, b.ParamKeys, result.Result{Scenario: "s", Params: []string{"s"}, Worker: old.info(b, 0, earlier, 0)}); err != nil {
		t.Fatal(err)
	}

	w0 := startSweep(t, &Worker{Workers: 2, Index: 0, StartAt: now, SweepName: "r", ResultsTopic: "results"}, k, logger)
	w0.awaitOthers(0, 2*time.Second)
	if out := logs.String(); !strings.Contains(out, "deleting the topic without a result from a worker") ||
		!strings.Contains(out, "ignoring a result of an earlier sweep of the same --run") {
		t.Errorf("worker 0 took the earlier sweep's result for worker 1's; log:\n%s", out)
	}

	// The merge of the new sweep ignores it, and so does a merge given
	// --run alone once the new sweep's result is there.
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	sw, err := CollectSweep(cctx, k, "results", "r", now, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sw.c.byWorker[1]); n != 0 || len(sw.Problems()) != 1 || !strings.Contains(sw.Problems()[0].Error(), "ignored") {
		t.Errorf("merge of the sweep started %s: %d results of worker 1, problems %v; want none and the stale one named", now, n, sw.Problems())
	}
	cur := &workerSweep{Worker: &Worker{Workers: 2, Index: 1, StartAt: now, SweepName: "r", ResultsTopic: "results"}, kafka: k, cl: old.cl, runs: 1}
	if err := cur.publish(ctx, b.ParamKeys, result.Result{Scenario: "s", Params: []string{"s"}, Worker: cur.info(b, 0, now, 0)}); err != nil {
		t.Fatal(err)
	}
	cctx2, cancel2 := context.WithTimeout(ctx, 2*time.Second)
	defer cancel2()
	sw, err = CollectSweep(cctx2, k, "results", "r", time.Time{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if jr, ok := sw.c.byWorker[1][0]; !ok || !jr.Worker.SweepStart.Equal(now) || len(sw.Problems()) != 1 {
		t.Errorf("merge of --run alone: worker 1's result %+v (found %v), problems %v; want the newest sweep's and the earlier named", jr.Worker, ok, sw.Problems())
	}
}
