package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

var clean = map[string]float64{
	"kafka_bench_records_lost_total":         0,
	"kafka_bench_records_duplicated_total":   0,
	"kafka_bench_records_out_of_order_total": 0,
	"kafka_bench_records_foreign_total":      0,
}

// Test 1: one broker, acks=1, 3 partitions, 100 B, 2,000 records/s.
func TestSingleBrokerAcks1(t *testing.T) {
	c := cluster(t, 1)
	ensureRunning(t, c)
	x := exportertest.Start(t, `
probes:
  - name: single-acks1
    rate: 2000
    record_size: 100
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
    producer: {acks: "1"}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	if got := steadyRate(t, x, "single-acks1", 2000, 20*time.Second); !within(got, 2000, 0.02) {
		t.Errorf("produced %.1f records/s, want 2000 ±2%%", got)
	}
	f := drain(t, x, "single-acks1")
	assertCounters(t, f, "single-acks1", clean)
	if p, c := value(t, f, "kafka_bench_produced_records_total", "single-acks1"), value(t, f, "kafka_bench_consumed_records_total", "single-acks1"); p != c {
		t.Errorf("consumed %v != produced %v", c, p)
	}
}

// Tests 2 and 3: three brokers, RF=3, min.insync.replicas=2, acks=all with
// idempotence, 1 KiB at 1,000 records/s; then the leader of partition 0 is
// SIGKILLed and restarted 15 s later.
func TestThreeBrokersAcksAllAndLeaderKill(t *testing.T) {
	c := cluster(t, 3)
	ensureRunning(t, c)
	const probe = "three-acksall"
	x := exportertest.Start(t, `
probes:
  - name: three-acksall
    rate: 1000
    record_size: 1024
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 3, configs: {min.insync.replicas: "2"}}
    producer: {acks: all, enable.idempotence: true}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	if got := steadyRate(t, x, probe, 1000, 15*time.Second); !within(got, 1000, 0.02) {
		t.Errorf("produced %.1f records/s, want 1000 ±2%%", got)
	}
	before := x.Scrape(t)
	assertCounters(t, before, probe, clean)

	// Test 3: kill a partition leader.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	leader, err := c.LeaderOf(ctx, "kafka-bench-"+probe, 0)
	if err != nil {
		t.Fatal(err)
	}
	idx := c.IndexOfNode(leader)
	t.Logf("SIGKILL broker %d (leader of partition 0)", leader)
	if err := c.Kill(idx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(15 * time.Second)
	if err := c.Restart(idx); err != nil {
		t.Fatalf("restart broker %d: %v\n%s", leader, err, c.Logs(idx))
	}
	restarted := time.Now()
	probetest.Eventually(t, 30*time.Second, "probe_up back to 1 after the restart", func() (bool, string) {
		f := x.Scrape(t)
		up := value(t, f, "kafka_bench_probe_up", probe)
		return up == 1, fmt.Sprintf("probe_up=%v", up)
	})
	t.Logf("probe up %.1fs after the restart", time.Since(restarted).Seconds())
	waitSteady(t, x, probe, 1000) // what piled up during the kill is acknowledged
	after := x.Scrape(t)
	slowBefore := value(t, before, "kafka_bench_produce_latency_seconds", probe) - float64(before.BucketCount("kafka_bench_produce_latency_seconds", 1, "probe", probe))
	slowAfter := value(t, after, "kafka_bench_produce_latency_seconds", probe) - float64(after.BucketCount("kafka_bench_produce_latency_seconds", 1, "probe", probe))
	failed := value(t, after, "kafka_bench_produce_failed_total", probe) - value(t, before, "kafka_bench_produce_failed_total", probe)
	t.Logf("during the kill: %v more records slower than 1 s, %v more failures", slowAfter-slowBefore, failed)
	if slowAfter-slowBefore == 0 && failed == 0 {
		t.Error("killing a leader left no trace: no record slower than 1 s and no failure")
	}
	f := drain(t, x, probe)
	if lost := value(t, f, "kafka_bench_records_lost_total", probe); lost != 0 {
		t.Errorf("acks=all with min.insync.replicas=2 lost %v records when one broker died", lost)
	}
}

// Test 5: a stalled broker (SIGSTOP for 3 s) is charged to every record it
// delayed, not only to the one in flight. Which records it delayed by more
// than 1 s depends on when the broker really stopped and when it answered
// again, which a loaded machine moves by hundreds of milliseconds: the test
// measures both and counts the records intended in between, from the pacer's
// rate.
func TestStallChargedToEveryDelayedRecord(t *testing.T) {
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe, rate = "stall", 1000.0
	x := exportertest.Start(t, `
probes:
  - name: stall
    rate: 1000
    record_size: 256
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
    producer: {acks: "1"}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	waitSteady(t, x, probe, rate)
	before := x.Scrape(t)
	const stall = 3 * time.Second
	pauseCalled := time.Now()
	if err := c.Pause(0); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now() // Pause returns once the process is stopped
	time.Sleep(stall)     // the fault: the broker answers nothing for this long
	// Nothing can be acknowledged now: the count to compare with.
	held := value(t, x.Scrape(t), "kafka_bench_produced_records_total", probe)
	if err := c.Resume(0); err != nil {
		t.Fatal(err)
	}
	// The first acknowledgement after the stall came after the start of the
	// last scrape that still showed none.
	firstAck, _ := pollScrapes(t, x, time.Minute, "the first acknowledgement after the stall", func(f scrape.Families) (bool, string) {
		p := value(t, f, "kafka_bench_produced_records_total", probe)
		return p > held, fmt.Sprintf("produced=%v, %v before the resume", p, held)
	})
	// Every record the stall delayed is acknowledged: the backlog is gone
	// and at least the stall's worth of records more were produced.
	_, drained := pollScrapes(t, x, time.Minute, "the records of the stall acknowledged", func(f scrape.Families) (bool, string) {
		buffered := value(t, f, "kafka_bench_client_buffered_produce_records", probe, "role", "producer")
		more := value(t, f, "kafka_bench_produced_records_total", probe) - value(t, before, "kafka_bench_produced_records_total", probe)
		return buffered < rate/5 && more >= rate*stall.Seconds(), fmt.Sprintf("buffered=%v produced since=%v", buffered, more)
	})
	after := x.Scrape(t)

	over := func(f scrape.Families, le float64) float64 {
		return value(t, f, "kafka_bench_produce_latency_seconds", probe) - float64(f.BucketCount("kafka_bench_produce_latency_seconds", le, "probe", probe))
	}
	over1 := over(after, 1) - over(before, 1)
	over25 := over(after, 2.5) - over(before, 2.5)
	// Records intended from the stop until 1 s before the first
	// acknowledgement waited > 1 s: at least that many. Records intended
	// after the backlog was gone did not: at most those intended from the
	// Pause call until 1 s before that (the last fifth of a second of them
	// may still be buffered then).
	low := rate * (firstAck.Sub(stopped) - time.Second).Seconds()
	high := rate * (drained.Sub(pauseCalled) - time.Second + time.Second/5).Seconds()
	t.Logf("records > 1 s: %v (expected %.0f ... %.0f: broker stopped %v after the Pause call, first acknowledgement %v after the stop, backlog gone %v after it), > 2.5 s: %v",
		over1, low, high, stopped.Sub(pauseCalled), firstAck.Sub(stopped), drained.Sub(stopped), over25)
	if over25 < 1 {
		t.Error("no record with a produce latency above 2.5 s after a 3 s stall")
	}
	if over1 < 0.9*low || over1 > 1.1*high {
		t.Errorf("%v records above 1 s, want %.0f ... %.0f (±10%%): the stall must be charged to every record it delayed", over1, low, high)
	}
}

// pollScrapes scrapes back to back until cond holds and returns the time the
// last scrape where it did not hold began (or the call, if the first one
// held) and the time the scrape where it held ended: the moment the
// condition became true lies between the two.
func pollScrapes(t *testing.T, x *exportertest.Exporter, timeout time.Duration, what string, cond func(scrape.Families) (bool, string)) (notYet, done time.Time) {
	t.Helper()
	notYet = time.Now()
	deadline := notYet.Add(timeout)
	for {
		start := time.Now()
		ok, state := cond(x.Scrape(t))
		if ok {
			return notYet, time.Now()
		}
		notYet = start
		if start.After(deadline) {
			t.Fatalf("timed out after %s waiting for %s (last state: %s)", timeout, what, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lagViews are the two views of consumer lag: from the probe consumer's own
// position, and from the group's committed offsets.
var lagViews = []struct{ name, records, seconds string }{
	{"position", "kafka_bench_consumer_lag_records", "kafka_bench_consumer_lag_seconds"},
	{"committed", "kafka_bench_consumer_group_lag_records", "kafka_bench_consumer_group_lag_seconds"},
}

// Test 6: a held-back consumer shows lag growing at the rate and lag in
// seconds about the hold time, in both views; then the position view
// returns to about 0 and the committed view to within a commit interval.
func TestLagWhileConsumerHeld(t *testing.T) {
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe, rate, hold = "lag", 500.0, 10 * time.Second
	x := exportertest.Start(t, `
probes:
  - name: lag
    rate: 500
    record_size: 200
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	waitCaughtUp(t, x, probe, rate/10)
	x.Probe(probe).HoldConsumers(true)
	time.Sleep(hold) // the fault: the consumer reads nothing for this long
	for _, v := range lagViews {
		// The committed offset trails the position by up to one commit
		// interval (1 s) when the hold starts.
		probetest.Eventually(t, 5*time.Second, v.name+" lag to reflect the hold", func() (bool, string) {
			f := x.Scrape(t)
			records, seconds := value(t, f, v.records, probe), value(t, f, v.seconds, probe)
			ok := within(records, rate*hold.Seconds(), 0.2) && within(seconds, hold.Seconds(), 0.2)
			return ok, fmt.Sprintf("%s=%v (want ~%v), %s=%v (want ~%v)", v.records, records, rate*hold.Seconds(), v.seconds, seconds, hold.Seconds())
		})
	}
	x.Probe(probe).HoldConsumers(false)
	probetest.Eventually(t, 20*time.Second, "lag back to about 0", func() (bool, string) {
		f := x.Scrape(t)
		records, seconds := value(t, f, "kafka_bench_consumer_lag_records", probe), value(t, f, "kafka_bench_consumer_lag_seconds", probe)
		grecords, gseconds := value(t, f, "kafka_bench_consumer_group_lag_records", probe), value(t, f, "kafka_bench_consumer_group_lag_seconds", probe)
		// Position: a few records in flight. Committed: commits run every
		// second, so at most ~2 s of records.
		return records <= rate/10 && seconds <= 0.1 && grecords <= 2*rate && gseconds <= 2,
			fmt.Sprintf("lag_records=%v lag_seconds=%v group_lag_records=%v group_lag_seconds=%v", records, seconds, grecords, gseconds)
	})
	assertCounters(t, x.Scrape(t), probe, clean)
}

// A caught-up probe at 100 records/s shows lag of about 0 from its own
// position at every scrape, not the 0-1 s sawtooth of the commit interval
// that the committed view shows.
func TestLagZeroWhenCaughtUp(t *testing.T) {
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe = "caught-up"
	x := exportertest.Start(t, `
probes:
  - name: caught-up
    rate: 100
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	waitCaughtUp(t, x, probe, 5)
	// 10 scrapes over 30 s: the scrape cadence, not a wait for a condition.
	tick := time.NewTicker(3 * time.Second)
	defer tick.Stop()
	var maxGroup float64
	for i := range 10 {
		<-tick.C
		f := x.Scrape(t)
		records, seconds := value(t, f, "kafka_bench_consumer_lag_records", probe), value(t, f, "kafka_bench_consumer_lag_seconds", probe)
		maxGroup = max(maxGroup, value(t, f, "kafka_bench_consumer_group_lag_records", probe))
		if records > 5 || seconds > 0.1 {
			t.Errorf("scrape %d: lag_records=%v lag_seconds=%v, want <= 5 and <= 0.1 s when caught up", i, records, seconds)
		}
	}
	t.Logf("largest committed-view lag over the 10 scrapes: %v records", maxGroup)
	assertCounters(t, x.Scrape(t), probe, clean)
}

// Test 7: the probe topic deleted while running is recreated and the probe
// recovers.
func TestTopicDeletedWhileRunning(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe, topic = "deleted", "kafka-bench-deleted"
	x := exportertest.Start(t, `
probes:
  - name: deleted
    rate: 200
    record_size: 200
    lag_interval: 1s
    create_topic: {partitions: 3, replication_factor: 1}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	adm := admin(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := x.Scrape(t)
	resp, err := adm.DeleteTopic(ctx, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("deleting %s: %v", topic, err)
	}
	deleted := time.Now()
	probetest.Eventually(t, 45*time.Second, "the topic recreated and records consumed from it", func() (bool, string) {
		tds, err := adm.ListTopics(ctx, topic)
		if err != nil || tds[topic].Err != nil {
			return false, fmt.Sprintf("topic not there yet: %v %v", err, tds[topic].Err)
		}
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			return false, err.Error()
		}
		var n int64
		ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
		f := x.Scrape(t)
		up := value(t, f, "kafka_bench_probe_up", probe)
		return n > 0 && up == 1, fmt.Sprintf("records in new topic=%d probe_up=%v", n, up)
	})
	t.Logf("recovered %.1fs after the deletion", time.Since(deleted).Seconds())
	after := x.Scrape(t)
	consumed := value(t, after, "kafka_bench_consumed_records_total", probe) - value(t, before, "kafka_bench_consumed_records_total", probe)
	if consumed <= 0 {
		t.Error("nothing consumed after the topic was recreated")
	}
	t.Logf("failures by reason during deletion: %v; lost: %v", failuresByReason(after, probe), value(t, after, "kafka_bench_records_lost_total", probe))
}

func failuresByReason(f scrape.Families, probe string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range f.Find("kafka_bench_produce_failed_total", "probe", probe) {
		for _, l := range m.GetLabel() {
			if l.GetName() == "reason" && m.GetCounter().GetValue() > 0 {
				out[l.GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}
