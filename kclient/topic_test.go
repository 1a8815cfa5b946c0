package kclient

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// The topic helpers on kfake: a topic is created once with its partitions
// and configs, created again without error, described, and waited for
// until every partition is led; a missing topic is UnknownTopicOrPartition.
func TestTopicHelpers(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, _, adm := testClient(t, c.ListenAddrs())

	if _, err := DescribeTopic(ctx, adm, "missing"); !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("describing a missing topic: %v, want UNKNOWN_TOPIC_OR_PARTITION", err)
	}
	ct := config.CreateTopic{Partitions: 4, ReplicationFactor: 1, Configs: map[string]string{"retention.ms": "60000"}}
	for i, want := range []bool{true, false} {
		created, err := CreateTopic(ctx, adm, "t", ct)
		if err != nil || created != want {
			t.Fatalf("CreateTopic call %d: created %v, err %v; want created %v", i+1, created, err, want)
		}
	}
	td, err := WaitTopic(ctx, adm, "t", func(td kadm.TopicDetail) bool { return len(td.Partitions) == 4 && Led(td) })
	if err != nil {
		t.Fatal(err)
	}
	if !Led(td) || len(td.Partitions) != 4 {
		t.Fatalf("WaitTopic returned %d partitions, led %v", len(td.Partitions), Led(td))
	}
	rcs, err := adm.DescribeTopicConfigs(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	var retention string
	for _, c := range rc.Configs {
		if c.Key == "retention.ms" && c.Value != nil {
			retention = *c.Value
		}
	}
	if retention != "60000" {
		t.Errorf("retention.ms = %q, want the created topic's 60000", retention)
	}
	td.Partitions[0] = kadm.PartitionDetail{Partition: 0, Leader: -1}
	if Led(td) {
		t.Error("Led with a partition without a leader")
	}
}

// testClient is a client of brokers and its admin, closed when the test
// ends, and a context that bounds the test.
func testClient(t *testing.T, brokers []string, extra ...kgo.Opt) (context.Context, *kgo.Client, *kadm.Client) {
	t.Helper()
	cl, err := New(config.Cluster{Kafka: config.Kafka{Brokers: brokers, ClientID: "t"}}, Options{}, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx, cl, kadm.NewClient(cl)
}
