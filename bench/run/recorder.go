package run

import (
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// Recorder keeps one scenario's measurements: exact latency histograms,
// counts, bytes and the time span of the measured records, plus a window
// for the progress lines. The first warmup records of each side are counted
// but not measured. It is safe for concurrent use: the producer's promises
// and every consumer call it at once.
type Recorder struct {
	warmup int64
	// allRecords counts every record read, not only this run's: a
	// consume-only scenario reads records some other run produced.
	allRecords bool
	// consumeLimit, when > 0, ignores records read after that many (warm-up
	// included): a consume-only run measures exactly num_records, as
	// ConsumerPerformance --messages does, even when the topic holds more.
	consumeLimit int64
	warmedUp     chan struct{}

	pmu    sync.Mutex
	acked  int64 // including warm-up
	failed int64 // including warm-up
	// skipped are failed records the producer never sent (behind
	// schedule): never in flight, so they do not end the produce phase.
	skipped int64
	// notCommitted are acknowledged records of transactions that were
	// aborted or did not end: acknowledged, yet not to be read.
	notCommitted int64
	produce      side
	// acked and seen (in acct) are kept under pmu and cmu respectively,
	// and added to through ackedAdd and seenAdd.
	acct              *result.Accounting
	ackedAdd, seenAdd *result.Adder

	cmu      sync.Mutex
	consumed int64 // including warm-up
	// rebalances holds the durations of the group's rebalances (under cmu).
	rebalances *hdrhistogram.Histogram
	warmEnd    time.Time
	consume    side
}

// The recorder is a sink of the probe's events (package event): it hears
// of each acknowledged, failed and consumed record, the same events the
// metrics count, so the bench never reads them back out of a registry.
var (
	_ event.Sink               = (*Recorder)(nil)
	_ event.ProducedHook       = (*Recorder)(nil)
	_ event.FailedHook         = (*Recorder)(nil)
	_ event.ConsumedHook       = (*Recorder)(nil)
	_ event.ShareDeliveredHook = (*Recorder)(nil)
	_ event.NotCommittedHook   = (*Recorder)(nil)
	_ event.RebalanceHook      = (*Recorder)(nil)
)

// ForProbe implements event.Sink: the recorder keeps one probe's records.
func (r *Recorder) ForProbe(config.Probe) event.Hook { return r }

// OnProduced implements event.ProducedHook.
func (r *Recorder) OnProduced(e event.Produced) { r.Produced(e.Now, e.Latency, e.Bytes, e.ID) }

// OnFailed implements event.FailedHook.
func (r *Recorder) OnFailed(reason string, n int) { r.Failed(reason, n) }

// OnConsumed implements event.ConsumedHook.
func (r *Recorder) OnConsumed(e event.Consumed) { r.Consumed(e.Now, e.EndToEnd, e.Bytes, e.Own, e.ID) }

// OnShareDelivered implements event.ShareDeliveredHook: a record is read
// once, at its first delivery (another run's or a foreign one at the
// broker's first).
func (r *Recorder) OnShareDelivered(d event.ShareDelivery) {
	switch {
	case d.Own && d.First:
		r.Consumed(d.Now, d.Latency, d.Bytes, true, d.ID)
	case !d.Own && d.DeliveryCount <= 1:
		r.Consumed(d.Now, 0, d.Bytes, false, d.ID)
	}
}

// OnNotCommitted implements event.NotCommittedHook.
func (r *Recorder) OnNotCommitted(run uint64, partition int32, lo, hi uint64) {
	r.NotCommitted(run, partition, lo, hi)
}

// OnRebalance implements event.RebalanceHook: the rebalances a member went
// through, not its own join.
func (r *Recorder) OnRebalance(e event.Rebalance) {
	if e.Cause != event.CauseJoined {
		r.Rebalanced(e.Took)
	}
}

// side is one direction's measured records.
type side struct {
	hist        *hdrhistogram.Histogram
	count       int64
	bytes       int64
	sum, max    time.Duration
	first, last time.Time
	win         window
}

// window accumulates what a progress line reports.
type window struct {
	count, bytes int64
	sum, max     time.Duration
}

// NewRecorder returns a recorder that skips the first warmup records of each
// side; allRecords also counts records of other runs and consumeLimit (> 0)
// ignores records read past it (consume-only).
func NewRecorder(warmup int64, allRecords bool, consumeLimit int64) *Recorder {
	r := &Recorder{
		warmup:       warmup,
		allRecords:   allRecords,
		consumeLimit: consumeLimit,
		warmedUp:     make(chan struct{}),
		produce:      side{hist: result.NewHistogram()},
		consume:      side{hist: result.NewHistogram()},
		acct:         result.NewAccounting(),
		rebalances:   result.NewHistogram(),
	}
	r.ackedAdd, r.seenAdd = result.NewAdder(r.acct.Acked), result.NewAdder(r.acct.Seen)
	if warmup == 0 {
		close(r.warmedUp)
	}
	return r
}

// Produced records an acknowledged record. latency runs from the record's
// intended send time, so the send time is now minus latency.
func (r *Recorder) Produced(now time.Time, latency time.Duration, bytes int, id probes.RecordID) {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	r.ackedAdd.Add(id)
	r.acked++
	if r.acked <= r.warmup {
		if r.acked == r.warmup {
			close(r.warmedUp)
		}
		return
	}
	s := &r.produce
	if sent := now.Add(-latency); s.count == 0 || sent.Before(s.first) {
		s.first = sent
	}
	s.record(now, latency, bytes, true)
}

// Failed counts records the producer gave up on.
func (r *Recorder) Failed(reason string, n int) {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	r.failed += int64(n)
	if reason == probes.ReasonBehindSchedule {
		r.skipped += int64(n)
	}
}

// NotCommitted takes acknowledged records of a transaction aborted or not
// ended out of the acknowledged set, so they are neither awaited nor lost.
func (r *Recorder) NotCommitted(run uint64, partition int32, lo, hi uint64) {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	r.notCommitted += int64(r.acct.Acked.At(run, partition).RemoveRange(lo, hi))
}

// Rebalanced records the duration of a rebalance.
func (r *Recorder) Rebalanced(d time.Duration) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	_ = r.rebalances.RecordValue(min(max(d, 0).Microseconds(), result.HistMaxMicros)) // clamped: cannot fail
}

