package integration

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// fetchedBy sums kafka_bench_consumer_fetched_records_total of probe into
// records served by broker from and records served by the others, each
// split by whether the server led the partition.
func fetchedBy(f scrape.Families, probe, from string) (fromFollower, fromLeader, others float64) {
	for _, m := range f.Find("kafka_bench_consumer_fetched_records_total", "probe", probe) {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		v := m.GetCounter().GetValue()
		switch {
		case labels["fetch_broker"] != from:
			others += v
		case labels["broker"] == from:
			fromLeader += v
		default:
			fromFollower += v
		}
	}
	return fromFollower, fromLeader, others
}

// Three brokers in racks a, b and c with Kafka's rack-aware replica
// selector (KIP-392), RF 3: a probe whose consumer has client.rack b is
// served by the broker in rack b, for the partitions other brokers lead
// too. kafka_bench_consumer_fetched_records_total shows it (fetch_broker
// beside the leader's broker), at steady state no record comes from another
// broker, and nothing is lost.
func TestFollowerFetchingByRack(t *testing.T) {
	kafkatest.Integration(t)
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := kafkatest.Start(t, kafkatest.Options{Nodes: 3, Racks: []string{"a", "b", "c"},
		BrokerConfig: map[string]string{"replica.selector.class": "org.apache.kafka.common.replica.RackAwareReplicaSelector"}})
	const probe = "rack"
	x := exportertest.Start(t, `
probes:
  - name: rack
    rate: 200
    record_size: 256
    lag_interval: 1s
    loss_grace_period: 10s
    create_topic: {partitions: 3, replication_factor: 3}
    consumer: {client.rack: b}
`, c.Bootstrap())
	x.WaitReady(t, 90*time.Second)
	rackB := strconv.Itoa(int(c.NodeID(1)))
	probetest.Eventually(t, 90*time.Second, "records of partitions others lead served by the broker in rack b", func() (bool, string) {
		follower, leader, others := fetchedBy(x.Scrape(t), probe, rackB)
		return follower >= 200, fmt.Sprintf("broker %s served %v records as a follower, %v as the leader; the others %v", rackB, follower, leader, others)
	})
	// Steady state: the leader named rack b's broker the preferred read
	// replica of every partition; nothing more comes from the others.
	before := x.Scrape(t)
	time.Sleep(10 * time.Second)
	after := x.Scrape(t)
	f0, l0, o0 := fetchedBy(before, probe, rackB)
	f1, l1, o1 := fetchedBy(after, probe, rackB)
	t.Logf("in 10 s broker %s (rack b) served %v records as a follower and %v as the leader; the other brokers %v", rackB, f1-f0, l1-l0, o1-o0)
	if f1-f0 == 0 || o1-o0 != 0 {
		t.Errorf("in 10 s broker %s served %v records as a follower, the others %v: want every record from rack b", rackB, f1-f0, o1-o0)
	}
	f := drain(t, x, probe)
	assertCounters(t, f, probe, clean)
}
