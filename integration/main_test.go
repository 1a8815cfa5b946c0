// Package integration tests the exporter against real Apache Kafka brokers
// (internal/kafkatest) and a real Prometheus (internal/promtest). The tests
// run when KAFKA_BENCH_INTEGRATION=1 (scripts/test.sh sets it); then nothing
// skips, and a harness that cannot start is a failure.
package integration

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testbin"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// Clusters are shared by the tests of this package (a JVM start costs
// seconds); each test uses its own topics and groups.
//
// Waiting: most tests here spend their time waiting on a fault's duration, a
// window, a grace period, a token's lifetime or a broker's restart, not
// computing. Those call parallel (or parallelLong) first and run together
// once the others are done, waitingSlots at once, the long ones first (see
// waiting below); they use clusters of their own, or their own topics and
// groups on a shared one. Among them are the share-group tests of exact counts and
// lock expiries (TestShareProbeFaults, TestShareMemberKilled), each on a
// broker of its own (shareKafka in share_test.go). The others
// run one at a time before them, in file order: those that fault a shared
// cluster (SIGSTOP, SIGKILL) and those whose assertions are about rates,
// latencies or resource use, which other tests' CPU on two cores would move
// (TestSingleBrokerAcks1, TestThreeBrokersAcksAllAndLeaderKill,
// TestStallChargedToEveryDelayedRecord, TestLagWhileConsumerHeld,
// TestLagZeroWhenCaughtUp, TestSoak, TestPartitionsAddedWhileRunning,
// TestReplicationTopicRecreated, TestShareProbeSteady),
// TestCapacityRunOnRealBroker, whose ramp drives the machine to a limit,
// the short restart tests (TestStaticConfigExperimentHookFails,
// TestStaticConfigExperimentDryRun), which hold the restart cluster before
// the rolling restart takes it, the rolling restart and the rolling upgrade
// (TestRollingRestarts: beside three other tests their restarted brokers
// came back too late for their timeouts; the two run side by side, each on
// a cluster of its own, beside nothing else but, after the upgrade, the
// outage of a broker of its own, AllBrokersDownForAMinute, whose scrapes
// during the outage have a 1 s budget),
// and the Prometheus tests
// (TestPrometheusEndToEnd in slo_test.go, its two tests side by side),
// whose Prometheus servers would starve the others on two cores (and
// whose queries have deadlines). It is in a file late in the order: on a
// fresh machine Prometheus 3 is still being built when this package starts
// (scripts/test.sh starts it early), and the tests before it run
// meanwhile. The quota capacity
// test's limits are wide enough for a loaded machine (see
// capacity_test.go): it runs in parallel.
// subtest is a named test function.
type subtest struct {
	name string
	run  func(*testing.T)
}

// sideBySide runs lanes of tests as subtests of t, beside nothing else: t
// is one of the tests that run one at a time, so its subtests are the only
// tests running. The lanes run at the same time; the tests of a lane one
// after another, in order (a test that -run leaves out is not waited for).
func sideBySide(t *testing.T, lanes ...[]subtest) {
	for _, lane := range lanes {
		prev := make(chan struct{})
		close(prev)
		for _, s := range lane {
			done, after := make(chan struct{}), prev
			entered := false
			t.Run(s.name, func(t *testing.T) {
				entered = true // before t.Parallel: t.Run returns after it
				t.Parallel()
				defer close(done)
				waited := time.Now()
				<-after
				if d := time.Since(waited); d > time.Second {
					t.Logf("side by side: started after %s, once the test before it in its lane ended", d.Round(time.Second))
				}
				s.run(t)
			})
			if !entered {
				close(done)
			}
			prev = done
		}
	}
}

// waitingSlots is how many waiting tests run at once.
const waitingSlots = 4

// waiting runs the waiting tests. Go's own -parallel limit starts them in
// an order of its own (in practice the last declared first), so a test of
// minutes that starts last ends the package minutes after the rest: here
// the long ones (parallelLong) start first, then the others in the order
// they arrive. scripts/test.sh sets -parallel above the number of waiting
// tests, so that every one reaches waiting, which alone limits them. With
// a lower -parallel (go test's default is GOMAXPROCS) not every test
// arrives: after waitingGather the ones there start, long ones first.
var waiting = &scheduler{slots: waitingSlots}

