package integration

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// createTopicOn creates topic with an explicit replica assignment
// (partition i gets assignment[i]).
func createTopicOn(t *testing.T, c *kafkatest.Cluster, topic string, assignment ...[]int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 15000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, -1, -1
	for i, replicas := range assignment {
		ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		ra.Partition, ra.Replicas = int32(i), replicas
		rt.ReplicaAssignment = append(rt.ReplicaAssignment, ra)
	}
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.Topics[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("creating %s: %v", topic, err)
	}
}

func observedBrokers(f scrape.Families, name, probe string) []string {
	return f.ObservedLabelValues(name, "broker", "probe", probe)
}

// create_topic.leader_on_every_broker on 3 real brokers: a topic whose two
// partitions are both led by broker 1 gains a third partition, its replicas
// are reordered or moved so that each broker is a preferred leader, a
// preferred leader election follows, and the latency histograms then show
// all three brokers, with no record lost.
func TestLeaderOnEveryBroker(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 3)
	ensureRunning(t, c)
	const probe, topic = "spread", "kafka-bench-spread"
	createTopicOn(t, c, topic, []int32{1, 2}, []int32{1, 2})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for p := range int32(2) {
		if l, err := c.LeaderOf(ctx, topic, p); err != nil || l != 1 {
			t.Fatalf("before: leader of partition %d = %d, %v; want 1", p, l, err)
		}
	}
	x := exportertest.Start(t, `
probes:
  - name: spread
    rate: 300
    record_size: 200
    lag_interval: 1s
    create_topic: {partitions: 2, replication_factor: 2, leader_on_every_broker: true}
`, c.Bootstrap())
	probetest.Eventually(t, 90*time.Second, "latencies observed on every broker", func() (bool, string) {
		f := x.Scrape(t)
		p := observedBrokers(f, "kafka_bench_produce_latency_seconds", probe)
		e := observedBrokers(f, "kafka_bench_end_to_end_latency_seconds", probe)
		want := []string{"1", "2", "3"}
		return slices.Equal(p, want) && slices.Equal(e, want), fmt.Sprintf("produce latency brokers %v, end-to-end %v", p, e)
	})
	// What the probe placed: each broker the preferred leader (first
	// replica) of one partition. The latencies above show the election
	// made them leaders; who leads now is not asserted, since a broker
	// briefly fenced on a loaded machine hands its leadership to a
	// follower until Kafka's own preferred-leader balancing moves it back.
	tds, err := admin(t, c).ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	preferred := map[int32]bool{}
	for _, pd := range tds[topic].Partitions.Sorted() {
		if len(pd.Replicas) > 0 {
			preferred[pd.Replicas[0]] = true
		}
	}
	if len(tds[topic].Partitions) != 3 || !preferred[1] || !preferred[2] || !preferred[3] {
		t.Errorf("preferred leaders of the %d partitions: %v, want brokers 1, 2 and 3", len(tds[topic].Partitions), preferred)
	}
	f := x.Scrape(t)
	if got := f.Label("kafka_bench_probe_info", "partitions", "probe", probe); got != "3" {
		t.Errorf("kafka_bench_probe_info partitions = %q, want 3", got)
	}
	final := drain(t, x, probe)
	assertCounters(t, final, probe, clean)
	for _, b := range []int{1, 2, 3} {
		if n, _ := final.Value("kafka_bench_produce_latency_seconds", "probe", probe, "broker", strconv.Itoa(b)); n == 0 {
			t.Errorf("no produce latency on broker %d", b)
		}
	}
}

// A broker the probe has never seen (stopped when it started) joins while
// it runs: the probe adds a partition for it, makes it a leader and
// measures it, without a restart. A broker that then restarts is neither
// new nor removed: the probe does not spread again. A broker then removed
// from the cluster has its replicas moved to the others. Nothing is lost.
func TestLeaderOnEveryBrokerFollowsBrokers(t *testing.T) {
	kafkatest.Integration(t)
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := kafkatest.Start(t, kafkatest.Options{Nodes: 3})
	if err := c.Stop(2); err != nil {
		t.Fatal(err)
	}
	const probe = "follow"
	logger, logs := probetest.CaptureLogger()
	x := exportertest.StartLogged(t, `
probes:
  - name: follow
    rate: 300
    record_size: 200
    lag_interval: 1s
    create_topic: {partitions: 1, replication_factor: 2, leader_on_every_broker: true}
`, c.Bootstrap(), logger)
	measured := func(want ...string) func() (bool, string) {
		return func() (bool, string) {
			e := observedBrokers(x.Scrape(t), "kafka_bench_end_to_end_latency_seconds", probe)
			return slices.Equal(e, want), fmt.Sprintf("end-to-end latency observed on brokers %v, want %v", e, want)
		}
	}
	probetest.Eventually(t, 90*time.Second, "the two running brokers measured", measured("1", "2"))
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 2*time.Minute, "the joined broker measured too", measured("1", "2", "3"))
	joins := strings.Count(logs.String(), "brokers joined the cluster")
	if joins != 1 {
		t.Errorf("the probe logged %d joins, want 1:\n%s", joins, logs.String())
	}
	// A restart of a broker the probe has seen is no join.
	if err := c.Restart(0); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "brokers left the cluster"); n != 0 {
		t.Errorf("a restarted broker counted as removed (%d removals logged):\n%s", n, logs.String())
	}
	// A broker removed (stopped, then unregistered as kafka-cluster.sh
	// unregister does) leaves: the probe moves the topic's replicas off it.
	removedID := c.NodeID(2)
	if err := c.Stop(2); err != nil {
		t.Fatal(err)
	}
	unregisterBroker(t, c, removedID)
	adm := admin(t, c)
	probetest.Eventually(t, 2*time.Minute, "no replica of the probe topic on the removed broker", func() (bool, string) {
		tds, err := adm.ListTopics(t.Context(), "kafka-bench-"+probe)
		if err != nil {
			return false, err.Error()
		}
		td := tds["kafka-bench-"+probe]
		for _, pd := range td.Partitions.Sorted() {
			if slices.Contains(pd.Replicas, removedID) || len(pd.Replicas) != 2 {
				return false, fmt.Sprintf("partition %d: replicas %v", pd.Partition, pd.Replicas)
			}
		}
		return td.Err == nil && len(td.Partitions) > 0, fmt.Sprintf("topic: %v", td.Err)
	})
	if n := strings.Count(logs.String(), "brokers left the cluster"); n != 1 {
		t.Errorf("the probe logged %d removals, want 1:\n%s", n, logs.String())
	}
	final := drain(t, x, probe)
	assertCounters(t, final, probe, clean)
	if n := strings.Count(logs.String(), "brokers joined the cluster"); n != joins {
		t.Errorf("a restarted broker counted as joined (%d joins logged, was %d):\n%s", n, joins, logs.String())
	}
}

// unregisterBroker removes broker id, stopped, from the cluster's
// registrations (UnregisterBroker, as kafka-cluster.sh unregister).
func unregisterBroker(t *testing.T, c *kafkatest.Cluster, id int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	probetest.Eventually(t, time.Minute, fmt.Sprintf("broker %d unregistered", id), func() (bool, string) {
		req := kmsg.NewPtrUnregisterBrokerRequest()
		req.BrokerID = id
		resp, err := req.RequestWith(t.Context(), cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	})
}
