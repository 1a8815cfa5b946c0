package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// For 15 s the probe topic refuses writes: its max.message.bytes is lowered
// below the size of a record batch, then restored, with Kafka's own dynamic
// topic configs. (Raising min.insync.replicas above the broker count
// refuses nothing in Kafka 4, which caps its effect at the replication
// factor.) The refused records are counted as failed, by reason, and none
// is counted lost, although the grace period (5 s) is shorter than the
// refusal and the consumer reads past them.
func TestTopicRefusalIsFailureNotLoss(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	const probe, topic, rate, refusal = "refused", "kafka-bench-refused", 200.0, 15 * time.Second
	x := exportertest.Start(t, `
probes:
  - name: refused
    rate: 200
    record_size: 200
    lag_interval: 1s
    loss_grace_period: 5s
    create_topic: {partitions: 3, replication_factor: 1}
    producer: {acks: all, request.timeout.ms: 2000, delivery.timeout.ms: 5000}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	waitProducing(t, x, probe, rate)

	adm := admin(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	failed := func(f map[string]float64) (n float64) {
		for _, v := range f {
			n += v
		}
		return n
	}

	before := failed(failuresByReason(x.Scrape(t), probe))
	// A batch of one 200 B record is larger than 100 B.
	alterTopicConfig(t, ctx, adm, topic, kadm.SetConfig, "max.message.bytes", "100")
	time.Sleep(refusal) // the fault lasts this long
	alterTopicConfig(t, ctx, adm, topic, kadm.DeleteConfig, "max.message.bytes", "")
	probetest.Eventually(t, time.Minute, "the refused records counted as failed", func() (bool, string) {
		now := failuresByReason(x.Scrape(t), probe)
		return failed(now) > before, fmt.Sprintf("failures by reason: %v (before the refusal: %v)", now, before)
	})
	waitProducing(t, x, probe, rate)

	f := drain(t, x, probe)
	reasons := failuresByReason(f, probe)
	t.Logf("failures by reason: %v, %v of them during the refusal or after", reasons, failed(reasons)-before)
	for r := range reasons {
		if r != "message_too_large" && r != "timeout" {
			t.Errorf("failure reason %q, want message_too_large (or timeout)", r)
		}
	}
	// Loss would be declared 5 s after the consumer read past a gap: watch
	// for two grace periods after the drain.
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		if lost := value(t, x.Scrape(t), "kafka_bench_records_lost_total", probe); lost != 0 {
			t.Fatalf("%v records counted lost; a refused write is a failure, never a loss", lost)
		}
		time.Sleep(time.Second)
	}
}

// waitProducing waits until n more records of probe are acknowledged.
func waitProducing(t *testing.T, x *exportertest.Exporter, probe string, n float64) {
	t.Helper()
	from := value(t, x.Scrape(t), "kafka_bench_produced_records_total", probe)
	probetest.Eventually(t, time.Minute, fmt.Sprintf("%v more records of %s acknowledged", n, probe), func() (bool, string) {
		more := value(t, x.Scrape(t), "kafka_bench_produced_records_total", probe) - from
		return more >= n, fmt.Sprintf("%v more acknowledged", more)
	})
}
