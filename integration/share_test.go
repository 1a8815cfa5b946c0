package integration

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// The share-group tests run on a 1-node Kafka of their own whose minimum
// record lock is 1 s (the broker's default minimum is 15 s), so that the
// probes can use a 2 s lock and a lock expiry costs seconds: shareKafka,
// shared by all but TestShareMemberKilled, which has one of its own (its
// expiries and exact counts beside TestShareProbeFaults' on one broker
// would be each other's).
const shareLockMS = 2000

// shareKafkaOptions is the share tests' Kafka.
var shareKafkaOptions = kafkatest.Options{Nodes: 1,
	BrokerConfig: map[string]string{"group.share.min.record.lock.duration.ms": "1000"}}

var shareCluster struct {
	once sync.Once
	c    *kafkatest.Cluster
	err  error
}

// logShareOnFailure logs, if t fails, what the broker says of the groups
// and the tail of its log.
func logShareOnFailure(t *testing.T, c *kafkatest.Cluster, groups ...string) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		described, err := admin(t, c).DescribeShareGroups(ctx, groups...)
		for _, g := range described {
			for _, m := range g.Members {
				t.Logf("share group %s (%s, epoch %d): member %s assigned %v", g.GroupID, g.GroupState, g.GroupEpoch, m.MemberID, m.Assignment)
			}
			if len(g.Members) == 0 {
				t.Logf("share group %s (%s, epoch %d): no members (err %v)", g.GroupID, g.GroupState, g.GroupEpoch, g.Err)
			}
		}
		if err != nil {
			t.Logf("describing the share groups: %v", err)
		}
		if data, err := os.ReadFile(c.Logs(0)); err == nil {
			lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			t.Logf("the share broker's log, last lines:\n%s", strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	})
}

func shareKafka(t *testing.T) *kafkatest.Cluster {
	t.Helper()
	kafkatest.Integration(t)
	shareCluster.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		shareCluster.c, shareCluster.err = kafkatest.StartCluster(ctx, shareKafkaOptions, t.Logf)
		if shareCluster.err == nil {
			clusters.mu.Lock()
			clusters.extra = append(clusters.extra, shareCluster.c)
			clusters.mu.Unlock()
		}
	})
	if shareCluster.err != nil {
		t.Fatalf("starting the share-group Kafka: %v", shareCluster.err)
	}
	return shareCluster.c
}

func shareProbeConfig(name, extra string) string {
	return fmt.Sprintf(`
probes:
  - name: %s
    rate: 200
    lag_interval: 500ms
    loss_grace_period: 1s
    create_topic: {partitions: 3, replication_factor: 1}
    consumer:
      kind: share
      consumers: 3
      fetch.max.wait.ms: 100
      share:
        record.lock.duration.ms: %d
%s`, name, shareLockMS, extra)
}

// waitSettled waits until probe accepted or archived n records and every
// grace period of them is over (lock × limit + loss_grace_period = 11 s),
// and returns the scrape. It allows 2 minutes beyond the time n records
// take at the probes' 200 records/s.
func waitSettled(t *testing.T, x *probetest.Run, probe string, n float64) scrape.Families {
	t.Helper()
	probetest.Eventually(t, 2*time.Minute+time.Duration(n/200)*time.Second, "every record accepted or archived", func() (bool, string) {
		f := x.Gather(t)
		acc := value(t, f, "kafka_bench_share_acks_total", probe, "outcome", "accept")
		arch := value(t, f, "kafka_bench_share_records_archived_total", probe)
		return acc+arch >= n, fmt.Sprintf("accepted %v, archived %v of %v", acc, arch, n)
	})
	// Every record's grace runs from its acknowledgement to the producer;
	// the last was acknowledged before the wait above ended.
	time.Sleep(2*5*time.Second + 2*time.Second)
	return x.Gather(t)
}

