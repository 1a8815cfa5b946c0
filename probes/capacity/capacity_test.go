package capacity

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

func capacityProbe(name string, c config.Capacity) config.Probe {
	p := config.NewProbe(name)
	p.RecordSize = 200
	p.Capacity = &c
	p.Resolve()
	return p
}

// On kfake a ramp climbs 100, 200, 400 records/s (the byte ceiling) and
// stops at the ceiling or at the first failing step; the result lands in
// the metrics and the log. (On an idle machine every step passes; on a
// loaded one a 1 s step can fail on its rate, which is then the limit.)
func TestCapacityRamp(t *testing.T) {
	brokers := probetest.Kfake(t, 1)
	reg := prometheus.NewRegistry()
	logs := &probetest.Logs{}
	cp := New(capacityProbe("ramp", config.Capacity{
		Interval: model.Duration(time.Hour), StepDuration: model.Duration(time.Second), StartRate: 100, Growth: 2,
		MaxBytesPerSecond: 400 * 200, LatencySLO: model.Duration(5 * time.Second), EndToEndSLO: model.Duration(5 * time.Second),
		Topic: "kafka-bench-ramp-capacity",
	}), Options{Kafka: config.Cluster{Kafka: config.Kafka{Brokers: brokers, ClientID: "kbe"}}, Metrics: promsink.NewCapacityMetrics(reg),
		Logger: slog.New(slog.NewTextHandler(logs, nil))})

	if f := probetest.Gather(t, reg); probetest.Value(t, f, "kafka_bench_capacity_runs_total", "probe", "ramp", "result", "ok") != 0 {
		t.Error("runs_total starts above 0")
	} else if _, ok := f.Value("kafka_bench_capacity_records_per_second", "probe", "ramp"); ok {
		t.Error("a capacity is exported before any run")
	}
	res := cp.RunOnce(context.Background())
	if res.Result != ResultOK || len(res.Steps) == 0 {
		t.Fatalf("result = %+v, want ok", res)
	}
	ladder := []float64{100, 200, 400}
	last := len(res.Steps) - 1
	for i, st := range res.Steps {
		if st.Target != ladder[i] || st.EndToEndP99 <= 0 || st.P99 <= 0 {
			t.Errorf("step %d %+v: want target %v and both p99s measured", i, st, ladder[i])
		}
		if passed := st.Limit == ""; passed != (i < last || res.Limit == LimitCeiling) {
			t.Errorf("step %d %+v: only the last step of a run that stopped below the ceiling fails", i, st)
		}
	}
	want := 0.0
	switch {
	case res.Limit == LimitCeiling:
		want = 400
	case last > 0:
		want = res.Steps[last-1].Target
	}
	if res.RecordsPerSecond != want || (res.Limit == LimitCeiling) != (len(res.Steps) == 3 && res.Steps[last].Limit == "") {
		t.Errorf("result %+v: capacity %v, want %v", res, res.RecordsPerSecond, want)
	}
	f := probetest.Gather(t, reg)
	for name, want := range map[string]float64{
		"kafka_bench_capacity_records_per_second": want,
		"kafka_bench_capacity_bytes_per_second":   want * 200,
		"kafka_bench_capacity_interval_seconds":   3600,
	} {
		if got := probetest.Value(t, f, name, "probe", "ramp"); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := probetest.Value(t, f, "kafka_bench_capacity_p99_seconds", "probe", "ramp"); got != res.P99.Seconds() {
		t.Errorf("p99 gauge = %v, want %v", got, res.P99.Seconds())
	}
	if got := probetest.Value(t, f, "kafka_bench_capacity_runs_total", "probe", "ramp", "result", "ok"); got != 1 {
		t.Errorf("runs_total{ok} = %v, want 1", got)
	}
	for _, l := range Limits {
		want := map[bool]float64{true: 1}[l == res.Limit]
		if got := probetest.Value(t, f, "kafka_bench_capacity_limit", "probe", "ramp", "reason", l); got != want {
			t.Errorf("limit{%s} = %v, want %v", l, got, want)
		}
	}
	for _, line := range []string{"capacity run starting", "capacity warm-up", "target=100", "capacity run finished", "limit=" + res.Limit} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, logs)
		}
	}
}

