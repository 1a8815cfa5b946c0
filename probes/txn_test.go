package probes_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

func txnConfig(isolation string) string {
	return fmt.Sprintf(`
probes:
  - name: tx
    rate: 1000
    lag_interval: 500ms
    loss_grace_period: 1s
    create_topic: {partitions: 3}
    producer:
      transactional.id: canary
      transaction.duration.ms: 100
      transaction.abort.ratio: 0.25
    consumer:
      isolation.level: %s
`, isolation)
}

// A transactional probe on kfake, a quarter of its transactions aborted
// on purpose. With read_committed the consumer reads exactly the committed
// records: every aborted one is missing, none is lost or read; with
// read_uncommitted it reads every record and none counts as an aborted
// read. Either way each transaction is committed or aborted, none fails.
func TestTransactionalProbe(t *testing.T) {
	const n = 3000
	for _, isolation := range []string{"read_committed", "read_uncommitted"} {
		t.Run(isolation, func(t *testing.T) {
			x := probetest.StartWith(t, txnConfig(isolation), probetest.Kfake(t, 1),
				probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
			value := func(name string, labels ...string) float64 {
				return probetest.Value(t, x.Gather(t), name, append([]string{"probe", "tx"}, labels...)...)
			}
			// read_committed: the lag to the last stable offsets is
			// exported, and never above the lag to the end offsets.
			stableChecked := 0
			checkStable := func(f scrape.Families) {
				stable, ok := f.Value("kafka_bench_consumer_lag_stable_records", "probe", "tx")
				if isolation == "read_uncommitted" {
					if ok {
						t.Errorf("kafka_bench_consumer_lag_stable_records = %v with read_uncommitted, want no series", stable)
					}
					return
				}
				lag, lagOK := f.Value("kafka_bench_consumer_lag_records", "probe", "tx")
				if ok && lagOK {
					stableChecked++
					if stable > lag {
						t.Errorf("stable lag %v > lag %v", stable, lag)
					}
				}
			}
			probetest.Eventually(t, time.Minute, "every record read", func() (bool, string) {
				checkStable(x.Gather(t))
				produced, aborted, consumed := value("kafka_bench_produced_records_total"), value("kafka_bench_transaction_aborted_records_total"), value("kafka_bench_consumed_records_total")
				want := produced - aborted
				if isolation == "read_uncommitted" {
					want = produced
				}
				return produced == n && consumed == want, fmt.Sprintf("produced %v, aborted %v, consumed %v", produced, aborted, consumed)
			})
			time.Sleep(2 * time.Second) // past the loss grace
			committed, aborted := value("kafka_bench_transactions_total", "outcome", "committed"), value("kafka_bench_transactions_total", "outcome", "aborted")
			t.Logf("%v transactions committed, %v aborted, %v records aborted", committed, aborted, value("kafka_bench_transaction_aborted_records_total"))
			if total := committed + aborted; total < 10 || aborted < total/4-1 || aborted > total/4+1 {
				t.Errorf("%v committed, %v aborted: want a quarter of at least 10 aborted", committed, aborted)
			}
			for _, c := range []struct {
				name   string
				labels []string
			}{
				{"kafka_bench_transactions_total", []string{"outcome", "failed"}},
				{"kafka_bench_transaction_aborted_records_read_total", nil},
				{"kafka_bench_records_lost_total", nil},
				{"kafka_bench_records_duplicated_total", nil},
				{"kafka_bench_produce_failed_total", []string{"reason", "transaction"}},
			} {
				if got := value(c.name, c.labels...); got != 0 {
					t.Errorf("%s%v = %v, want 0", c.name, c.labels, got)
				}
			}
			if value("kafka_bench_transaction_aborted_records_total") == 0 {
				t.Error("no record counted aborted")
			}
			// The transaction markers past the last record are read
			// past too: caught up is lag 0, for the consumer and the
			// group's commits alike.
			probetest.Eventually(t, 30*time.Second, "lag 0", func() (bool, string) {
				f := x.Gather(t)
				checkStable(f)
				lag, group := probetest.Value(t, f, "kafka_bench_consumer_lag_records", "probe", "tx"), probetest.Value(t, f, "kafka_bench_consumer_group_lag_records", "probe", "tx")
				stable, _ := f.Value("kafka_bench_consumer_lag_stable_records", "probe", "tx")
				return lag == 0 && group == 0 && stable == 0, fmt.Sprintf("consumer lag %v (stable %v), group lag %v records", lag, stable, group)
			})
			if isolation == "read_committed" && stableChecked == 0 {
				t.Error("kafka_bench_consumer_lag_stable_records never exported with read_committed")
			}
		})
	}
}

// A transactional producer feeding a share group with consumer.isolation.level
// read_committed (the group's share.isolation.level): the members accept
// exactly the committed records, none lost.
func TestTransactionalShareProbe(t *testing.T) {
	const n = 2000
	x := probetest.StartWith(t, `
probes:
  - name: txs
    rate: 1000
    lag_interval: 500ms
    loss_grace_period: 1s
    create_topic: {partitions: 3}
    producer: {transactional.id: canary, transaction.duration.ms: 100, transaction.abort.ratio: 0.25}
    consumer: {kind: share, consumers: 2, fetch.max.wait.ms: 100, isolation.level: read_committed}
`, probetest.Kfake(t, 1), probes.Options{Logger: probetest.Logger(), Bench: probes.BenchOptions{NumRecords: n}})
	value := func(name string, labels ...string) float64 {
		return probetest.Value(t, x.Gather(t), name, append([]string{"probe", "txs"}, labels...)...)
	}
	probetest.Eventually(t, time.Minute, "every committed record accepted", func() (bool, string) {
		produced, aborted, accepted := value("kafka_bench_produced_records_total"), value("kafka_bench_transaction_aborted_records_total"), value("kafka_bench_share_acks_total", "outcome", "accept")
		return produced == n && aborted > 0 && accepted == produced-aborted, fmt.Sprintf("produced %v, aborted %v, accepted %v", produced, aborted, accepted)
	})
	time.Sleep(2 * time.Second) // past the loss grace
	if lost := value("kafka_bench_records_lost_total"); lost != 0 {
		t.Errorf("lost %v, want 0", lost)
	}
}

// A transaction in which records failed to produce is not committed: with
// every produce denied (TOPIC_AUTHORIZATION_FAILED, which does not fail the
// producer id, so franz-go ends a transaction with nothing acknowledged
// without a word to the broker), or with one broker's partition denied
// while the others are acknowledged, as Kafka's Java producer refuses such
// a commit. Each counts as failed, and no commit is timed.
func TestTransactionWithFailedRecordsNotCommitted(t *testing.T) {
	for name, denied := range map[string]func(node int32) bool{
		"every record":    func(int32) bool { return true },
		"one partition's": func(node int32) bool { return node == 0 },
	} {
		t.Run(name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(3))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			leadEveryBroker(t, c, "kafka-bench-tx") // partition p on broker p
			c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				req := kreq.(*kmsg.ProduceRequest)
				if req.TransactionID == nil || !denied(c.CurrentNode()) {
					return nil, nil, false
				}
				resp := req.ResponseKind().(*kmsg.ProduceResponse)
				for _, rt := range req.Topics {
					st := kmsg.NewProduceResponseTopic()
					st.Topic, st.TopicID = rt.Topic, rt.TopicID
					for _, rp := range rt.Partitions {
						sp := kmsg.NewProduceResponseTopicPartition()
						sp.Partition = rp.Partition
						sp.ErrorCode = kerr.TopicAuthorizationFailed.Code
						st.Partitions = append(st.Partitions, sp)
					}
					resp.Topics = append(resp.Topics, st)
				}
				return resp, nil, true
			})
			x := probetest.StartWith(t, `
probes:
  - name: tx
    rate: 300
    lag_interval: 500ms
    create_topic: {partitions: 3}
    producer: {transactional.id: canary, transaction.duration.ms: 100}
    consumer: {enabled: false}
`, c.ListenAddrs(), probes.Options{Logger: probetest.Logger()})
			value := func(f scrape.Families, name string, labels ...string) float64 {
				return probetest.Value(t, f, name, append([]string{"probe", "tx"}, labels...)...)
			}
			probetest.Eventually(t, time.Minute, "transactions ended with records denied", func() (bool, string) {
				f := x.Gather(t)
				ended, denied := value(f, "kafka_bench_transactions_total"), value(f, "kafka_bench_produce_failed_total", "reason", "auth")
				return ended >= 5 && denied > 0, fmt.Sprintf("%v transactions ended, %v records denied", ended, denied)
			})
			f := x.Gather(t)
			if committed, failed := value(f, "kafka_bench_transactions_total", "outcome", "committed"), value(f, "kafka_bench_transactions_total", "outcome", "failed"); committed != 0 || failed < 5 {
				t.Errorf("%v transactions counted committed, %v failed; want none committed (records of each failed), every one failed", committed, failed)
			}
			if n := value(f, "kafka_bench_transaction_end_latency_seconds", "end", "commit"); n != 0 {
				t.Errorf("%v commits timed, want 0", n)
			}
			if produced := value(f, "kafka_bench_produced_records_total"); name == "one partition's" && produced == 0 {
				t.Error("no record acknowledged on the other brokers")
			}
		})
	}
}