// waitingGather is how long the first waiting test to arrive waits for the
// others to arrive before slots are handed out.
const waitingGather = 2 * time.Second

type scheduler struct {
	mu         sync.Mutex
	slots      int       // free slots
	registered int       // tests that called parallel or parallelLong
	arrived    int       // of those, the ones released by Go's t.Parallel
	first      time.Time // when the first arrived
	queue      []waiter  // arrived and not yet running, in arrival order
}

type waiter struct {
	long  bool
	start chan struct{}
}

// parallel marks t a waiting test: t.Parallel, then a slot of waiting.
func parallel(t *testing.T) { waiting.run(t, false) }

// parallelLong is parallel for a test of minutes: it gets a slot before
// the shorter ones.
func parallelLong(t *testing.T) { waiting.run(t, true) }

func (s *scheduler) run(t *testing.T, long bool) {
	t.Helper()
	s.mu.Lock()
	s.registered++
	s.mu.Unlock()
	t.Parallel() // returns once the tests that are not waiting are done
	w := waiter{long: long, start: make(chan struct{})}
	s.mu.Lock()
	s.arrived++
	if s.first.IsZero() {
		s.first = time.Now()
		time.AfterFunc(waitingGather, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.dispatch()
		})
	}
	s.queue = append(s.queue, w)
	s.dispatch()
	s.mu.Unlock()
	queued := time.Now()
	<-w.start
	// Go times a test from its t.Parallel: its time in the queue counts.
	if d := time.Since(queued); d > time.Second {
		t.Logf("waiting: started after %s in the queue", d.Round(time.Second))
	}
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.slots++
		s.dispatch()
	})
}

// dispatch starts queued tests while slots are free, once every waiting
// test arrived or waitingGather passed: the long ones first. Holds s.mu.
func (s *scheduler) dispatch() {
	if s.arrived < s.registered && time.Since(s.first) < waitingGather {
		return
	}
	for s.slots > 0 && len(s.queue) > 0 {
		i := max(slices.IndexFunc(s.queue, func(w waiter) bool { return w.long }), 0) // a long one, else the first
		close(s.queue[i].start)
		s.queue = slices.Delete(s.queue, i, i+1)
		s.slots--
	}
}

var clusters struct {
	mu    sync.Mutex
	byN   map[int]*kafkatest.Cluster
	errsN map[int]error
	extra []*kafkatest.Cluster // clusters with other options (security_test.go)
}

func TestMain(m *testing.M) {
	code := m.Run()
	clusters.mu.Lock()
	for _, c := range clusters.byN {
		c.Close()
	}
	for _, c := range clusters.extra {
		c.Close()
	}
	clusters.mu.Unlock()
	testbin.Remove()
	os.Exit(code)
}

// cluster returns the shared cluster of n nodes, starting it on first use.
func cluster(t *testing.T, n int) *kafkatest.Cluster {
	t.Helper()
	kafkatest.Integration(t)
	clusters.mu.Lock()
	defer clusters.mu.Unlock()
	if clusters.byN == nil {
		clusters.byN, clusters.errsN = map[int]*kafkatest.Cluster{}, map[int]error{}
	}
	if c, ok := clusters.byN[n]; ok {
		return c
	}
	if err := clusters.errsN[n]; err != nil {
		t.Fatalf("%d-node Kafka cluster failed to start earlier: %v", n, err)
	}
	// Three JVMs on two shared cores can take minutes to form a quorum: this
	// deadline is for the harness, not a measurement.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	c, err := kafkatest.StartCluster(ctx, kafkatest.Options{Nodes: n}, t.Logf)
	if err != nil {
		clusters.errsN[n] = err
		t.Fatalf("starting a %d-node Kafka cluster: %v", n, err)
	}
	t.Logf("%d-node Kafka cluster started in %.1fs: %v", n, time.Since(start).Seconds(), c.Bootstrap())
	clusters.byN[n] = c
	return c
}

// brokerConfigs is held by the parallel tests that change the shared
// 1-node cluster's broker configuration and compare it with what they read
// before (TestConfigWatch, the TestConfigExperiment tests): one at a time
// among themselves, beside the other tests.
var brokerConfigs sync.Mutex

