package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// A KIP-848 group (group.protocol: consumer) and a classic cooperative-sticky
// group on Kafka 4.x, each rebalancing while records flow: a second member
// joins the probe's group, holds partitions for a while without reading or
// committing, and leaves. The coordinator describes each group with its
// protocol, the probe exports the protocol in use, its rebalances are
// measured (the duration histogram has observations, partitions were
// revoked and assigned), and no record is lost.
func TestRebalancesKIP848AndCooperative(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	x := exportertest.Start(t, `
probes:
  - name: kip848
    rate: 200
    record_size: 200
    lag_interval: 1s
    loss_grace_period: 10s
    create_topic: {partitions: 4, replication_factor: 1}
    consumer: {group.protocol: consumer}
  - name: cooperative
    rate: 200
    record_size: 200
    lag_interval: 1s
    loss_grace_period: 10s
    create_topic: {partitions: 4, replication_factor: 1}
    consumer: {group.protocol: classic, partition.assignment.strategy: cooperative-sticky}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	adm := admin(t, c)

	for _, tc := range []struct {
		probe, protocol string
		balancer        []kgo.Opt
	}{
		{"kip848", "consumer", []kgo.Opt{kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer())}},
		{"cooperative", "classic", []kgo.Opt{kgo.Balancers(kgo.CooperativeStickyBalancer())}},
	} {
		t.Run(tc.probe, func(t *testing.T) {
			group, topic := "kafka-bench-"+tc.probe, "kafka-bench-"+tc.probe
			probetest.Eventually(t, 30*time.Second, "the protocol in use exported", func() (bool, string) {
				got := x.Scrape(t).Label("kafka_bench_consumer_group_protocol_info", "protocol", "probe", tc.probe)
				return got == tc.protocol, "protocol=" + got
			})
			assertGroupType(t, adm, group, tc.protocol)
			waitSteady(t, x, tc.probe, 200)
			before := x.Scrape(t)
			rebalances := func(f scrape.Families) float64 {
				v, _ := f.Value("kafka_bench_consumer_rebalance_duration_seconds", "probe", tc.probe, "protocol", tc.protocol)
				return v
			}
			n0 := rebalances(before)

			// A second member joins, so partitions move away from the
			// probe's member while records flow.
			extra, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Bootstrap()...), kgo.ConsumerGroup(group),
				kgo.ConsumeTopics(topic), kgo.DisableAutoCommit()}, tc.balancer...)...)
			if err != nil {
				t.Fatal(err)
			}
			leave := sync.OnceFunc(extra.Close)
			t.Cleanup(leave)
			probetest.Eventually(t, 90*time.Second, "a rebalance measured after the second member joined", func() (bool, string) {
				n := rebalances(x.Scrape(t))
				return n > n0, fmt.Sprintf("rebalances measured: %v (before: %v)", n, n0)
			})
			joined := x.Scrape(t)
			n1 := rebalances(joined)
			// It leaves: its partitions come back to the probe.
			leave()
			// Measured and given back are two events (the coordinator
			// can end one rebalance before it assigns in the next): wait
			// for both.
			assignedAtJoin := value(t, joined, "kafka_bench_consumer_partitions_assigned_total", tc.probe)
			probetest.Eventually(t, 90*time.Second, "a rebalance measured and partitions assigned after the second member left", func() (bool, string) {
				f := x.Scrape(t)
				n, a := rebalances(f), value(t, f, "kafka_bench_consumer_partitions_assigned_total", tc.probe)
				return n > n1 && a > assignedAtJoin, fmt.Sprintf("rebalances measured: %v (after the join: %v); partitions assigned %v (after the join: %v)", n, n1, a, assignedAtJoin)
			})
			f := x.Scrape(t)
			revoked, assigned := value(t, f, "kafka_bench_consumer_partitions_revoked_total", tc.probe), value(t, f, "kafka_bench_consumer_partitions_assigned_total", tc.probe)
			if revoked == 0 || assigned <= value(t, before, "kafka_bench_consumer_partitions_assigned_total", tc.probe) {
				t.Errorf("partitions revoked %v, assigned %v (before the join: %v): want both to grow", revoked, assigned, value(t, before, "kafka_bench_consumer_partitions_assigned_total", tc.probe))
			}
			if v, _ := f.Value("kafka_bench_consumer_rebalances_total", "probe", tc.probe, "protocol", tc.protocol, "cause", "reassigned"); v < 2 {
				t.Errorf("rebalances_total{cause=reassigned} = %v, want >= 2", v)
			}
			t.Logf("%s: rebalance durations: %v observations, sum %.3fs; records produced during them: %v",
				tc.probe, rebalances(f), histogramSum(f, "kafka_bench_consumer_rebalance_duration_seconds", tc.probe),
				value(t, f, "kafka_bench_consumer_rebalance_end_to_end_latency_seconds", tc.probe))
		})
	}
	for _, probe := range []string{"kip848", "cooperative"} {
		f := drain(t, x, probe)
		assertCounters(t, f, probe, map[string]float64{"kafka_bench_records_lost_total": 0, "kafka_bench_records_foreign_total": 0})
		if p, c := value(t, f, "kafka_bench_produced_records_total", probe), value(t, f, "kafka_bench_consumed_records_total", probe); c < p {
			t.Errorf("probe %s: consumed %v < produced %v", probe, c, p)
		}
		t.Logf("probe %s: duplicates %v (records read again after a rebalance)", probe, value(t, f, "kafka_bench_records_duplicated_total", probe))
	}
}

// assertGroupType checks how the coordinator describes group: a KIP-848
// group is listed with type consumer and described by
// ConsumerGroupDescribe; a classic one is listed with type classic.
func assertGroupType(t *testing.T, adm *kadm.Client, group, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := listed[group].GroupType; got != want {
		t.Errorf("group %s listed with type %q, want %q", group, got, want)
	}
	described, err := adm.DescribeConsumerGroups(ctx, group)
	if err != nil && want == "consumer" {
		t.Fatalf("describing %s as a consumer group: %v", group, err)
	}
	d := described[group]
	switch {
	case want == "consumer" && (d.Err != nil || d.State != "Stable"):
		t.Errorf("group %s described as a consumer group: state %q, err %v; want Stable", group, d.State, d.Err)
	case want == "classic" && d.Err == nil && err == nil:
		t.Errorf("classic group %s described as a consumer group (state %q)", group, d.State)
	}
}

func histogramSum(f scrape.Families, name, probe string) float64 {
	var s float64
	for _, m := range f.Find(name, "probe", probe) {
		s += m.GetHistogram().GetSampleSum()
	}
	return s
}

// consumer.churn on a KIP-848 group: the extra member joins every interval
// and leaves after its duration; the probe's member measures the
// rebalances it causes (cause churn), and no record is lost.
func TestConsumerChurn(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe = "churn"
	x := exportertest.Start(t, `
probes:
  - name: churn
    rate: 200
    record_size: 200
    lag_interval: 1s
    loss_grace_period: 10s
    create_topic: {partitions: 4, replication_factor: 1}
    consumer: {group.protocol: consumer, churn: {interval: 12s, duration: 5s}}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	probetest.Eventually(t, 2*time.Minute, "two churn rebalances measured at the probe's member", func() (bool, string) {
		f := x.Scrape(t)
		churn, _ := f.Value("kafka_bench_consumer_rebalances_total", "probe", probe, "cause", "churn")
		d, _ := f.Value("kafka_bench_consumer_rebalance_duration_seconds", "probe", probe)
		return churn >= 2 && d >= 2, fmt.Sprintf("churn rebalances %v, durations observed %v", churn, d)
	})
	f := drain(t, x, probe)
	assertCounters(t, f, probe, map[string]float64{"kafka_bench_records_lost_total": 0, "kafka_bench_records_foreign_total": 0})
	t.Logf("rebalance durations: %v observations, sum %.3fs", value(t, f, "kafka_bench_consumer_rebalance_duration_seconds", probe),
		histogramSum(f, "kafka_bench_consumer_rebalance_duration_seconds", probe))
}