// Three members on three partitions of a real Kafka 4.4.0, on a topic with
// records from before: none of those read, every record of the run
// delivered once and accepted, none lost, duplicated or redelivered; the
// delivery latency is of the classic consumer's order (well under the
// 100 ms fetch wait plus a poll).
func TestShareProbeSteady(t *testing.T) {
	c := shareKafka(t)
	const probe, n = "share-steady", 2000
	// Records written before the probe starts: its new group starts at the
	// end, so it reads none of them.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	createTopic(t, ctx, admin(t, c), "kafka-bench-"+probe, 3, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.DefaultProduceTopic("kafka-bench-"+probe))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "before the probe %d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()
	x := probetest.StartWith(t, shareProbeConfig(probe, ""), c.Bootstrap(),
		probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	f := waitSettled(t, x, probe, n)
	logMean(t, f, "kafka_bench_share_delivery_latency_seconds", probe)
	logMean(t, f, "kafka_bench_share_ack_latency_seconds", probe)
	for _, cs := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kafka_bench_share_acks_total", []string{"outcome", "accept"}, n},
		{"kafka_bench_consumed_records_total", nil, n},
		{"kafka_bench_records_foreign_total", nil, 0},
		{"kafka_bench_share_deliveries_total", []string{"delivery_count", "1"}, n},
		{"kafka_bench_share_redeliveries_total", nil, 0},
		{"kafka_bench_share_ack_failed_total", nil, 0},
		{"kafka_bench_share_records_archived_total", nil, 0},
		{"kafka_bench_records_lost_total", nil, 0},
		{"kafka_bench_records_duplicated_total", nil, 0},
	} {
		if got := value(t, f, cs.name, probe, cs.labels...); got != cs.want {
			t.Errorf("%s%v = %v, want %v", cs.name, cs.labels, got, cs.want)
		}
	}
	if m := value(t, f, "kafka_bench_share_group_members", probe); m != 3 {
		t.Errorf("members = %v, want 3", m)
	}
	if l := value(t, f, "kafka_bench_share_group_lag_records", probe); l != 0 {
		t.Errorf("share group lag = %v, want 0", l)
	}
	if under := f.BucketCount("kafka_bench_share_delivery_latency_seconds", 1, "probe", probe); float64(under) < 0.99*n {
		t.Errorf("%d of %d deliveries within 1 s of their intended send time, want 99 %%", under, n)
	}
}