// exclusiveBrokerConfigs holds brokerConfigs until t and its cleanups (the
// restores) are done.
func exclusiveBrokerConfigs(t *testing.T) {
	t.Helper()
	brokerConfigs.Lock()
	t.Cleanup(brokerConfigs.Unlock)
}

// ensureRunning restarts every node a previous test left stopped or paused.
func ensureRunning(t *testing.T, c *kafkatest.Cluster) {
	t.Helper()
	for i := 0; i < c.Nodes(); i++ {
		_ = c.Resume(i)
		if !c.Running(i) {
			if err := c.Restart(i); err != nil {
				t.Fatalf("restarting node %d: %v", i, err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
}

// admin is an admin client of cluster c, closed when the test ends.
func admin(t *testing.T, c *kafkatest.Cluster) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// createTopic creates topic, deleted when the test ends, and waits until
// every partition has a leader, as bench mode does (kclient).
func createTopic(t *testing.T, ctx context.Context, adm *kadm.Client, topic string, partitions int32, rf int16) {
	t.Helper()
	created, err := kclient.CreateTopic(ctx, adm, topic, config.CreateTopic{Partitions: partitions, ReplicationFactor: rf})
	if err == nil && !created {
		err = fmt.Errorf("topic %q exists already", topic)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopic(context.Background(), topic) })
	if _, err := kclient.WaitTopic(ctx, adm, topic, kclient.Led); err != nil {
		t.Fatalf("topic %q: partitions without a leader: %v", topic, err)
	}
}

// alterTopicConfig changes one dynamic config of topic with Kafka's own
// IncrementalAlterConfigs (op SetConfig or DeleteConfig).
func alterTopicConfig(t *testing.T, ctx context.Context, adm *kadm.Client, topic string, op kadm.IncrementalOp, name, value string) {
	t.Helper()
	resp, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: op, Name: name, Value: &value}}, topic)
	var r kadm.AlterConfigsResponse
	if err == nil {
		r, err = resp.On(topic, nil)
	}
	if err == nil {
		err = r.Err
	}
	if err != nil {
		t.Fatalf("%s %v %s: %v %s", name, op, value, err, r.ErrMessage)
	}
}

// value reads a series of probe (summed over the other labels unless given);
// a series that does not exist fails the test, so a renamed metric cannot
// read as 0.
func value(t testing.TB, f scrape.Families, name, probe string, labels ...string) float64 {
	t.Helper()
	v, ok := f.Value(name, append([]string{"probe", probe}, labels...)...)
	if !ok {
		t.Fatalf("no series %s{probe=%q} %v in the scrape", name, probe, labels)
	}
	return v
}

// rateBetween is the produced records/s of probe between two scrapes.
func rateBetween(t testing.TB, a, b scrape.Families, probe string, seconds float64) float64 {
	return (value(t, b, "kafka_bench_produced_records_total", probe) - value(t, a, "kafka_bench_produced_records_total", probe)) / seconds
}

// steadyRate measures the produce rate over d, between two scrapes, once the
// probe is in steady state: the first acknowledgements (producer id,
// metadata, leader elections of a new topic) arrive late and in a burst, and
// a window that includes that burst would read above the target. Steady
// state: the producer's client holds less than 200 ms of records.
func steadyRate(t *testing.T, x *exportertest.Exporter, probe string, rate float64, d time.Duration) float64 {
	t.Helper()
	waitSteady(t, x, probe, rate)
	a, t0 := x.Scrape(t), time.Now()
	time.Sleep(d)
	b, t1 := x.Scrape(t), time.Now()
	return rateBetween(t, a, b, probe, t1.Sub(t0).Seconds())
}

// waitSteady waits until the producer's client holds less than 200 ms of
// records: nothing piled up (start-up, a fault) is still unacknowledged.
func waitSteady(t *testing.T, x *exportertest.Exporter, probe string, rate float64) {
	t.Helper()
	probetest.Eventually(t, time.Minute, "probe "+probe+" in steady state", func() (bool, string) {
		f := x.Scrape(t)
		buffered, ok := f.Value("kafka_bench_client_buffered_produce_records", "probe", probe, "role", "producer")
		produced, _ := f.Value("kafka_bench_produced_records_total", "probe", probe)
		return ok && buffered < rate/5, fmt.Sprintf("buffered produce records=%v, produced=%v", buffered, produced)
	})
}