// Rebalances is how many rebalances the group's members went through and
// the p99 of their durations.
func (r *Recorder) Rebalances() (n int64, p99 time.Duration) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	n = r.rebalances.TotalCount()
	if n > 0 {
		p99 = time.Duration(r.rebalances.ValueAtQuantile(99)) * time.Microsecond
	}
	return n, p99
}

// Consumed records a record read. Records of other runs are skipped
// unless the recorder counts every record (consume-only); their end-to-end
// latency is never recorded, as their send time is not ours.
func (r *Recorder) Consumed(now time.Time, endToEnd time.Duration, bytes int, ownRun bool, id probes.RecordID) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	r.acct.Reads++
	if !ownRun && !r.allRecords {
		return
	}
	if ownRun && !r.seenAdd.Add(id) {
		r.acct.Duplicates++
	}
	if r.consumeLimit > 0 && r.consumed >= r.consumeLimit {
		return
	}
	r.consumed++
	if r.consumed <= r.warmup {
		r.warmEnd = now
		return
	}
	s := &r.consume
	if s.count == 0 {
		s.first = now
	}
	s.record(now, endToEnd, bytes, ownRun)
}

func (s *side) record(now time.Time, latency time.Duration, bytes int, withLatency bool) {
	s.count++
	s.bytes += int64(bytes)
	s.last = now
	s.win.count++
	s.win.bytes += int64(bytes)
	if !withLatency {
		return
	}
	latency = max(latency, 0)
	_ = s.hist.RecordValue(min(latency.Microseconds(), result.HistMaxMicros)) // clamped: cannot fail
	s.sum += latency
	s.max = max(s.max, latency)
	s.win.sum += latency
	s.win.max = max(s.win.max, latency)
}