// A transactional producer, a quarter of its transactions aborted on
// purpose, feeding a share group on Kafka 4.4.0 with
// consumer.isolation.level read_committed (the group's
// share.isolation.level): the members accept exactly the committed records,
// none of an aborted transaction, none lost or twice.
func TestShareProbeReadCommitted(t *testing.T) {
	parallel(t) // waits more than it computes
	c := shareKafka(t)
	const probe, n = "share-txn", 2000
	x := probetest.StartWith(t, shareProbeConfig(probe, "      isolation.level: read_committed\n"+
		"    producer: {transactional.id: share-txn, transaction.duration.ms: 10, transaction.abort.ratio: 0.25}\n"),
		c.Bootstrap(), probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	var f scrape.Families
	probetest.Eventually(t, 2*time.Minute+n/200*time.Second, "every committed record accepted", func() (bool, string) {
		f = x.Gather(t)
		produced, aborted := value(t, f, "kafka_bench_produced_records_total", probe), value(t, f, "kafka_bench_transaction_aborted_records_total", probe)
		accepted := value(t, f, "kafka_bench_share_acks_total", probe, "outcome", "accept")
		return produced == n && aborted > 0 && accepted >= produced-aborted,
			fmt.Sprintf("produced %v, aborted %v, accepted %v", produced, aborted, accepted)
	})
	time.Sleep(2*5*time.Second + 2*time.Second) // past every record's grace, as waitSettled
	f = x.Gather(t)
	produced, aborted := value(t, f, "kafka_bench_produced_records_total", probe), value(t, f, "kafka_bench_transaction_aborted_records_total", probe)
	t.Logf("%v records produced, %v of them in aborted transactions", produced, aborted)
	if total := value(t, f, "kafka_bench_transactions_total", probe, "outcome", "committed") +
		value(t, f, "kafka_bench_transactions_total", probe, "outcome", "aborted"); aborted == 0 || total == 0 {
		t.Errorf("%v transactions, %v records aborted: want aborts", total, aborted)
	}
	for _, cs := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kafka_bench_records_lost_total", nil, 0},
		{"kafka_bench_transactions_total", []string{"outcome", "failed"}, 0},
		{"kafka_bench_share_redeliveries_total", []string{"cause", "released"}, 0},
	} {
		if got := value(t, f, cs.name, probe, cs.labels...); got != cs.want {
			t.Errorf("%s%v = %v, want %v", cs.name, cs.labels, got, cs.want)
		}
	}
	committed := produced - aborted
	accepted := value(t, f, "kafka_bench_share_acks_total", probe, "outcome", "accept")
	consumed := value(t, f, "kafka_bench_consumed_records_total", probe)
	dup := value(t, f, "kafka_bench_records_duplicated_total", probe)
	if expired, refused, unknown := value(t, f, "kafka_bench_share_redeliveries_total", probe, "cause", "lock_expired"),
		value(t, f, "kafka_bench_share_ack_failed_total", probe, "outcome", "accept"),
		value(t, f, "kafka_bench_share_ack_unknown_total", probe); expired > 0 || refused > 0 || unknown > 0 {
		// A stall of the loaded machine let locks expire (as in
		// TestShareProbeFaults): those records came back to a member and
		// were accepted again, the late accepts refused or of unknown
		// outcome. Exact counts do not hold then; nothing lost does, every
		// committed record accepted, and no more records delivered again
		// after a confirmed accept than came back.
		t.Logf("%v redeliveries by lock expiry, %v accepts refused, %v of unknown outcome: the exact counts are not checked", expired, refused, unknown)
		if accepted < committed || consumed < committed || dup > expired {
			t.Errorf("accepted %v, consumed %v, duplicated %v (redeliveries by lock expiry %v); want accepted and consumed at least the %v committed records, duplicates at most the redeliveries",
				accepted, consumed, dup, expired, committed)
		}
	} else if accepted != committed || consumed != committed || dup != 0 {
		t.Errorf("accepted %v, consumed %v, duplicated %v; want the %v committed records accepted and consumed once each", accepted, consumed, dup, committed)
	}
	// Back to read_uncommitted: the probe started again on the group sets
	// the group's share.isolation.level so, not only read_committed.
	x.Stop()
	group := "kafka-bench-" + probe + "-share"
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	probetest.StartWith(t, shareProbeConfig(probe, ""), c.Bootstrap(),
		probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: 200}})
	probetest.Eventually(t, time.Minute, "the group's share.isolation.level read_uncommitted", func() (bool, string) {
		got, err := kclient.ShareGroupConfigs(context.Background(), cl, group)
		level := got[kclient.ShareIsolationLevel]
		return err == nil && level == "read_uncommitted", fmt.Sprintf("share.isolation.level %q (err %v)", level, err)
	})
}