// Cancelling the context (reload, SIGTERM) ends a run in the middle of a
// step that would last an hour: it is aborted, not flushed to the end.
func TestCapacityRunAbortsOnCancel(t *testing.T) {
	brokers := probetest.Kfake(t, 1)
	reg := prometheus.NewRegistry()
	const topic = "kafka-bench-abort-capacity"
	cp := New(capacityProbe("abort", config.Capacity{
		Interval: model.Duration(3 * time.Hour), StepDuration: model.Duration(time.Hour), StartRate: 1000, Growth: 2,
		MaxRate: 2000, LatencySLO: model.Duration(time.Second), Topic: topic,
	}), Options{Kafka: config.Cluster{Kafka: config.Kafka{Brokers: brokers, ClientID: "kbe"}}, Metrics: promsink.NewCapacityMetrics(reg)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- cp.RunOnce(ctx) }()

	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(30 * time.Second)
	for { // the first step is under way once more than the warm-up records are in
		ends, _ := adm.ListEndOffsets(context.Background(), topic)
		var n int64
		ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
		if n > 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the capacity run produced only %d records", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	select {
	case res := <-done:
		if res.Result != ResultAborted {
			t.Errorf("result = %+v, want aborted", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not stop after its context was cancelled")
	}
	if got := probetest.Value(t, probetest.Gather(t, reg), "kafka_bench_capacity_runs_total", "probe", "abort", "result", "aborted"); got != 1 {
		t.Errorf("runs_total{aborted} = %v, want 1", got)
	}
}

// A cluster outage during a run says nothing about capacity: the run fails
// (result error) instead of ending ok at limit errors, and the previous
// capacity, limit and last-run time stay as they were.
func TestCapacityOutageKeepsPreviousCapacity(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var outage atomic.Bool
	c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !outage.Load() {
			return nil, nil, false
		}
		req := kreq.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, kerr.InvalidRecord.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	brokers := c.ListenAddrs()
	reg := prometheus.NewRegistry()
	logs := &probetest.Logs{}
	const topic = "kafka-bench-outage-capacity"
	cp := New(capacityProbe("outage", config.Capacity{
		Interval: model.Duration(time.Hour), StepDuration: model.Duration(time.Second), StartRate: 100, Growth: 2,
		MaxBytesPerSecond: 400 * 200, LatencySLO: model.Duration(5 * time.Second), Topic: topic,
	}), Options{Kafka: config.Cluster{Kafka: config.Kafka{Brokers: brokers, ClientID: "kbe"}}, Metrics: promsink.NewCapacityMetrics(reg),
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	first := cp.RunOnce(context.Background())
	if first.Result != ResultOK {
		t.Fatalf("first run %+v, want ok", first)
	}
	before := probetest.Gather(t, reg)

	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	records := func() int64 {
		ends, _ := adm.ListEndOffsets(context.Background(), topic)
		var n int64
		ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
		return n
	}
	base := records()
	done := make(chan Result, 1)
	go func() { done <- cp.RunOnce(context.Background()) }()
	// The outage starts once the warm-up step is over and the first judged
	// step is under way (the warm-up step sends 100 records).
	for deadline := time.Now().Add(30 * time.Second); records()-base <= 150; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the second run produced only %d records", records()-base)
		}
	}
	outage.Store(true)
	var res Result
	select {
	case res = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end")
	}
	if res.Result != ResultError || res.Err == nil || !strings.Contains(res.Err.Error(), "cluster unavailable") {
		t.Errorf("run during an outage: %+v, want result error (cluster unavailable)", res)
	}
	after := probetest.Gather(t, reg)
	for _, name := range []string{"kafka_bench_capacity_records_per_second", "kafka_bench_capacity_bytes_per_second", "kafka_bench_capacity_last_run_timestamp_seconds"} {
		if b, a := probetest.Value(t, before, name, "probe", "outage"), probetest.Value(t, after, name, "probe", "outage"); a != b {
			t.Errorf("%s changed from %v to %v by a run during an outage", name, b, a)
		}
	}
	for _, l := range Limits {
		if b, a := probetest.Value(t, before, "kafka_bench_capacity_limit", "probe", "outage", "reason", l), probetest.Value(t, after, "kafka_bench_capacity_limit", "probe", "outage", "reason", l); a != b {
			t.Errorf("limit{%s} changed from %v to %v by a run during an outage", l, b, a)
		}
	}
	if got := probetest.Value(t, after, "kafka_bench_capacity_runs_total", "probe", "outage", "result", "error"); got != 1 {
		t.Errorf("runs_total{error} = %v, want 1", got)
	}
	if !strings.Contains(logs.String(), "capacity run failed") {
		t.Errorf("log lacks the failed run:\n%s", logs)
	}
}

// With steps shorter than the brokers' quota window (read with
// DescribeConfigs: here 2 × 1 s), the best step is held for the window
// before it is reported, and the run says so at its start.
func TestCapacityHoldsBestStepForQuotaWindow(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{
		"quota.window.num": "2", "quota.window.size.seconds": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	logs := &probetest.Logs{}
	cp := New(capacityProbe("hold", config.Capacity{
		Interval: model.Duration(time.Hour), StepDuration: model.Duration(time.Second), StartRate: 100, Growth: 2,
		MaxBytesPerSecond: 200 * 200, LatencySLO: model.Duration(5 * time.Second), Topic: "kafka-bench-hold-capacity",
	}), Options{Kafka: config.Cluster{Kafka: config.Kafka{Brokers: c.ListenAddrs(), ClientID: "kbe"}}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	res := cp.RunOnce(context.Background())
	if res.Result != ResultOK {
		t.Fatalf("result %+v, want ok", res)
	}
	if !strings.Contains(logs.String(), "shorter than the brokers' quota window") || !strings.Contains(logs.String(), "quota_window=2s") {
		t.Errorf("the run did not warn of steps shorter than the quota window:\n%s", logs)
	}
	if strings.Contains(logs.String(), "held_run") {
		t.Errorf("the run warned of an interval of 1h shorter than its run with the hold:\n%s", logs)
	}
	var holds []Step
	for _, st := range res.Steps {
		if st.Hold {
			holds = append(holds, st)
			if st.Duration != 2*time.Second {
				t.Errorf("hold step %+v: duration %s, want the quota window, 2s", st, st.Duration)
			}
		} else if st.Duration != time.Second {
			t.Errorf("ramp step %+v: duration %s, want step_duration, 1s", st, st.Duration)
		}
	}
	if res.RecordsPerSecond > 0 {
		if len(holds) == 0 || holds[len(holds)-1].Limit != "" || holds[len(holds)-1].Target != res.RecordsPerSecond {
			t.Errorf("capacity %v reported without a passing hold of its step: steps %+v", res.RecordsPerSecond, res.Steps)
		}
	}
}

// A step reads the clock it is given, the probe's steady time (see
// probes.Probe.Now), and never the wall clock: its produce latencies and
// ack slots are differences of that clock's readings.
func TestStepReadsTheSteadyClock(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) // far from the wall clock
	var mono time.Duration
	now := func() time.Time { return base.Add(mono) }
	pool := payload.NewPool(payload.Body{Kind: payload.RandomLetters, Size: 64})
	start := now()
	st := newStepStats(100, start, start.Add(10*time.Second), pool, now)
	mono += time.Second
	r := &kgo.Record{Value: pool.Get(payload.Header{RunID: 7, Intended: now().UnixNano()})}
	mono += 5 * time.Millisecond
	st.promise(r, nil)
	if got := st.produce.Max(); got < 4990 || got > 5010 {
		t.Errorf("capacity produce latency %d µs, want 5000 by the steady clock", got)
	}
	if want := int(time.Second / ackSlot); st.acked != 1 || st.ackSlots[want] != 1 {
		t.Errorf("acknowledgement not in slot %d (1 s after the step's start)", want)
	}
}

// A run that holds its best step for the quota window (here 2 × 1 s) lasts
// a warm-up, two steps and the hold, 5 s: longer than an interval of 4 s,
// which the configuration check (3 s of steps within 90 % of it) lets
// through, as the window is read only at run time. The run's warning says
// so, and the next run is scheduled interval ± 10 % after the held run
// ends, never overlapping it.
func TestCapacityScheduleAfterHeldRun(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{
		"quota.window.num": "2", "quota.window.size.seconds": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := capacityProbe("held", config.Capacity{
		Interval: model.Duration(4 * time.Second), StepDuration: model.Duration(time.Second), StartRate: 100, Growth: 2,
		MaxBytesPerSecond: 200 * 200, LatencySLO: model.Duration(5 * time.Second), Topic: "kafka-bench-held-capacity",
	})
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the configuration check refuses the interval: %v", err)
	}
	logs := &probetest.Logs{}
	reg := prometheus.NewRegistry()
	cp := New(cfg, Options{Kafka: config.Cluster{Kafka: config.Kafka{Brokers: c.ListenAddrs(), ClientID: "kbe"}}, Metrics: promsink.NewCapacityMetrics(reg),
		Gate: NewGate(), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		cp.Schedule(ctx)
	}()
	probetest.Eventually(t, 2*time.Minute, "the run after the first to be scheduled", func() (bool, string) {
		return strings.Count(logs.String(), `msg="next capacity run"`) >= 2, logs.String()
	})
	metrics := probetest.Gather(t, reg) // before the schedule's end deletes the series
	cancel()
	<-done

	lines := strings.Split(logs.String(), "\n")
	find := func(from int, msg string) int {
		for i := from; i < len(lines); i++ {
			if strings.Contains(lines[i], `msg="`+msg) {
				return i
			}
		}
		t.Fatalf("no %q after line %d:\n%s", msg, from, logs)
		return -1
	}
	warn := lines[find(0, "capacity.step_duration is shorter than the brokers' quota window")]
	for _, want := range []string{"capacity.interval", "interval=4s", "held_run=5s"} {
		if !strings.Contains(warn, want) {
			t.Errorf("the hold warning lacks %q: the interval is shorter than the held run:\n%s", want, warn)
		}
	}
	first := find(0, "next capacity run")
	finished := find(first+1, "capacity run finished")
	next := find(first+1, "next capacity run")
	if next < finished {
		t.Errorf("the next run was scheduled before the first one ended:\n%s", logs)
	}
	// The interval's ± 10 % jitter, rounded to the second.
	if !strings.Contains(lines[next], "in=4s") {
		t.Errorf("the next run is not scheduled an interval after the held run:\n%s", lines[next])
	}
	if got := probetest.Value(t, metrics, "kafka_bench_capacity_runs_total", "probe", "held", "result", "ok"); got != 1 {
		t.Errorf("runs_total{ok} = %v, want 1", got)
	}
}

// A run due while another probe's run holds the exporter's gate waits for
// it, and says so: its "next capacity run" time has passed.
func TestCapacityGateWaitIsLogged(t *testing.T) {
	gate := NewGate()
	gate.ch <- struct{}{} // another probe's run holds it
	logs := &probetest.Logs{}
	cp := New(capacityProbe("gated", config.Capacity{
		Interval: model.Duration(time.Second), StepDuration: model.Duration(time.Second), StartRate: 100, Growth: 2,
		MaxRate: 200, LatencySLO: model.Duration(time.Second),
	}), Options{Kafka: config.Cluster{Kafka: config.Kafka{Brokers: []string{"127.0.0.1:1"}}}, Gate: gate, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		cp.Schedule(ctx)
	}()
	probetest.Eventually(t, 30*time.Second, "the run to say it waits for the gate", func() (bool, string) {
		return strings.Contains(logs.String(), "capacity run waits for another probe's capacity run to end"), logs.String()
	})
	cancel()
	<-done
	if strings.Contains(logs.String(), "capacity run starting") {
		t.Errorf("a run started while another held the gate:\n%s", logs)
	}
}

// A broker that stops answering produce requests during a step fills the
// client's buffer: the step still ends (its unsent records are late, the
// step is limited by latency) instead of blocking in Produce until the
// broker answers again.
func TestCapacityStepEndsWhenTheBrokerStopsAnswering(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	var stall atomic.Bool
	release := make(chan struct{})
	// Closed before the cluster: the slept requests finish, kfake stops.
	defer c.Close()
	defer close(release)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if stall.Load() {
			c.SleepControl(func() { <-release })
		}
		return nil, nil, false
	})
	brokers := c.ListenAddrs()
	const topic = "kafka-bench-stall-capacity"
	p := capacityProbe("stall", config.Capacity{
		Interval: model.Duration(time.Hour), StepDuration: model.Duration(2 * time.Second), StartRate: 1000, Growth: 2,
		MaxRate: 2000, LatencySLO: model.Duration(time.Second), Topic: topic,
	})
	p.Producer.BufferMemory = 16 << 10 // about 80 records of 200 B: full within a step's first 0.1 s
	reg := prometheus.NewRegistry()
	cp := New(p, Options{Kafka: config.Cluster{Kafka: config.Kafka{Brokers: brokers, ClientID: "kbe"}}, Metrics: promsink.NewCapacityMetrics(reg)})
	done := make(chan Result, 1)
	go func() { done <- cp.RunOnce(context.Background()) }()

	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// The warm-up sends one record per partition; more: a step runs.
		ends, _ := adm.ListEndOffsets(context.Background(), topic)
		var n int64
		ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
		if n > 50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the capacity run produced only %d records", n)
		}
	}
	stall.Store(true)
	select {
	case res := <-done:
		if len(res.Steps) == 0 {
			t.Fatalf("result %+v: no step", res)
		}
		last := res.Steps[len(res.Steps)-1]
		if last.Limit != LimitLatency && res.Result != ResultError {
			t.Errorf("result %+v: the stalled step's limit is %q, want %q (or the run failed)", res, last.Limit, LimitLatency)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end while the broker stopped answering produce requests")
	}
}
