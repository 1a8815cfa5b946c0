package probes_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// A transactional probe, a quarter of its transactions aborted, with a
// read_committed catch-up window from the log start: the reader skips the
// aborted records, and the gaps they leave are not missing; every record
// it reads is checked, served by the local log.
func TestCatchUpSkipsAbortedTransactions(t *testing.T) {
	const n = 2000
	x := probetest.StartWith(t, `
probes:
  - name: cu
    rate: 1000
    lag_interval: 500ms
    loss_grace_period: 1s
    create_topic: {partitions: 2}
    producer:
      transactional.id: canary
      transaction.duration.ms: 100
      transaction.abort.ratio: 0.25
      transaction.timeout.ms: 1000
      delivery.timeout.ms: 1000
      request.timeout.ms: 500
      linger.ms: 0
    consumer:
      isolation.level: read_committed
    catch_up:
      - {from: start, interval: 2s, max_duration: 1s, max_bytes_per_second: 0}
`, probetest.Kfake(t, 1), probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	value := func(name string, labels ...string) float64 {
		return probetest.Value(t, x.Gather(t), name, append([]string{"probe", "cu", "window", "start"}, labels...)...)
	}
	probetest.Eventually(t, time.Minute, "a catch-up read of the whole window, past the grace period", func() (bool, string) {
		f := x.Gather(t)
		produced, _ := f.Value("kafka_bench_produced_records_total", "probe", "cu")
		aborted, _ := f.Value("kafka_bench_transaction_aborted_records_total", "probe", "cu")
		runs, _ := f.Value("kafka_bench_catchup_runs_total", "probe", "cu", "window", "start", "end", "end_offsets")
		read, _ := f.Value("kafka_bench_catchup_read_records_total", "probe", "cu", "window", "start", "tier", "local")
		// Reads past the time after which a gap counts (2 ×
		// delivery.timeout.ms + transaction.timeout.ms + the loss grace
		// period: 4 s) after the last record (2 s in).
		return produced == n && runs >= 6 && read >= 6*(produced-aborted), fmt.Sprintf("produced %v, aborted %v, %v reads to the end offsets, %v records read", produced, aborted, runs, read)
	})
	if aborted := probetest.Value(t, x.Gather(t), "kafka_bench_transaction_aborted_records_total", "probe", "cu"); aborted == 0 {
		t.Fatal("no transaction aborted")
	}
	for _, name := range []string{"kafka_bench_catchup_records_missing_total", "kafka_bench_catchup_records_out_of_order_total",
		"kafka_bench_catchup_records_duplicated_total", "kafka_bench_catchup_records_unchecked_total"} {
		if v := value(name); v != 0 {
			t.Errorf("%s = %v, want 0", name, v)
		}
	}
	if v := value("kafka_bench_catchup_remote"); v != 0 {
		t.Errorf("kafka_bench_catchup_remote = %v, want 0 (a local log)", v)
	}
	if v := value("kafka_bench_catchup_records_per_second"); v <= 0 {
		t.Errorf("kafka_bench_catchup_records_per_second = %v, want > 0", v)
	}
}