// Release and reject fractions are counted exactly: the records ShareFault
// picks are released once and come back (redeliveries by release) or are
// rejected (archived); nothing is lost. A second probe holds one poll's
// records past the lock: they come back to its other members (lock
// expiry), the late accepts fail, and nothing is lost either.
func TestShareProbeFaults(t *testing.T) {
	parallel(t) // exact counts and lock expiries, not rates: it waits more than it computes
	c := shareKafka(t)
	logShareOnFailure(t, c, "kafka-bench-share-faults-share", "kafka-bench-share-hold-share")
	const n = 1200 // 400 per partition, round robin from partition 0
	faults := config.ShareFaults{ReleaseFraction: 0.1, RejectFraction: 0.05}
	var release, reject float64
	for p := range int32(3) {
		for seq := range uint64(n / 3) {
			switch probes.ShareFault(faults, p, seq) {
			case tracker.Release:
				release++
			case tracker.Reject:
				reject++
			}
		}
	}
	x := probetest.StartWith(t, shareProbeConfig("share-faults", "        faults: {release_fraction: 0.1, reject_fraction: 0.05}\n")+
		strings.TrimPrefix(shareProbeConfig("share-hold", "        faults: {hold: 5s, hold_interval: 1h}\n"), "\nprobes:\n"),
		c.Bootstrap(), probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	f := waitSettled(t, x, "share-faults", n)
	for _, name := range []string{"kafka_bench_records_lost_total", "kafka_bench_records_duplicated_total"} {
		if got := value(t, f, name, "share-faults"); got != 0 {
			t.Errorf("share-faults: %s = %v, want 0", name, got)
		}
	}
	refusedBy := map[string]float64{}
	var refused float64
	for _, a := range []string{"accept", "release", "reject"} {
		refusedBy[a] = value(t, f, "kafka_bench_share_ack_failed_total", "share-faults", "outcome", a)
		refused += refusedBy[a]
	}
	unknown := value(t, f, "kafka_bench_share_ack_unknown_total", "share-faults")
	lockExpired := value(t, f, "kafka_bench_share_redeliveries_total", "share-faults", "cause", "lock_expired")
	if refused > 0 || unknown > 0 || lockExpired > 0 {
		// A stall of the loaded machine (broker or members, a second and
		// more) let locks expire: the broker refused the acknowledgements
		// that came after, and their records came back by lock expiry
		// (a refused reject's record is then accepted; an accept applied
		// to the same member's next acquisition of a record is confirmed
		// besides that acquisition's own). The exact counts below do not
		// hold then; what holds: nothing lost or duplicated (above), every
		// fault answered once, confirmed or refused (or of unknown
		// outcome), the confirmed rejects archived, and no more
		// redeliveries by release than releases.
		t.Logf("share-faults: %v acknowledgements refused %v, %v of unknown outcome, %v redeliveries by lock expiry: the exact counts are not checked",
			refused, refusedBy, unknown, lockExpired)
		for _, cs := range []struct {
			action string
			want   float64
		}{{"release", release}, {"reject", reject}} {
			answered := value(t, f, "kafka_bench_share_acks_total", "share-faults", "outcome", cs.action) + refusedBy[cs.action]
			if answered > cs.want || unknown == 0 && answered != cs.want {
				t.Errorf("share-faults: %s confirmed or refused %v times, want %v (%v of unknown outcome)", cs.action, answered, cs.want, unknown)
			}
		}
		rejected := value(t, f, "kafka_bench_share_acks_total", "share-faults", "outcome", "reject")
		if got := value(t, f, "kafka_bench_share_records_archived_total", "share-faults", "reason", "rejected"); got != rejected {
			t.Errorf("share-faults: %v records archived as rejected, want the %v confirmed rejects", got, rejected)
		}
		if got := value(t, f, "kafka_bench_share_redeliveries_total", "share-faults", "cause", "released"); got > release {
			t.Errorf("share-faults: %v redeliveries by release, want at most the %v releases", got, release)
		}
	} else {
		checkShareFaultsExact(t, f, n, release, reject)
	}
	f = waitSettled(t, x, "share-hold", n)
	held := value(t, f, "kafka_bench_share_redeliveries_total", "share-hold", "cause", "lock_expired")
	failed := value(t, f, "kafka_bench_share_ack_failed_total", "share-hold", "outcome", "accept")
	t.Logf("share-hold: %v redeliveries by lock expiry, %v accepts failed", held, failed)
	if held == 0 || failed == 0 {
		t.Errorf("share-hold: %v redeliveries by lock expiry, %v failed accepts; want both > 0", held, failed)
	}
	for _, name := range []string{"kafka_bench_records_lost_total", "kafka_bench_share_records_archived_total"} {
		if got := value(t, f, name, "share-hold"); got != 0 {
			t.Errorf("share-hold: %s = %v, want 0", name, got)
		}
	}
	// Kafka 4.4.0 does not always refuse the holding member's late
	// accepts: in some runs (80 redeliveries by lock expiry, 26 failed
	// accepts) 27 records were accepted, confirmed, and delivered and
	// accepted again; in others (26 and 26) none. The probe counts them as
	// the duplicates they are to a user. They are logged, bounded by the
	// redeliveries, and every record is accepted at least once.
	dup := value(t, f, "kafka_bench_records_duplicated_total", "share-hold")
	accepted := value(t, f, "kafka_bench_share_acks_total", "share-hold", "outcome", "accept")
	t.Logf("share-hold: %v records delivered again after a confirmed accept, %v accepts confirmed", dup, accepted)
	if dup > held || accepted < n {
		t.Errorf("share-hold: %v duplicates (redeliveries by lock expiry %v), accepted %v; want at most the redeliveries and at least %d", dup, held, accepted, n)
	}
}

// checkShareFaultsExact checks the share-faults probe's counts when no
// acknowledgement was refused or of unknown outcome: n records, the release
// and reject faults.
func checkShareFaultsExact(t *testing.T, f scrape.Families, n, release, reject float64) {
	t.Helper()
	probetest.CheckCounts(t, f, "share-faults", probetest.ShareFaultCounts(n, release, reject))
}

// shareMemberEnv makes the test binary a bare share-group member
// (TestShareMemberProcess): brokers, group and topic, comma-separated.
const shareMemberEnv = "KAFKA_BENCH_SHARE_MEMBER"

// TestShareMemberProcess is a share-group member in a process of its own,
// started by TestShareMemberKilled: it polls once, prints how many records
// it holds, and holds them, never acknowledging, until it is killed.
func TestShareMemberProcess(t *testing.T) {
	spec := os.Getenv(shareMemberEnv)
	if spec == "" {
		t.Skip("run by TestShareMemberKilled as a process of its own")
	}
	parts := strings.Split(spec, ",")
	brokers, group, topic := strings.Split(parts[0], ";"), parts[1], parts[2]
	// Its client's warnings go to the test's output. (A short fetch
	// wait made it acquire every record ahead of its one poll, starving
	// the probe's members.)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ShareGroup(group), kgo.ConsumeTopics(topic),
		kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelWarn, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for {
		fs := cl.PollRecords(context.Background(), 100)
		if n := fs.NumRecords(); n > 0 {
			fmt.Printf("holding %d\n", n)
			break
		}
	}
	select {} // until SIGKILL
}

// A member process is killed with SIGKILL while it holds records: the
// broker gives them to the probe's members once their lock is gone, the
// probe counts them as redeliveries by lock expiry (it never released
// them), and nothing is lost.
func TestShareMemberKilled(t *testing.T) {
	parallelLong(t) // exact counts and lock expiries, not rates: it waits more than it computes
	kafkatest.Integration(t)
	c := kafkatest.Start(t, shareKafkaOptions)
	logShareOnFailure(t, c, "kafka-bench-share-killed-share")
	// A minute of records at the probe's 200 records/s: a new member of
	// a share group waits seconds for its assignment (more on a loaded
	// machine), shares its partition with a member of the probe, and
	// must still find records flowing when it fetches (it held records
	// 0.1–3.7 s after it started in the suite's runs), and the records it
	// held must come back after their lock (5 s) while records still flow.
	const probe, n = "share-killed", 12000
	x := probetest.StartWith(t, shareProbeConfig(probe, ""), c.Bootstrap(),
		probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	// The member starts once the probe is up: a member in the group
	// before the probe set its start offsets would leave the group at
	// earliest (TestShareProbeBesideForeignMember).
	x.WaitReady(t, probe, 2*time.Minute)
	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^TestShareMemberProcess$")
	cmd.Env = append(os.Environ(), shareMemberEnv+"="+strings.Join(c.Bootstrap(), ";")+",kafka-bench-"+probe+"-share,kafka-bench-"+probe)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := testenv.StartTied(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	holding := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var k int
			if _, err := fmt.Sscanf(sc.Text(), "holding %d", &k); err == nil {
				holding <- k
				return
			}
		}
	}()
	var held int
	select {
	case held = <-holding:
	case <-time.After(2 * time.Minute):
		t.Fatal("the member process got no records")
	}
	t.Logf("the member process held records %.1f s after it started", time.Since(start).Seconds())
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("SIGKILLed a member process holding %d records", held)
	f := waitSettled(t, x, probe, n)
	expired := value(t, f, "kafka_bench_share_redeliveries_total", probe, "cause", "lock_expired")
	if expired < float64(held) {
		t.Errorf("redeliveries by lock expiry = %v, want at least the %d records the killed member held", expired, held)
	}
	for _, cs := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kafka_bench_share_acks_total", []string{"outcome", "accept"}, n},
		{"kafka_bench_share_redeliveries_total", []string{"cause", "released"}, 0},
		{"kafka_bench_records_lost_total", nil, 0},
		{"kafka_bench_records_duplicated_total", nil, 0},
		{"kafka_bench_share_records_archived_total", nil, 0},
	} {
		if got := value(t, f, cs.name, probe, cs.labels...); got != cs.want {
			t.Errorf("%s%v = %v, want %v", cs.name, cs.labels, got, cs.want)
		}
	}
}