// Accounting is a copy of which records were acknowledged and read.
func (r *Recorder) Accounting() *result.Accounting {
	r.pmu.Lock()
	acked := r.acct.Acked.Clone()
	r.pmu.Unlock()
	r.cmu.Lock()
	defer r.cmu.Unlock()
	return &result.Accounting{Acked: acked, Seen: r.acct.Seen.Clone(), Duplicates: r.acct.Duplicates, Reads: r.acct.Reads}
}

// WarmedUp is closed once the warm-up records are acknowledged.
func (r *Recorder) WarmedUp() <-chan struct{} { return r.warmedUp }

// Acked is the number of acknowledged records, warm-up included.
func (r *Recorder) Acked() int64 {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.acked
}

// Expected is the number of acknowledged records a consumer is to read,
// warm-up included: Acked without those of transactions not committed.
func (r *Recorder) Expected() int64 {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.acked - r.notCommitted
}

// NotCommittedTotal is the number of acknowledged records of transactions
// that were aborted or whose end failed, warm-up included.
func (r *Recorder) NotCommittedTotal() int64 {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.notCommitted
}

// FailedTotal is the number of records that failed to produce, warm-up
// included: kafka_bench_produce_failed_total of the scenario's probe.
func (r *Recorder) FailedTotal() int64 {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.failed
}

// SentEnded is the number of records sent that were acknowledged or failed,
// warm-up included: records skipped unsent are not among them.
func (r *Recorder) SentEnded() int64 {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.acked + r.failed - r.skipped
}

// AckedRead is the number of acknowledged records of this run read at least
// once, warm-up included: a duplicate or a record that failed on its way
// back (yet was written) does not count, so it cannot end the drain early.
func (r *Recorder) AckedRead() int64 {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	r.cmu.Lock()
	defer r.cmu.Unlock()
	var n uint64
	for run, parts := range r.acct.Acked {
		for part, acked := range parts {
			if seen := r.acct.Seen[run][part]; seen != nil {
				n += acked.Intersect(seen)
			}
		}
	}
	return int64(n)
}

// ConsumedTotal is the number of records read and counted, warm-up included.
func (r *Recorder) ConsumedTotal() int64 {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	return r.consumed
}

// Window is one progress interval of one side.
type Window struct {
	Records    int64
	Bytes      int64
	AvgLatency time.Duration
	MaxLatency time.Duration
}

// ProduceWindow returns the producer's window since the last call and
// starts a new one.
func (r *Recorder) ProduceWindow() Window {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.produce.takeWindow()
}

// ConsumeWindow is ProduceWindow for the consumer (end-to-end latency).
func (r *Recorder) ConsumeWindow() Window {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	return r.consume.takeWindow()
}

func (s *side) takeWindow() Window {
	w := Window{Records: s.win.count, Bytes: s.win.bytes, MaxLatency: s.win.max}
	if s.win.count > 0 {
		w.AvgLatency = s.win.sum / time.Duration(s.win.count)
	}
	s.win = window{}
	return w
}

// Span is the measured records of one side.
type Span struct {
	Records     int64
	Bytes       int64
	First, Last time.Time
	Latency     result.Latencies
}

// ProduceSpan summarises the measured acknowledgements: First is the
// earliest send time, Last the last acknowledgement.
func (r *Recorder) ProduceSpan() Span {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	return r.produce.span()
}

// ConsumeSpan summarises the measured records read; Latency is end-to-end.
// warmEnd is when the warm-up records were read (zero without warm-up).
func (r *Recorder) ConsumeSpan() (s Span, warmEnd time.Time) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	return r.consume.span(), r.warmEnd
}

func (s *side) span() Span {
	// A copy, as the summary outlives the recorder's lock: merged into an
	// empty histogram, which reads the counts only up to the largest value
	// and writes only those recorded, where an export and import would copy
	// the whole array twice (16 MiB at five significant digits).
	h := result.NewHistogram()
	h.Merge(s.hist)
	return Span{Records: s.count, Bytes: s.bytes, First: s.first, Last: s.last,
		Latency: result.LatenciesOf(h, s.sum, s.max)}
}
