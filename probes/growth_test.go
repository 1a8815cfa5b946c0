package probes

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testwait"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// growthProbe is a probe of topic g (3 partitions) on a kfake cluster, its
// registry and an admin client.
func growthProbe(t *testing.T, name string, edit func(*config.Probe)) (*Probe, *prometheus.Registry, *kadm.Client, []string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "g"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cfg := config.NewProbe(name)
	cfg.Topic = "g"
	if edit != nil {
		edit(&cfg)
	}
	cfg.Resolve()
	reg := prometheus.NewRegistry()
	p := New(cfg, Options{Sinks: []event.Sink{promsink.NewMetrics(reg)}})
	p.partitions.Store(3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return p, reg, kadm.NewClient(cl), c.ListenAddrs()
}

// addPartitions grows topic g to n partitions, as an operator would.
func addPartitions(t *testing.T, adm *kadm.Client, n int) {
	t.Helper()
	resp, err := adm.UpdatePartitions(context.Background(), n, "g")
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func endOffsets(t *testing.T, adm *kadm.Client) map[int32]int64 {
	t.Helper()
	ends, err := adm.ListEndOffsets(context.Background(), "g")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}

// Partitions added while the producer runs: it writes to them only once its
// own client knows them, so no record fails ("invalid record partitioning
// choice", reason other), and it does so promptly, without waiting for
// metadata.max.age.
func TestProducerFollowsAddedPartitions(t *testing.T) {
	p, reg, adm, brokers := growthProbe(t, "grow-producer", nil)
	cl, err := kclient.New(config.Cluster{Kafka: config.Kafka{Brokers: brokers}}, kclient.Options{Probing: true}, kclient.ProducerOpts(p.cfg)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	pr := newProducer(p.runDeps, cl, 0)
	send := func() {
		now := p.clk.now()
		pr.send(now, now)
	}
	for range 6 { // the client has loaded the topic's 3 partitions
		send()
	}
	if err := cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	addPartitions(t, adm, 6)
	p.partitions.Store(6) // what the watcher does when it sees them
	testwait.Until(t, 15*time.Second, 100*time.Millisecond, "records in every added partition", func() (bool, string) {
		for range 6 {
			send()
		}
		_ = cl.Flush(context.Background())
		ends := endOffsets(t, adm)
		return ends[3] > 0 && ends[4] > 0 && ends[5] > 0, fmt.Sprintf("end offsets %v", ends)
	})
	f := scrape.MustGather(t, reg)
	for _, reason := range FailureReasons {
		if n := mustValue(t, f, "kafka_bench_produce_failed_total", "probe", "grow-producer", "reason", reason); n != 0 {
			t.Errorf("%v records failed with reason %s after partitions were added", n, reason)
		}
	}
}

// Partitions added while the consumer runs are found promptly and read from
// their start, even with auto.offset.reset latest: the records written there
// before the consumer saw them are the probe's own, not a backlog to skip.
func TestConsumerReadsAddedPartitionsFromTheirStart(t *testing.T) {
	p, _, adm, brokers := growthProbe(t, "grow-consumer", func(cfg *config.Probe) {
		cfg.Consumer.AutoOffsetReset = "latest"
	})
	c := &consumer{runDeps: p.runDeps, interval: 100 * time.Millisecond}
	cl, err := kclient.New(config.Cluster{Kafka: config.Kafka{Brokers: brokers}}, kclient.Options{Probing: true}, kclient.ConsumerOpts(p.cfg, 0, kclient.GroupCallbacks{Revoked: c.onRevoked})...)
	if err != nil {
		t.Fatal(err)
	}
	c.client = cl
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.run(ctx)
	}()
	defer func() {
		cancel()
		<-done
		cl.Close()
	}()

	w, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic("g"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	write := func(partition int32) {
		v := header(payload.Header{RunID: p.runID, Partition: partition, Intended: p.clk.now().UnixNano()}, 64)
		if err := w.ProduceSync(context.Background(), &kgo.Record{Partition: partition, Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	testwait.Until(t, 15*time.Second, 100*time.Millisecond, "the consumer reading partition 0", func() (bool, string) {
		write(0)
		_, ok := p.positions.get(0)
		return ok, "no record of partition 0 read yet"
	})

	addPartitions(t, adm, 6)
	w.ForceMetadataRefresh()
	testwait.Until(t, 10*time.Second, 100*time.Millisecond, "the writer to know partition 5", func() (bool, string) {
		leader, _, err := w.PartitionLeader("g", 5)
		return err == nil && leader >= 0, fmt.Sprintf("leader %d, err %v", leader, err)
	})
	write(5) // before the consumer knows partition 5
	p.partitions.Store(6)
	testwait.Until(t, 15*time.Second, 100*time.Millisecond, "the record of partition 5 read", func() (bool, string) {
		pos, ok := p.positions.get(5)
		return ok && pos == 1, fmt.Sprintf("position of partition 5: %d, %v", pos, ok)
	})
}
