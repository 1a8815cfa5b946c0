package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// TestCompressionLikeProducerPerformance: with lz4, 25,000 x 1 KiB records
// of ours (random_letters) take within 10 % of the bytes that Kafka's own
// ProducerPerformance (fresh random A-Z in every record) takes in the
// broker's log, and random_bytes stays at >= 95 % of the raw bytes.
func TestCompressionLikeProducerPerformance(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	// 25,000 records make many full batches per partition, so bytes per
	// record are as well-determined as with more (the ratio, not a rate).
	const n, size, partitions = 25_000, 1024, 3
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	adm := admin(t, c)
	var topics []string
	defer func() { _, _ = adm.DeleteTopics(context.Background(), topics...) }()

	bn, err := spec.Parse(fmt.Appendf(nil, `
num_records: %d
rate: 0
delete_topics: false
defaults:
  record_size: %d
  create_topic: {partitions: %d, replication_factor: 1}
  producer: {acks: "1", compression.type: lz4}
  consumer: {enabled: false}
matrix:
  payload.kind: [random_letters, random_bytes]
`, n, size, partitions))
	if err != nil {
		t.Fatal(err)
	}
	bn.Kafka.Kafka.Brokers = c.Bootstrap()
	reg := prometheus.NewRegistry()
	r := &run.Runner{Sinks: []event.Sink{promsink.NewMetrics(reg)}, SweepID: fmt.Sprint(time.Now().UnixNano())}
	results, err := r.Run(ctx, bn)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]string{} // payload kind -> topic
	for _, res := range results {
		topics = append(topics, res.Topic)
		if res.Failed() {
			t.Fatalf("scenario %s: %s", res.Name(), res.Err)
		}
		ours[res.Params[0]] = res.Topic
	}

	pp := "pp-lz4-" + r.SweepID
	createTopic(t, ctx, adm, pp, partitions, 1)
	out, err := kafkatest.RunClass(ctx, "org.apache.kafka.tools.ProducerPerformance", "--topic", pp,
		"--num-records", fmt.Sprint(n), "--record-size", fmt.Sprint(size), "--throughput", "-1",
		"--producer-props", "bootstrap.servers="+strings.Join(c.Bootstrap(), ","), "acks=1", "compression.type=lz4")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, fmt.Sprintf("%d records sent", n)) {
		t.Fatalf("ProducerPerformance did not send %d records:\n%s", n, out)
	}

	sizes := logSizes(ctx, t, adm)
	raw := float64(n * size)
	letters, bytes, theirs := float64(sizes[ours["random_letters"]]), float64(sizes[ours["random_bytes"]]), float64(sizes[pp])
	t.Logf("lz4, %d x %d B: random_letters %.0f B (%.3f of raw), random_bytes %.0f B (%.3f), ProducerPerformance %.0f B (%.3f)",
		n, size, letters, letters/raw, bytes, bytes/raw, theirs, theirs/raw)
	if theirs == 0 || !within(letters, theirs, 0.10) {
		t.Errorf("random_letters stored %.0f B, ProducerPerformance %.0f B: want within 10 %%", letters, theirs)
	}
	if bytes < 0.95*raw {
		t.Errorf("random_bytes stored %.0f B, want >= 95 %% of the %.0f raw bytes", bytes, raw)
	}
}

// logSizes returns the bytes each topic takes in the brokers' log dirs.
func logSizes(ctx context.Context, t *testing.T, adm *kadm.Client) map[string]int64 {
	t.Helper()
	dirs, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	dirs.Each(func(d kadm.DescribedLogDir) {
		for topic, parts := range d.Topics {
			for _, p := range parts {
				sizes[topic] += p.Size
			}
		}
	})
	return sizes
}
