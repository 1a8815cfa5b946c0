package promsink

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// Label values of the transaction families: fixed sets.
var (
	// TransactionOutcomes are how a transaction of the probe ended
	// (outcome): committed, aborted on purpose (transaction.abort.ratio), or
	// failed (a record of it failed to produce, so it was aborted as Kafka's
	// Java producer does, or its end was refused or unconfirmed; its records
	// count neither as lost nor as aborted).
	TransactionOutcomes = []string{event.TxnCommitted, event.TxnAborted, event.TxnFailed}
	// TransactionEnds are the ends the probe asks for (end).
	TransactionEnds = []string{"commit", "abort"}
)

// txnMetrics are the families of a probe with producer.transactional.id.
// Their series exist only for such probes.
type txnMetrics struct {
	transactions   *prometheus.CounterVec
	endLatency     *prometheus.HistogramVec
	abortedRecords *prometheus.CounterVec
	abortedRead    *prometheus.CounterVec
}

func newTxnMetrics(reg prometheus.Registerer) *txnMetrics {
	m := &txnMetrics{
		transactions:   family.Counter("kafka_bench_transactions_total", "Transactions of the probe's producer, by outcome: committed, aborted (on purpose, transaction.abort.ratio) or failed (a record of it failed to produce, so it was aborted, or the end was refused or its outcome unknown).", "outcome"),
		endLatency:     family.Histogram("kafka_bench_transaction_end_latency_seconds", "Duration of ending a transaction (EndTxn, after its records were acknowledged), by end: commit or abort.", "end"),
		abortedRecords: family.Counter("kafka_bench_transaction_aborted_records_total", "Probe records written in transactions that were aborted; none of them is expected by a read_committed consumer, none counts as lost."),
		abortedRead:    family.Counter("kafka_bench_transaction_aborted_records_read_total", "Probe records of aborted transactions that the probe's consumer read with isolation.level read_committed: must stay 0."),
	}
	family.Register(reg, m.collectors()...)
	return m
}

func (m *txnMetrics) collectors() []family.Vec {
	return []family.Vec{m.transactions, m.endLatency, m.abortedRecords, m.abortedRead}
}

func (m *txnMetrics) deleteProbe(name string) { family.DeleteProbe(name, m.collectors()...) }

// txnProbe are one transactional probe's children.
type txnProbe struct {
	committed, aborted, failed prometheus.Counter
	commitLatency              prometheus.Observer
	abortLatency               prometheus.Observer
	abortedRecords             prometheus.Counter
	abortedRead                prometheus.Counter
}

// forProbe creates every series of a transactional probe at zero.
func (m *txnMetrics) forProbe(name string) *txnProbe {
	return &txnProbe{
		committed:      m.transactions.WithLabelValues(name, TransactionOutcomes[0]),
		aborted:        m.transactions.WithLabelValues(name, TransactionOutcomes[1]),
		failed:         m.transactions.WithLabelValues(name, TransactionOutcomes[2]),
		commitLatency:  m.endLatency.WithLabelValues(name, TransactionEnds[0]),
		abortLatency:   m.endLatency.WithLabelValues(name, TransactionEnds[1]),
		abortedRecords: m.abortedRecords.WithLabelValues(name),
		abortedRead:    m.abortedRead.WithLabelValues(name),
	}
}

// OnTxnEnded counts a transaction by outcome and times its end.
func (p *probe) OnTxnEnded(e event.TxnEnd) {
	t := p.txn
	if t == nil {
		return
	}
	if e.Timed {
		if e.Abort {
			t.abortLatency.Observe(e.Took.Seconds())
		} else {
			t.commitLatency.Observe(e.Took.Seconds())
		}
	}
	switch e.Outcome {
	case event.TxnFailed:
		t.failed.Inc()
	case event.TxnAborted:
		t.aborted.Inc()
		t.abortedRecords.Add(float64(e.Records))
	default:
		t.committed.Inc()
	}
}
