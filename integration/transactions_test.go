package integration

import (
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// A transactional probe on three Kafka 4.4.0 brokers, a fifth of its
// transactions aborted on purpose, read with read_committed: the consumer
// reads exactly the committed records (produced minus those of aborted
// transactions), none of an aborted transaction, none lost or twice; no
// transaction fails, and caught up is lag 0 although every transaction
// leaves a marker in each partition.
func TestTransactionsReadCommitted(t *testing.T) {
	parallel(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 3)
	ensureRunning(t, c)
	const probe = "txn"
	x := exportertest.Start(t, `
probes:
  - name: txn
    rate: 300
    record_size: 512
    lag_interval: 1s
    loss_grace_period: 10s
    create_topic: {partitions: 3, replication_factor: 3}
    producer: {transactional.id: it, transaction.duration.ms: 250, transaction.abort.ratio: 0.2}
    consumer: {isolation.level: read_committed}
`, c.Bootstrap())
	x.WaitReady(t, 60*time.Second)
	// While transactions are open, the last stable offsets trail the end
	// offsets: the stable lag is never above the lag, and below it at
	// some scrapes (records held back by an open transaction).
	var samples, heldBack int
	probetest.Eventually(t, 2*time.Minute, "50 transactions", func() (bool, string) {
		f := x.Scrape(t)
		if stable, ok := f.Value("kafka_bench_consumer_lag_stable_records", "probe", probe); ok {
			lag := value(t, f, "kafka_bench_consumer_lag_records", probe)
			samples++
			if stable > lag {
				t.Errorf("stable lag %v > lag %v", stable, lag)
			}
			if stable < lag {
				heldBack++
			}
		}
		n := value(t, f, "kafka_bench_transactions_total", probe, "outcome", "committed") + value(t, f, "kafka_bench_transactions_total", probe, "outcome", "aborted")
		return n >= 50, fmt.Sprintf("%v transactions ended", n)
	})
	t.Logf("stable lag below the lag at %d of %d scrapes", heldBack, samples)
	if heldBack == 0 {
		t.Errorf("stable lag below the lag at none of %d scrapes: no open transaction seen", samples)
	}
	drain(t, x, probe)
	time.Sleep(11 * time.Second) // past the loss grace of the last records
	f := x.Scrape(t)
	committed, aborted := value(t, f, "kafka_bench_transactions_total", probe, "outcome", "committed"), value(t, f, "kafka_bench_transactions_total", probe, "outcome", "aborted")
	produced, consumed := value(t, f, "kafka_bench_produced_records_total", probe), value(t, f, "kafka_bench_consumed_records_total", probe)
	abortedRecords := value(t, f, "kafka_bench_transaction_aborted_records_total", probe)
	logMean(t, f, "kafka_bench_transaction_end_latency_seconds", probe, "end", "commit")
	logMean(t, f, "kafka_bench_transaction_end_latency_seconds", probe, "end", "abort")
	logMean(t, f, "kafka_bench_end_to_end_latency_seconds", probe)
	t.Logf("%v transactions committed, %v aborted; %v records produced, %v of them aborted, %v consumed", committed, aborted, produced, abortedRecords, consumed)
	if total := committed + aborted; aborted < total/5-1 || aborted > total/5+1 {
		t.Errorf("%v of %v transactions aborted, want a fifth", aborted, total)
	}
	if abortedRecords == 0 || consumed != produced-abortedRecords {
		t.Errorf("consumed %v, want produced %v minus the %v records of aborted transactions", consumed, produced, abortedRecords)
	}
	assertCounters(t, f, probe, map[string]float64{
		"kafka_bench_transaction_aborted_records_read_total": 0,
		"kafka_bench_records_lost_total":                     0,
		"kafka_bench_records_duplicated_total":               0,
		"kafka_bench_produce_failed_total":                   0,
	})
	if failed := value(t, f, "kafka_bench_transactions_total", probe, "outcome", "failed"); failed != 0 {
		t.Errorf("%v transactions failed, want 0", failed)
	}
	// A new 4.4.0 cluster finalizes transaction.version 2 (KIP-890's
	// server-side defence): what these transactions ran under.
	if tv := f.Label("kafka_bench_cluster_info", "transaction_version"); tv != "2" {
		t.Errorf("kafka_bench_cluster_info transaction_version = %q, want 2", tv)
	}
}

// The exporter is SIGKILLed with a transaction open, and started again with
// the same configuration. The new process's producer has the same
// transactional.id, so its first InitProducerId fences the old one and
// aborts the transaction it left open: its read_committed consumer is not
// held back until transaction.timeout.ms (10 minutes here) ends it, and
// counts no record lost.
func TestTransactionalExporterKilled(t *testing.T) {
	parallelLong(t) // waits more than it computes; see waiting in main_test.go
	c := cluster(t, 1)
	ensureRunning(t, c)
	cfg := fmt.Sprintf(`
kafka:
  brokers: [%s]
probes:
  - name: txn-killed
    rate: 200
    record_size: 256
    lag_interval: 1s
    loss_grace_period: 10s
    create_topic: {partitions: 3, replication_factor: 1}
    producer: {transactional.id: it, transaction.duration.ms: 2000, transaction.timeout.ms: 600000}
    consumer: {isolation.level: read_committed}
`, c.Bootstrap()[0])
	const probe = "txn-killed"
	ended := func(url string) (committed, failed float64, f scrape.Families, err error) {
		if f, err = scrape.Get(url + "/metrics"); err != nil {
			return 0, 0, nil, err
		}
		return value(t, f, "kafka_bench_transactions_total", probe, "outcome", "committed"), value(t, f, "kafka_bench_transactions_total", probe, "outcome", "failed"), f, nil
	}
	url, proc, _ := startBinary(t, cfg)
	probetest.Eventually(t, 2*time.Minute, "two transactions committed", func() (bool, string) {
		committed, _, _, err := ended(url)
		if err != nil {
			return false, err.Error()
		}
		return committed >= 2, fmt.Sprintf("%v committed", committed)
	})
	// 2 s transactions: one is open but for the few milliseconds of its end.
	time.Sleep(500 * time.Millisecond)
	if err := proc.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = proc.Wait()
	t.Log("SIGKILLed the exporter with a transaction open")

	url, _, _ = startBinary(t, cfg)
	probetest.Eventually(t, 2*time.Minute, "the restarted exporter ready, its records read", func() (bool, string) {
		resp, err := http.Get(url + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		committed, _, f, err := ended(url)
		if err != nil {
			return false, err.Error()
		}
		consumed := value(t, f, "kafka_bench_consumed_records_total", probe)
		return resp.StatusCode == http.StatusOK && committed >= 3 && consumed > 0, fmt.Sprintf("ready %d, %v committed, %v consumed", resp.StatusCode, committed, consumed)
	})
	time.Sleep(12 * time.Second) // a loss grace and more
	_, failed, f, err := ended(url)
	if err != nil {
		t.Fatal(err)
	}
	if failed != 0 {
		t.Errorf("%v transactions of the restarted exporter failed, want 0", failed)
	}
	assertCounters(t, f, probe, map[string]float64{
		"kafka_bench_records_lost_total":                     0,
		"kafka_bench_transaction_aborted_records_read_total": 0,
	})
}
