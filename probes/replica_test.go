package probes_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// The replica reader on a fast fake cluster: a link that copies perfectly
// (identity policy, the probe's own topic) gives latency and no loss; a
// link that never copies counts only acknowledged records past the grace
// period as lost, and logs the reason once. The real MirrorMaker 2 pair is
// integration/replication_test.go.
func TestReplicaLinks(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	const grace = 2 * time.Second
	logger, logs := probetest.CaptureLogger()
	start := time.Now()
	run := probetest.StartLogged(t, fmt.Sprintf(`
probes:
  - name: mirror
    rate: 200
    lag_interval: 250ms
    replica: {kafka: {brokers: [%[1]s]}, topic_policy: identity, source_alias: here, target_alias: here}
  - name: never
    rate: 200
    lag_interval: 250ms
    replica: {kafka: {brokers: [%[1]s]}, topic: never-created, loss_grace_period: %[2]s}
`, brokers[0], grace), brokers, logger)
	mirror := []string{"probe", "mirror", "link", "here->here"}
	never := []string{"probe", "never", "link", "source->target"}
	var lostAt time.Duration
	probetest.Eventually(t, time.Minute, "records through the perfect link and loss on the broken one", func() (bool, string) {
		f := run.Gather(t)
		read := probetest.Value(t, f, "kafka_bench_replication_consumed_records_total", mirror...)
		lat := probetest.Value(t, f, "kafka_bench_replication_latency_seconds", mirror...)
		lost := probetest.Value(t, f, "kafka_bench_replication_records_lost_total", never...)
		if lost > 0 && lostAt == 0 {
			lostAt = time.Since(start)
		}
		return read >= 500 && lat == read && lost > 0, fmt.Sprintf("read %v, latencies %v, lost on the broken link %v", read, lat, lost)
	})
	if lostAt < grace {
		t.Errorf("records counted lost %v after the start, before the grace period (%v) could be over", lostAt, grace)
	}
	f := run.Gather(t)
	if v := probetest.Value(t, f, "kafka_bench_replication_records_lost_total", mirror...); v != 0 {
		t.Errorf("perfect link: lost %v", v)
	}
	if v := probetest.Value(t, f, "kafka_bench_replication_records_duplicated_total", mirror...); v != 0 {
		t.Errorf("perfect link: duplicated %v", v)
	}
	lost := probetest.Value(t, f, "kafka_bench_replication_records_lost_total", never...)
	acked := probetest.Value(t, f, "kafka_bench_produced_records_total", "probe", "never")
	if lost > acked {
		t.Errorf("broken link: lost %v > acknowledged %v", lost, acked)
	}
	if v := probetest.Value(t, f, "kafka_bench_replication_lag_records", never...); v <= 0 {
		t.Errorf("broken link: lag %v records, want the records acknowledged within the grace period", v)
	}
	if v := probetest.Value(t, f, "kafka_bench_replication_lag_seconds", never...); v <= 0 || v > (grace+time.Second).Seconds() {
		t.Errorf("broken link: lag %vs, want (0, grace + 1s]: older records were counted lost", v)
	}
	if _, ok := f.Value("kafka_bench_replication_lag_records", "probe", "never", "link", "here->here"); ok {
		t.Error("a probe has series of another probe's link")
	}
	// Loss keeps being counted; its reason is logged once.
	probetest.Eventually(t, time.Minute, "more loss", func() (bool, string) {
		v := probetest.Value(t, run.Gather(t), "kafka_bench_replication_records_lost_total", never...)
		return v > lost, fmt.Sprint(v)
	})
	if n := strings.Count(logs.String(), "were not read from the replica within the grace period"); n != 1 {
		t.Errorf("loss reason logged %d times, want once:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "the replica topic does not exist on the target cluster") {
		t.Errorf("the reason does not say the replica topic is missing:\n%s", logs)
	}
	run.Stop()
	if _, ok := run.Gather(t).Value("kafka_bench_replication_lag_records"); ok {
		t.Error("replication series left after the probes stopped")
	}
}
