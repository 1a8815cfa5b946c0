package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// TestReplicationTopicRecreated keeps the promise of docs/cross-cluster.md
// for a target topic that is deleted and recreated, with a copier the test
// controls (copier_test.go) on one cluster: the replica topic is another
// topic of the same cluster. Steady copying; the topic recreated while the
// reader had read everything (nothing lost, the recreation logged once,
// latency and lag flowing again); recreated right after a burst of records
// was copied into it (those not read before the delete, and only those,
// count as lost); and records the reader had read copied again (duplicates,
// not loss).
func TestReplicationTopicRecreated(t *testing.T) {
	c := cluster(t, 1)
	ensureRunning(t, c)
	adm := admin(t, c)
	ctx := context.Background()
	const (
		probe      = "xrecreate"
		source     = "kafka-bench-xrecreate"
		target     = "kafka-bench-xrecreate-copy"
		partitions = 2
		rate       = 100.0
		grace      = 20 * time.Second
		// The probe's liveness window is two lag intervals: longer than
		// the fetch wait of its own consumer, which shares it.
		lagInterval = 2 * time.Second
		// The reader waits up to fetchWait for records (fetch.min.bytes is
		// never reached), so a burst copied right before the delete is
		// most likely not read: the loss case needs unread records.
		fetchWait = 2 * time.Second
		burst     = 60
		rewind    = 50 // per partition
	)
	topic := config.CreateTopic{Partitions: partitions, ReplicationFactor: 1}
	createTopic(t, ctx, adm, target, partitions, 1)
	t.Cleanup(func() { _, _ = adm.DeleteTopic(context.Background(), source) })
	logger, logs := probetest.CaptureLogger()
	run := probetest.StartLogged(t, fmt.Sprintf(`
probes:
  - name: %[1]s
    topic: %[2]s
    rate: %[3]v
    lag_interval: %[9]s
    create_topic: {partitions: %[4]d, replication_factor: 1}
    consumer: {fetch.min.bytes: 10485760, fetch.max.wait.ms: %[5]d}
    replica: {kafka: {brokers: [%[6]s]}, topic: %[7]s, loss_grace_period: %[8]s}
`, probe, source, rate, partitions, fetchWait.Milliseconds(), c.Bootstrap()[0], target, grace, lagInterval), c.Bootstrap(), logger)
	run.WaitReady(t, probe, 2*time.Minute)
	cp := startCopier(t, c.Bootstrap(), source, target)

	link := []string{"probe", probe, "link", "source->target"}
	v := func(f scrape.Families, name string) float64 { return probetest.Value(t, f, name, link...) }
	const (
		consumed   = "kafka_bench_replication_consumed_records_total"
		latency    = "kafka_bench_replication_latency_seconds" // its sample count
		lost       = "kafka_bench_replication_records_lost_total"
		duplicated = "kafka_bench_replication_records_duplicated_total"
		outOfOrder = "kafka_bench_replication_records_out_of_order_total"
		lagRecords = "kafka_bench_replication_lag_records"
		lagSeconds = "kafka_bench_replication_lag_seconds"
	)
	const recreatedLine = "the replica topic was recreated; restarting the replica reader"
	recreations := func() int { return strings.Count(logs.String(), recreatedLine) }
	state := func(f scrape.Families) string {
		return fmt.Sprintf("copied %d, read %v, lost %v, duplicated %v, out of order %v, lag %v records %.1fs",
			cp.count(), v(f, consumed), v(f, lost), v(f, duplicated), v(f, outOfOrder), v(f, lagRecords), v(f, lagSeconds))
	}
	// caughtUpSince: the reader read records after since (more than read
	// by then), every record acknowledged before since was read or counted
	// lost (the oldest unread one is younger; the gauge may be a lag
	// interval old), and the lag is what the reader's fetch wait explains.
	caughtUpSince := func(what string, since time.Time, read float64) scrape.Families {
		t.Helper()
		var f scrape.Families
		probetest.Eventually(t, time.Minute, what, func() (bool, string) {
			f = run.Gather(t)
			age := v(f, lagSeconds)
			return v(f, consumed) > read && age+(lagInterval+time.Second).Seconds() < time.Since(since).Seconds() &&
				age <= (fetchWait+2*time.Second).Seconds(), state(f)
		})
		return f
	}
	// readAll waits, with the copier paused, until the reader has read or
	// counted lost every record copied: read + lost = copied.
	readAll := func(what string) scrape.Families {
		t.Helper()
		var f scrape.Families
		probetest.Eventually(t, time.Minute, what, func() (bool, string) {
			f = run.Gather(t)
			return v(f, consumed)+v(f, lost) == float64(cp.count()), state(f)
		})
		return f
	}
	recreate := func() {
		t.Helper()
		resp, err := adm.DeleteTopic(ctx, target)
		if err == nil {
			err = resp.Err
		}
		if err != nil {
			t.Fatalf("deleting %s: %v", target, err)
		}
		probetest.Eventually(t, time.Minute, target+" created again", func() (bool, string) {
			created, err := kclient.CreateTopic(ctx, adm, target, topic)
			return created, fmt.Sprint(err)
		})
		if _, err := kclient.WaitTopic(ctx, adm, target, kclient.Led); err != nil {
			t.Fatal(err)
		}
	}

	// 1. Steady copying.
	start := time.Now()
	probetest.Eventually(t, time.Minute, "records through the copier", func() (bool, string) {
		f := run.Gather(t)
		return v(f, consumed) >= 3*rate, state(f)
	})
	f := caughtUpSince("the steady link caught up", start, 0)
	if v(f, lost) != 0 || v(f, duplicated) != 0 || v(f, outOfOrder) != 0 {
		t.Fatalf("steady copying: %s", state(f))
	}

	// 2. Recreated while the reader had read everything copied.
	cp.pause()
	f = readAll("the reader read everything copied")
	readBefore, latBefore := v(f, consumed), v(f, latency)
	recreate()
	cp.targetRecreated()
	cp.resume()
	resumed := time.Now()
	probetest.Eventually(t, time.Minute, "the recreation logged", func() (bool, string) {
		return recreations() >= 1, fmt.Sprintf("%d recreation lines", recreations())
	})
	noticed := time.Since(resumed)
	f = caughtUpSince("the link caught up in the new topic", resumed, readBefore)
	t.Logf("recreated: logged %.1fs and caught up %.1fs after copying resumed: %s",
		noticed.Seconds(), time.Since(resumed).Seconds(), state(f))
	if n := v(f, consumed) - readBefore; n <= 0 {
		t.Errorf("no record read from the recreated topic: the reader did not restart (%s)", state(f))
	}
	if n := v(f, latency) - latBefore; n <= 0 {
		t.Errorf("no replication latency observed from the recreated topic (%s)", state(f))
	}
	if v(f, lost) != 0 || v(f, duplicated) != 0 || v(f, outOfOrder) != 0 {
		t.Errorf("recreated with nothing unread: %s; want no loss, duplicate or reordering", state(f))
	}
	if n := recreations(); n != 1 {
		t.Errorf("the recreation was logged %d times, want once:\n%s", n, logs)
	}

	// 3. Recreated right after a burst was copied into the old topic.
	cp.pause()
	f = readAll("the reader read everything copied before the burst")
	readBefore = v(f, consumed)
	lostBefore := v(f, lost)
	cp.copyExactly(t, burst)
	recreate()
	probetest.Eventually(t, time.Minute, "the second recreation logged", func() (bool, string) {
		return recreations() >= 2, fmt.Sprintf("%d recreation lines", recreations())
	})
	// The old reader is stopped and the new topic is empty: what was
	// read of the burst is final.
	read := v(run.Gather(t), consumed) - readBefore
	unread := burst - read
	t.Logf("burst of %d records copied right before the delete: %v read, %v unread", burst, read, unread)
	cp.targetRecreated()
	cp.resume()
	resumed = time.Now()
	probetest.Eventually(t, grace+time.Minute, fmt.Sprintf("%v records lost", unread), func() (bool, string) {
		f = run.Gather(t)
		return v(f, lost)-lostBefore >= unread, state(f)
	})
	lostAfter := time.Since(resumed)
	f = caughtUpSince("the link caught up after the burst", resumed, readBefore+read)
	t.Logf("burst: %v lost %.1fs after copying resumed: %s", unread, lostAfter.Seconds(), state(f))
	if got := v(f, lost) - lostBefore; got != unread {
		t.Errorf("lost %v records, want the %v copied into the deleted topic and not read (%s)", got, unread, state(f))
	}
	if v(f, duplicated) != 0 || v(f, outOfOrder) != 0 {
		t.Errorf("recreated after a burst: %s; want no duplicate or reordering", state(f))
	}
	var lossLines []string
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, "counted lost") {
			lossLines = append(lossLines, l)
		}
	}
	if unread > 0 && (len(lossLines) != 1 || !strings.Contains(lossLines[0], "the replica topic was recreated")) {
		t.Errorf("want one loss line saying the replica topic was recreated; got %q", lossLines)
	}

	// 4. Records the reader read, copied again: duplicates, not loss.
	cp.pause()
	f = readAll("the reader read everything copied before the rewind")
	lostBefore, dupBefore := v(f, lost), v(f, duplicated)
	again := cp.rewind(rewind)
	cp.resume()
	probetest.Eventually(t, time.Minute, fmt.Sprintf("%d records copied again read as duplicates", again), func() (bool, string) {
		f = run.Gather(t)
		return v(f, duplicated)-dupBefore >= float64(again), state(f)
	})
	cp.pause()
	f = readAll("the reader read everything copied")
	t.Logf("end: %s", state(f))
	if got := v(f, duplicated) - dupBefore; got != float64(again) {
		t.Errorf("duplicated %v, want the %d records copied again", got, again)
	}
	if v(f, lost) != lostBefore || v(f, outOfOrder) != 0 {
		t.Errorf("copied again: %s; want no more loss and no reordering", state(f))
	}
	if n := recreations(); n != 2 {
		t.Errorf("two recreations logged %d times:\n%s", n, logs)
	}
}
