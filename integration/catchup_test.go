package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// remoteFetchDelay is what the test's remote storage manager adds to each
// fetch of a remote segment.
const remoteFetchDelay = 2 * time.Second

// A broker of its own with tiered storage (KIP-405): Kafka's
// LocalTieredStorage behind a manager that sleeps remoteFetchDelay before
// each remote segment fetch. The probe's topic tiers 1 MiB segments and
// keeps 2 s of them locally. Its catch-up window from the start reads
// records that are only in the remote tier: it says so, checks every
// record, and its time to the first record exceeds that of a window 500 ms
// back (the local log) by at least the delay; the steady probe loses
// nothing meanwhile.
func TestCatchUpFromRemoteTier(t *testing.T) {
	kafkatest.Integration(t)
	parallel(t) // mostly waits: segments to roll and tier, reads to run
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	broker, err := kafkatest.TieredStorage(ctx, t.TempDir(), remoteFetchDelay, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	c := kafkatest.Start(t, kafkatest.Options{BrokerConfig: broker})
	const topic = "catchup-tiered"
	x := probetest.Start(t, fmt.Sprintf(`
probes:
  - name: tiered
    topic: %s
    rate: 1000
    record_size: 1024
    lag_interval: 500ms
    loss_grace_period: 5s
    create_topic:
      partitions: 1
      replication_factor: 1
      configs: {remote.storage.enable: "true", segment.bytes: "1048576", local.retention.ms: "2000", retention.ms: "3600000"}
    catch_up:
      - {from: start, interval: 25s, max_duration: 20s, max_bytes: 2097152, max_bytes_per_second: 0}
      - {from: 500ms, interval: 25s, max_duration: 20s, max_bytes: 262144, max_bytes_per_second: 0}
`, topic), c.Bootstrap())

	// Segments rolled, copied to the remote tier and deleted locally: the
	// local log starts past the first records.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	probetest.Eventually(t, 2*time.Minute, "the local log to start past 2 MiB of records", func() (bool, string) {
		local, err := adm.ListLocalLogStartOffsets(ctx, topic)
		if err != nil {
			return false, err.Error()
		}
		o, ok := local.Lookup(topic, 0)
		return ok && o.Err == nil && o.Offset > 3000, fmt.Sprintf("local log start %+v", o)
	})

	gauge := func(name, window string, labels ...string) (float64, bool) {
		return x.Gather(t).Value(name, append([]string{"probe", "tiered", "window", window}, labels...)...)
	}
	var remoteFirst, localFirst float64
	probetest.Eventually(t, 2*time.Minute, "a catch-up read of each window, the one from the start in the remote tier", func() (bool, string) {
		f := x.Gather(t)
		value := func(name, window string, labels ...string) float64 {
			v, _ := f.Value(name, append([]string{"probe", "tiered", "window", window}, labels...)...)
			return v
		}
		remote, remoteKnown := f.Value("kafka_bench_catchup_remote", "probe", "tiered", "window", "start")
		local, localKnown := f.Value("kafka_bench_catchup_remote", "probe", "tiered", "window", "500ms")
		remoteFirst, localFirst = value("kafka_bench_catchup_first_record_seconds", "start"), value("kafka_bench_catchup_first_record_seconds", "500ms")
		remoteRead := value("kafka_bench_catchup_read_records_total", "start", "tier", "remote")
		return remoteKnown && localKnown && remote == 1 && local == 0 && remoteRead > 0 && localFirst > 0,
			fmt.Sprintf("start: remote %v (known %v), %v records read from the remote tier, first record after %vs; 500ms: remote %v (known %v), first record after %vs",
				remote, remoteKnown, remoteRead, remoteFirst, local, localKnown, localFirst)
	})
	t.Logf("time to the first record: %.3fs from the remote tier, %.3fs from the local log", remoteFirst, localFirst)
	if remoteFirst-localFirst < remoteFetchDelay.Seconds() {
		t.Errorf("time to the first record from the remote tier %.3fs, from the local log %.3fs: want the remote one slower by the injected %v at least", remoteFirst, localFirst, remoteFetchDelay)
	}
	for _, w := range []string{"start", "500ms"} {
		for _, name := range []string{"kafka_bench_catchup_records_missing_total", "kafka_bench_catchup_records_out_of_order_total", "kafka_bench_catchup_records_duplicated_total"} {
			if v, _ := gauge(name, w); v != 0 {
				t.Errorf("%s{window=%q} = %v, want 0", name, w, v)
			}
		}
	}
	if v, ok := x.Gather(t).Value("kafka_bench_records_lost_total", "probe", "tiered"); !ok || v != 0 {
		t.Errorf("kafka_bench_records_lost_total = %v (exported %v), want 0", v, ok)
	}
}
