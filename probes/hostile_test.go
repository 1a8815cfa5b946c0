package probes_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// Garbage, truncated and foreign records written into the probe topic while
// the probe runs are counted as foreign, never panic, and disturb neither
// the loss, duplicate and reorder accounting nor the probe.
func TestHostileRecordsInTheProbeTopic(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	const probe, topic = "hostile", "kafka-bench-hostile"
	x := probetest.Start(t, `
probes:
  - name: hostile
    rate: 200
    record_size: 100
    lag_interval: 500ms
    loss_grace_period: 2s
    create_topic: {partitions: 3}
`, c.ListenAddrs())
	x.WaitReady(t, probe, 30*time.Second)

	random := make([]byte, 4096)
	_, _ = rand.Read(random)
	valid := make([]byte, 64)
	payload.Encode(valid, payload.Header{RunID: 1, Partition: 2, Seq: 3, Intended: time.Now().UnixNano()})
	badCRC := append([]byte(nil), valid...)
	badCRC[20] ^= 0xff
	foreign := []*kgo.Record{
		{Partition: 0, Value: nil},
		{Partition: 0, Value: []byte{}},
		{Partition: 1, Value: []byte(`{"order":42}`)},
		{Partition: 1, Value: valid[:payload.HeaderSize-1]}, // truncated header
		{Partition: 2, Value: badCRC},
		{Partition: 0, Value: valid}, // a header of partition 2 in partition 0
		{Partition: 2, Value: random},
		{Partition: 1, Value: make([]byte, 1<<20)},
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(2<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, foreign...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// A probe record of another run (another exporter on the same topic):
	// not foreign, and no loss or duplicate of this run.
	other := make([]byte, 100)
	payload.Encode(other, payload.Header{RunID: 99, Partition: 1, Seq: 1000, Intended: time.Now().UnixNano()})
	if err := cl.ProduceSync(ctx, &kgo.Record{Partition: 1, Value: other}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	probetest.Eventually(t, 30*time.Second, "the foreign records counted", func() (bool, string) {
		f := x.Gather(t)
		n := probetest.Value(t, f, "kafka_bench_records_foreign_total", "probe", probe)
		return n == float64(len(foreign)), fmt.Sprintf("foreign=%v, want %d", n, len(foreign))
	})
	time.Sleep(3 * time.Second) // past the loss grace period
	x.Probe(t, probe).StopProducing()
	probetest.Eventually(t, 30*time.Second, "the probe drained", func() (bool, string) {
		f := x.Gather(t)
		p := probetest.Value(t, f, "kafka_bench_produced_records_total", "probe", probe)
		c := probetest.Value(t, f, "kafka_bench_consumed_records_total", "probe", probe)
		return c == p+float64(len(foreign))+1, fmt.Sprintf("produced=%v consumed=%v", p, c)
	})
	f := x.Gather(t)
	for _, name := range []string{"kafka_bench_records_lost_total", "kafka_bench_records_duplicated_total", "kafka_bench_records_out_of_order_total"} {
		if v := probetest.Value(t, f, name, "probe", probe); v != 0 {
			t.Errorf("%s = %v after hostile records, want 0", name, v)
		}
	}
	if v := probetest.Value(t, f, "kafka_bench_records_foreign_total", "probe", probe); v != float64(len(foreign)) {
		t.Errorf("foreign = %v, want %d", v, len(foreign))
	}
}
