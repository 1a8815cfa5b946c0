package probes_test

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

func brokersObserved(f scrape.Families, name, probe string) []string {
	return f.ObservedLabelValues(name, "broker", "probe", probe)
}

const spreadConfig = `
probes:
  - name: spread
    rate: 300
    record_size: 100
    lag_interval: 500ms
    create_topic: {partitions: 1, leader_on_every_broker: true}
`

// The broker label of both latency histograms is the partition's leader:
// on a 3-broker kfake, the labels with observations are exactly the
// leaders of the topic's partitions.
func TestBrokerLabelIsTheLeader(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	x := probetest.Start(t, `
probes:
  - name: label
    rate: 300
    record_size: 100
    lag_interval: 500ms
    create_topic: {partitions: 6}
`, c.ListenAddrs())
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	probetest.Eventually(t, 30*time.Second, "latencies labelled with the leaders", func() (bool, string) {
		tds, err := kadm.NewClient(cl).ListTopics(t.Context(), "kafka-bench-label")
		if err != nil {
			return false, err.Error()
		}
		leaders := map[string]bool{}
		for _, pd := range tds["kafka-bench-label"].Partitions {
			leaders[strconv.Itoa(int(pd.Leader))] = true
		}
		var want []string
		for l := range leaders {
			want = append(want, l)
		}
		sort.Strings(want)
		f := x.Gather(t)
		p := brokersObserved(f, "kafka_bench_produce_latency_seconds", "label")
		e := brokersObserved(f, "kafka_bench_end_to_end_latency_seconds", "label")
		return len(want) > 0 && slices.Equal(p, want) && slices.Equal(e, want), fmt.Sprintf("leaders %v, produce latency brokers %v, end-to-end brokers %v", want, p, e)
	})
}

// Where the cluster refuses to add partitions or move replicas (here: a
// broker that does not support the requests), the probe logs a WARN and
// keeps measuring with the placement it has.
func TestLeaderOnEveryBrokerDenied(t *testing.T) {
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(37, -1) // CreatePartitions
	vs.SetMaxKeyVersion(45, -1) // AlterPartitionAssignments
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.MaxVersions(vs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	logger, logs := probetest.CaptureLogger()
	x := probetest.StartLogged(t, spreadConfig, c.ListenAddrs(), logger)
	probetest.Eventually(t, 90*time.Second, "records flowing after the refusal", func() (bool, string) {
		f := x.Gather(t)
		p := probetest.Value(t, f, "kafka_bench_produced_records_total", "probe", "spread")
		c := probetest.Value(t, f, "kafka_bench_consumed_records_total", "probe", "spread")
		return p > 0 && c > 0, fmt.Sprintf("produced=%v consumed=%v", p, c)
	})
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "could not put a leader on every broker") {
		t.Errorf("no WARN about the refused spreading:\n%s", logs.String())
	}
}

// A cluster that denies DescribeCluster (CLUSTER_AUTHORIZATION_FAILED) is
// asked once: the lag ticks list the brokers from the metadata after that,
// and the probe runs.
func TestDescribeClusterDeniedAskedOnce(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	leadEveryBroker(t, c, "kafka-bench-spread")
	var mu sync.Mutex
	asked := 0
	c.ControlKey(int16(kmsg.DescribeCluster), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		asked++
		mu.Unlock()
		resp := kreq.ResponseKind().(*kmsg.DescribeClusterResponse)
		resp.ErrorCode = kerr.ClusterAuthorizationFailed.Code
		return resp, nil, true
	})
	x := probetest.Start(t, spreadConfig, c.ListenAddrs())
	probetest.Eventually(t, 90*time.Second, "records flowing and lag ticks past", func() (bool, string) {
		f := x.Gather(t)
		p := probetest.Value(t, f, "kafka_bench_produced_records_total", "probe", "spread")
		return p > 600, fmt.Sprintf("produced=%v", p) // 2 s at 300 records/s: four lag ticks
	})
	mu.Lock()
	defer mu.Unlock()
	if asked != 1 {
		t.Errorf("DescribeCluster asked %d times, want once", asked)
	}
}

// leadEveryBroker creates topic with a partition led by each of c's three
// brokers, so that a probe's leader spreading finds it done. (kfake's
// ElectLeaders moves every leader to the next broker instead of the
// preferred one: a spread kfake placed on two brokers never covers three,
// and the probe waits its minute before it starts.)
func leadEveryBroker(t *testing.T, c *kfake.Cluster, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(t.Context(), 3, -1, nil, topic); err != nil {
		t.Fatal(err)
	}
	for p := range int32(3) {
		if err := c.MoveTopicPartition(topic, p, p); err != nil {
			t.Fatal(err)
		}
	}
}