// waitCaughtUp waits until the probe consumer has read all but maxRecords
// (its own position; the committed view trails by a commit interval).
func waitCaughtUp(t *testing.T, x *exportertest.Exporter, probe string, maxRecords float64) {
	t.Helper()
	probetest.Eventually(t, time.Minute, "probe "+probe+" consumer caught up", func() (bool, string) {
		v, missing := values(x.Scrape(t), probe, "kafka_bench_consumed_records_total", "kafka_bench_consumer_lag_records")
		if missing != "" {
			return false, missing
		}
		c, lag := v[0], v[1]
		return c > 0 && lag <= maxRecords, fmt.Sprintf("consumed=%v lag_records=%v", c, lag)
	})
}

// logMean logs the mean of the histograms name{probe, labels...} summed
// over their other labels, when they have observations.
func logMean(t testing.TB, f scrape.Families, name, probe string, labels ...string) {
	t.Helper()
	var n uint64
	var sum float64
	for _, m := range f.Find(name, append([]string{"probe", probe}, labels...)...) {
		n += m.GetHistogram().GetSampleCount()
		sum += m.GetHistogram().GetSampleSum()
	}
	if n > 0 {
		t.Logf("%s%v: %d observations, mean %.1f ms", name, labels, n, 1000*sum/float64(n))
	}
}

// values reads series of probe for a condition that is polled: a series
// not there yet (the consumer's lag appears once it has its partitions,
// later on a loaded machine) is the condition not holding, named in
// missing; at the deadline the poll fails with it, so a renamed metric
// still cannot read as 0.
func values(f scrape.Families, probe string, names ...string) (v []float64, missing string) {
	v = make([]float64, len(names))
	for i, name := range names {
		var ok bool
		if v[i], ok = f.Value(name, "probe", probe); !ok {
			return nil, fmt.Sprintf("no series %s{probe=%q} yet", name, probe)
		}
	}
	return v, ""
}

// drain stops the producer and waits until everything produced was consumed
// (but what read_committed does not read: aborted transactions) and
// committed (both views of lag 0); it returns the final scrape.
func drain(t *testing.T, x *exportertest.Exporter, probe string) scrape.Families {
	t.Helper()
	x.Probe(probe).StopProducing()
	var f scrape.Families
	probetest.Eventually(t, 60*time.Second, "probe "+probe+" to drain", func() (bool, string) {
		f = x.Scrape(t)
		v, missing := values(f, probe, "kafka_bench_produced_records_total", "kafka_bench_consumed_records_total",
			"kafka_bench_consumer_lag_records", "kafka_bench_consumer_lag_seconds",
			"kafka_bench_consumer_group_lag_records", "kafka_bench_consumer_group_lag_seconds", "kafka_bench_produce_failed_total")
		if missing != "" {
			return false, missing
		}
		p, c, lag, lagS, glag, glagS := v[0], v[1], v[2], v[3], v[4], v[5]
		// Every record handed to the client has its outcome (failed also
		// counts records skipped behind schedule, which were never sent).
		sent, failed := float64(x.Probe(probe).Sent()), v[6]
		// Records of aborted transactions (a transactional probe's only)
		// are not read with read_committed.
		aborted, _ := f.Value("kafka_bench_transaction_aborted_records_total", "probe", probe)
		if cfg := x.Probe(probe).Config(); !cfg.Consumer.ReadCommitted() {
			aborted = 0
		}
		return p > 0 && p+failed >= sent && c >= p-aborted && lag == 0 && lagS == 0 && glag == 0 && glagS == 0,
			fmt.Sprintf("sent=%v produced=%v failed=%v consumed=%v aborted=%v lag=%v lag_s=%v group_lag=%v group_lag_s=%v", sent, p, failed, c, aborted, lag, lagS, glag, glagS)
	})
	return f
}

// assertCounters checks exact values of counters of one probe.
func assertCounters(t *testing.T, f scrape.Families, probe string, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		if got := value(t, f, name, probe); got != w {
			t.Errorf("probe %s: %s = %v, want %v", probe, name, got, w)
		}
	}
}

func within(got, want, frac float64) bool { return math.Abs(got-want) <= frac*want }
