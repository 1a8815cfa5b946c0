package probes

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// txn is the transaction state of a producer with transactional.id
// (ProducerPerformance's --transactional-id / --transaction-duration-ms):
// the produce loop begins a transaction before the first record due, ends
// it transaction.duration.ms later (or when it stops), committing it or,
// every 1/transaction.abort.ratio-th, aborting it. Records keep their
// intended send times, so the pause an end costs is in their latency.
//
// The records of a transaction are, per partition, the sequence numbers
// handed out between its begin and its end (only the produce loop assigns
// them). An aborted transaction's records are told to the trackers
// (seqTrackers.ended): neither lost nor expected, and an error if a
// read_committed consumer reads one; a transaction whose end failed or is
// unknown leaves its records as failed produces: never lost, whether or
// not they arrive.
type txn struct {
	duration time.Duration
	ratio    float64
	open     bool
	deadline time.Time
	begun    uint64   // transactions begun
	from     []uint64 // each partition's first sequence number in the open transaction
	// The open transaction's records acknowledged and failed, counted by
	// the promises (all run before the flush that precedes its end).
	acked, failed atomic.Uint64
}

func newTxn(cfg config.Producer) *txn {
	if !cfg.Transactional() {
		return nil
	}
	return &txn{duration: time.Duration(cfg.TransactionDurationMS) * time.Millisecond, ratio: cfg.TransactionAbortRatio}
}

// abortsAt says whether transaction k (from 0) is aborted on purpose: any
// n consecutive transactions hold n × ratio aborts, ± 1, spread evenly.
func abortsAt(k uint64, ratio float64) bool {
	return math.Floor(float64(k+1)*ratio) > math.Floor(float64(k)*ratio)
}

// txnBeginRetry is how long the produce loop waits after the client
// refused to begin a transaction (a fenced or failed producer id).
const txnBeginRetry = time.Second

// wait is pc.Wait, cut short at the open transaction's deadline: a
// transaction ends on time even when no record is due.
func (pr *producer) wait(ctx context.Context, pc *pacer.Pacer) (first, n uint64, err error) {
	if pr.txn == nil || !pr.txn.open {
		return pc.Wait(ctx, MaxBatch)
	}
	wctx, cancel := context.WithDeadline(ctx, pr.txn.deadline)
	defer cancel()
	return pc.Wait(wctx, MaxBatch)
}

// beginTxn opens a transaction if none is open before n records are
// handed out. When the client refuses, the records are counted failed
// (reason transaction) without being sent, and the loop pauses.
func (pr *producer) beginTxn(ctx context.Context, n uint64) bool {
	t := pr.txn
	if t == nil || t.open {
		return true
	}
	if err := pr.client.BeginTransaction(); err != nil {
		pr.sent.Add(n)
		pr.ev.Failed(ReasonTransaction, int(n))
		pr.errs.warn("txn:begin", "beginning a transaction failed; the records due are not sent", "skipped", n, "err", err)
		sleep(ctx, txnBeginRetry)
		return false
	}
	t.open, t.deadline = true, time.Now().Add(t.duration)
	t.acked.Store(0)
	t.failed.Store(0)
	t.from = append(t.from[:0], pr.seqs...)
	return true
}

// txnDue says the open transaction's time is up.
func (pr *producer) txnDue() bool {
	return pr.txn != nil && pr.txn.open && !time.Now().Before(pr.txn.deadline)
}

// endTxn flushes the open transaction's records (each acknowledgement is
// a promise as without transactions) and ends it, within the delivery
// timeout.
func (pr *producer) endTxn() {
	t := pr.txn
	if t == nil || !t.open {
		return
	}
	t.open = false
	onPurpose := abortsAt(t.begun, t.ratio)
	t.begun++
	ctx, cancel := context.WithTimeout(context.Background(), pr.maxBehind)
	defer cancel()
	abort, err := onPurpose, pr.client.Flush(ctx)
	if err != nil {
		// Records left in the buffer must not join the next transaction.
		abort = true
		_ = pr.client.AbortBufferedRecords(ctx)
	}
	if failed := t.failed.Load(); err == nil && !abort && failed > 0 {
		// As with Kafka's Java producer, whose commit a failed send
		// refuses (an abortable error): the transaction is aborted, not
		// committed without the records that failed. franz-go would
		// commit the others, and with none acknowledged end it without
		// a word to the broker and return nil.
		abort, err = true, fmt.Errorf("%d of its records failed to produce (%d acknowledged): aborted, not committed", failed, t.acked.Load())
	}
	try := kgo.TryCommit
	if abort {
		try = kgo.TryAbort
	}
	start := time.Now()
	endErr := pr.client.EndTransaction(ctx, try)
	// With no record acknowledged there was no transaction on the broker
	// to end: nothing to time.
	end := event.TxnEnd{Abort: abort, Took: time.Since(start), Timed: endErr == nil && t.acked.Load() > 0}
	if endErr != nil && !abort {
		// The documented recovery: abort. After a refused commit
		// (OperationNotAttempted, TransactionAbortable) the records are
		// aborted; after an unconfirmed one their fate is unknown.
		refused := errors.Is(endErr, kerr.OperationNotAttempted) || errors.Is(endErr, kerr.TransactionAbortable)
		if pr.client.EndTransaction(ctx, kgo.TryAbort) == nil && refused {
			abort = true
		}
	}
	if err == nil {
		err = endErr
	}
	now := pr.clk.now()
	var records uint64
	if abort || err != nil {
		for part, next := range pr.seqs {
			lo := uint64(0)
			if part < len(t.from) {
				lo = t.from[part]
			}
			if next > lo {
				records += next - lo
				pr.trackers.ended(pr.runID, int32(part), lo, next, abort, now)
				pr.ev.NotCommitted(pr.runID, int32(part), lo, next)
			}
		}
	}
	end.Outcome, end.Records = event.TxnCommitted, records
	switch {
	case err != nil:
		end.Outcome = event.TxnFailed
		pr.errs.warn("txn:end", "a transaction failed: aborted, or its end refused or unconfirmed", "records", records, "aborted", abort, "err", err)
	case abort:
		end.Outcome = event.TxnAborted
	}
	pr.ev.TxnEnded(end)
}