// A member of another process is in the share group when the probe starts
// (reading another topic, as when a group id is reused): the broker
// refuses the probe's start offsets (NON_EMPTY_GROUP); the probe warns,
// comes up and its members accept records.
func TestShareProbeBesideForeignMember(t *testing.T) {
	parallel(t)
	c := shareKafka(t)
	const probe, group = "share-foreign", "kafka-bench-share-foreign-share"
	// It reads a topic of its own: the group has a member, and no share
	// partition of the probe's topic has started.
	ctx, adm := t.Context(), admin(t, c)
	createTopic(t, ctx, adm, "share-foreign-own", 1, 1)
	foreign, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.ShareGroup(group), kgo.ConsumeTopics("share-foreign-own"))
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close()
	go func() {
		for ctx.Err() == nil && !foreign.PollRecords(ctx, 10).IsClientClosed() {
			time.Sleep(10 * time.Millisecond) // an empty poll returns at once on a canceled context
		}
	}()
	probetest.Eventually(t, time.Minute, "the foreign member in the group", func() (bool, string) {
		d, err := adm.DescribeShareGroups(ctx, group)
		if err != nil {
			return false, err.Error()
		}
		return len(d[group].Members) == 1, fmt.Sprintf("%d members", len(d[group].Members))
	})
	logger, logs := probetest.CaptureLogger()
	x := probetest.StartWith(t, shareProbeConfig(probe, ""), c.Bootstrap(),
		probes.Options{Logger: logger, Bench: probes.BenchOptions{NumRecords: 2000}})
	probetest.Eventually(t, 2*time.Minute, "the probe's members accepting records", func() (bool, string) {
		acc := value(t, x.Gather(t), "kafka_bench_share_acks_total", probe, "outcome", "accept")
		return acc > 0, fmt.Sprintf("accepted %v", acc)
	})
	if !strings.Contains(logs.String(), "the share group has members of another process") {
		t.Errorf("no WARN about the foreign member:\n%s", logs)
	}
}

// A cluster without share groups (Kafka 4.1.1, whose share.version is not
// finalized by default): the share probe stops at start with an error
// naming the probe and the broker's version, and a group probe beside it
// keeps running.
func TestShareProbeRefusedWithoutShareGroups(t *testing.T) {
	kafkatest.Integration(t)
	parallel(t)
	c := kafkatest.Start(t, kafkatest.Options{Nodes: 1, KafkaVersion: "4.1.1"})
	cfg := probetest.Config(t, `
probes:
  - name: share-refused
    consumer: {kind: share}
  - name: share-refused-classic
    lag_interval: 500ms
    create_topic: {replication_factor: 1}
`, c.Bootstrap())
	classic, err := probetest.ShareBesideGroup(t, cfg, 60*time.Second)
	if !errors.Is(err, kclient.ErrNoShareGroups) {
		t.Fatalf("share probe: %v, want ErrNoShareGroups", err)
	}
	t.Logf("share probe: %v", err)
	for _, want := range []string{`probe "share-refused"`, "consumer.kind share", "runs Kafka v4.1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	probetest.Eventually(t, 60*time.Second, "the group probe up", func() (bool, string) { return classic.Ready(), "not up" })
}
