package probes

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// MaxBatch bounds how many due records one pacer wake-up hands out, so a
// catch-up burst still checks for cancellation regularly.
const MaxBatch = 512

// recordOverhead bounds the bytes a record adds to its value inside a record
// batch (length, attributes, timestamp and offset deltas, key and value
// lengths, header count: varints).
const recordOverhead = 21

// RoundSize is how many records share one intended time: round_interval
// worth at the probe's rate, at least one, and at most one batch.size per
// partition, so that a round fits one produce request and never queues
// behind itself. Every wake-up of the producer, every produce request and
// every fetch answer costs far more CPU than a record in it, so handing
// records over in rounds (as kminion sends one record per partition each
// probe interval) instead of one wake-up per record is what keeps an
// always-on probe cheap. No record is handed over before its intended time,
// and every latency is measured from it, so latency keeps its meaning.
func RoundSize(cfg config.Probe, partitions int32) uint64 {
	rate := cfg.Rate
	if rate <= 0 || math.IsInf(rate, 1) || math.IsNaN(rate) {
		return 1
	}
	n := math.Floor(rate*time.Duration(cfg.RoundInterval).Seconds() + 1e-9)
	// A record adds up to recordOverhead bytes to its value in a batch; a
	// round that overfills a batch by one record would leave a batch of
	// one behind and double the produce requests.
	perBatch := max((cfg.Producer.BatchSize-config.BatchOverhead)/(cfg.RecordSize+recordOverhead), 1)
	n = min(n, float64(int64(max(partitions, 1))*int64(perBatch)), MaxBatch)
	return uint64(max(n, 1))
}

// roundPeriod is the time between two rounds.
func roundPeriod(cfg config.Probe, partitions int32) time.Duration {
	if cfg.Rate <= 0 {
		return 0
	}
	return time.Duration(float64(RoundSize(cfg, partitions)) / cfg.Rate * float64(time.Second))
}

// producer paces probe records by intended send time and measures produce
// latency from that time, so a stall is charged to every record it delayed.
type producer struct {
	runDeps
	client *kgo.Client
	pool   *payload.Pool
	// records recycles sent records, each with its value buffer, once
	// their promise has run: franz-go reads nothing of a record after
	// calling its promise (it takes the record's size before) but its
	// Context (sentHeader), so a record is reused instead of allocated per
	// record, which on a heap as large as a bench's (its exact histograms)
	// meant touching fresh memory for every one.
	records *recycler
	// seqs holds the next sequence number of each partition; only the
	// produce loop touches it.
	seqs []uint64
	rr   int32
	// maxBehind: a record due longer ago than the delivery timeout would
	// have failed in Kafka's own client; it is dropped and counted as
	// failed (behind_schedule) instead of sent in a burst after an outage.
	maxBehind time.Duration
	// trackers hear of every acknowledgement and failure, for loss
	// accounting.
	trackers seqTrackers
	// limit, when > 0, stops producing after that many records (bench).
	limit uint64
	sent  atomic.Uint64
	// writable is how many partitions the producer writes to: it follows
	// the topic's count (partitions, raised by the watcher) only once its
	// own client's metadata has the new partitions, as franz-go fails a
	// record for a partition it does not know yet ("invalid record
	// partitioning choice"). loaded says the client knows a partition's
	// leader; refresh asks it to re-read metadata, at most once a second
	// (lastRefresh) while partitions are pending. Only the produce loop
	// touches them.
	writable    int32
	loaded      func(partition int32) bool
	refresh     func()
	lastRefresh time.Time
	// lagTimes: acknowledgements carry true offsets, so they feed lag in
	// seconds; with acks=0 franz-go reports offsets counted from 0 in every
	// batch, which would make it a confident wrong number.
	lagTimes bool
	// sampled skips produceTimes' lock for the acknowledgements it keeps
	// no sample of; only promises touch it.
	sampled sampleCache
	// txn is the open transaction's state; nil without transactional.id
	// (txn.go). Only the produce loop touches it.
	txn *txn
	// promised is promise as a func value, made once: a method value
	// handed to Produce per record would be allocated per record.
	promised func(*kgo.Record, error)
	// wallSkew is the wall clock minus the probe's steady clock, read once
	// per round: a record's timestamp is its hand-off time plus it, the
	// wall clock's time without a second clock reading per record. Only
	// the produce loop touches it.
	wallSkew time.Duration
}

// newProducer makes a producer on client; limit > 0 stops it after that
// many records.
func newProducer(d runDeps, client *kgo.Client, limit uint64) *producer {
	pool := NewPool(d.cfg, d.payload, d.logger)
	pr := &producer{
		runDeps:   d,
		client:    client,
		pool:      pool,
		records:   newRecycler(pool.MaxSize()),
		maxBehind: time.Duration(d.cfg.Producer.DeliveryTimeoutMS) * time.Millisecond,
		limit:     limit,
		trackers:  d.seqTrackers(),
		writable:  d.partitions.Load(),
		lagTimes:  !ackless(d.cfg),
		txn:       newTxn(d.cfg.Producer),
	}
	pr.promised = pr.promise
	if client != nil {
		pr.refresh = client.ForceMetadataRefresh
		pr.loaded = func(partition int32) bool {
			leader, _, err := client.PartitionLeader(d.cfg.Topic, partition)
			return err == nil && leader >= 0
		}
	}
	return pr
}

// ackless says the probe produces with acks=0: no acknowledgement carries
// an offset.
func ackless(cfg config.Probe) bool { return cfg.Producer.Acks == "0" }

// partitionCount is how many partitions the next record may go to.
func (pr *producer) partitionCount() int32 {
	if want := pr.partitions.Load(); want > pr.writable {
		pr.followGrowth(want)
	}
	return max(pr.writable, 1)
}

// followGrowth raises writable to want as far as the client knows the new
// partitions, and asks it to refresh its metadata while it does not.
func (pr *producer) followGrowth(want int32) {
	from := pr.writable
	for pr.writable < want && pr.loaded(pr.writable) {
		pr.writable++
	}
	if pr.writable > from {
		pr.logger.Info("producer writes to added partitions", "partitions", pr.writable)
	}
	if pr.writable < want {
		if now := time.Now(); now.Sub(pr.lastRefresh) >= time.Second {
			pr.lastRefresh = now
			pr.refresh()
		}
	}
}

// run produces until ctx is cancelled or the record limit is reached; a
// transaction still open then is committed (or aborted, in its turn).
func (pr *producer) run(ctx context.Context) {
	defer pr.endTxn()
	clock := pr.clk.pacer()
	pc := pacer.New(clock, clock.Now(), pr.cfg.Rate, RoundSize(pr.cfg, pr.partitions.Load()))
	unlimited := pr.cfg.Rate <= 0
	for ctx.Err() == nil {
		if !unlimited {
			if now := clock.Now(); pc.Behind(now) > pr.maxBehind {
				if n := pc.SkipTo(now.Add(-pr.maxBehind / 2)); n > 0 {
					pr.ev.Failed(ReasonBehindSchedule, int(n))
					pr.logger.Warn("producer fell behind schedule by more than delivery.timeout.ms; skipping records", "skipped", n)
				}
			}
		}
		first, n, err := pr.wait(ctx, pc)
		if err != nil {
			if ctx.Err() == nil { // the transaction's time is up
				pr.endTxn()
				continue
			}
			return
		}
		if pr.limit > 0 {
			left := pr.limit - pr.sent.Load()
			if left == 0 {
				return
			}
			n = min(n, left)
		}
		if !pr.beginTxn(ctx, n) {
			continue
		}
		pr.readWall(clock.Now())
		handOut(clock, pc, first, n, unlimited, pr.send)
		if pr.txnDue() {
			pr.endTxn()
		}
	}
}

// readWall reads the wall clock for the records of the round starting at
// now (wallSkew).
func (pr *producer) readWall(now time.Time) { pr.wallSkew = pr.clk.wall().Sub(now) }

// handOut hands records [first, first+n) to send. The clock is read per
// record: a Produce that waited for buffer space delays the records after
// it, and that wait is their send delay (and, unpaced, part of their
// latency, which is then measured from the hand-off).
func handOut(clock pacer.Clock, pc *pacer.Pacer, first, n uint64, unlimited bool, send func(intended, now time.Time)) {
	for i, end := first, first+n; i < end; {
		intended, next := pc.Round(i) // the round's time, once per round
		for next = min(next, end); i < next; i++ {
			now := clock.Now()
			if unlimited {
				send(now, now)
			} else {
				send(intended, now)
			}
		}
	}
}

// send hands one record to the client at now (times of the probe's clock).
// Produce blocks while buffer.memory is full, which is what bounds memory
// while Kafka is away. It is given no cancellable context: cancelling could
// fail a record that is already on the wire (and then consumed), so stopping
// is done by closing the client.
func (pr *producer) send(intended, now time.Time) {
	pr.sent.Add(1)
	pr.client.Produce(context.Background(), pr.record(intended, now), pr.promised)
}

// record makes the next record, round-robin over the writable partitions,
// with intended in its header. Its timestamp, which the broker keeps, is
// the wall clock's (now plus wallSkew).
func (pr *producer) record(intended, now time.Time) *kgo.Record {
	parts := pr.partitionCount()
	if pr.rr >= parts {
		pr.rr = 0
	}
	part := pr.rr
	pr.rr++
	for int(part) >= len(pr.seqs) {
		pr.seqs = append(pr.seqs, 0)
	}
	seq := pr.seqs[part]
	pr.seqs[part]++
	h := payload.Header{RunID: pr.runID, Partition: part, Seq: seq, Intended: intended.UnixNano()}
	pr.ev.Sent(now.Sub(intended))
	sr := pr.records.get()
	sr.Record = kgo.Record{Partition: part, Value: pr.pool.Fill(sr.Value, h), Timestamp: now.Add(pr.wallSkew), Context: &sr.header}
	sr.header.partition, sr.header.seq, sr.header.intended = part, seq, h.Intended
	return &sr.Record
}

// sentRecord is a record with its header beside it, in one allocation. The
// record's Context (which franz-go only asks whether it is done) points at
// the header, so the promise reads it from there instead of decoding the
// value: by the time Kafka answers, the value has long left the CPU's
// caches, and reading its first bytes was the most expensive step of a
// promise. It is 192 bytes, a size class of Go's allocator, whose objects are
// 64-byte aligned: the header then shares the record's last cache line with
// the offset and leader epoch franz-go writes just before the promise, and
// the promise reads no line that franz-go has not already brought in
// (TestSentRecordFillsThreeCacheLines). The run id is the producer's.
type sentRecord struct {
	kgo.Record
	header sentHeader
}

// sentHeader is a sent record's header (but its run id, the producer's)
// and its Context, which is never done and holds no values, as
// context.Background. Its methods read none of its fields: franz-go may keep
// asking a record's Context whether it is done after the record's promise
// has run (the goroutine that waits for an unknown topic's metadata holds
// the first record's), while the record is already reused for the next one.
type sentHeader struct {
	seq       uint64
	intended  int64
	rec       *sentRecord // the record it is beside, to recycle; set once
	partition int32
}

func (*sentHeader) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*sentHeader) Done() <-chan struct{}       { return nil }
func (*sentHeader) Err() error                  { return nil }
func (*sentHeader) Value(any) any               { return nil }

// headerOf is the header of a record the producer made, and that record
// (nil for a record of another making, none in the probe, whose header is
// decoded).
func (pr *producer) headerOf(r *kgo.Record) (payload.Header, *sentRecord, error) {
	if sh, ok := r.Context.(*sentHeader); ok {
		return payload.Header{RunID: pr.runID, Partition: sh.partition, Seq: sh.seq, Intended: sh.intended}, sh.rec, nil
	}
	h, err := payload.Decode(r.Value)
	return h, nil, err
}

// promise runs on franz-go's callback goroutine for each record; it reads the
// header back (headerOf) instead of capturing it, so no closure is allocated
// per record. The record is recycled when it returns (records).
func (pr *producer) promise(r *kgo.Record, err error) {
	h, sr, derr := pr.headerOf(r)
	pr.acknowledged(r, h, derr, err)
	if sr != nil {
		pr.records.put(sr) // its value buffer with it
	} else {
		pr.pool.Put(r.Value)
	}
}

// trim gives back the records that a burst in flight (Kafka away) left
// spare; called periodically.
func (pr *producer) trim() { pr.records.trim() }

// acknowledged accounts for the record r with header h whose produce ended
// with err (nil: acknowledged).
func (pr *producer) acknowledged(r *kgo.Record, h payload.Header, derr, err error) {
	now := pr.clk.now()
	if derr != nil {
		return // cannot happen: the value is ours
	}
	if pr.txn != nil {
		if err != nil {
			pr.txn.failed.Add(1)
		} else {
			pr.txn.acked.Add(1)
		}
	}
	if err != nil {
		pr.ev.Failed(failureReason(err), 1)
		pr.trackers.wontArrive(RecordID{Run: h.RunID, Partition: h.Partition, Seq: h.Seq}, now)
		pr.errs.produce(err)
		return
	}
	id := RecordID{Run: h.RunID, Partition: h.Partition, Seq: h.Seq}
	pr.ev.Produced(event.Produced{Now: now, Latency: since(h.Intended, now), Bytes: len(r.Value), ID: id})
	pr.trackers.acked(id, now)
	pr.live.produced(now)
	if pr.lagTimes {
		pr.sampled.add(pr.produceTimes, r.Partition, r.Offset, h.Intended)
	}
}

// stop ends pacing, waits for buffered records until the deadline, then
// closes the client, which fails what is left (and unblocks a Produce
// waiting for buffer space while Kafka is away).
func (pr *producer) stop(stopPacing context.CancelFunc, done <-chan struct{}, timeout time.Duration) {
	stopPacing()
	deadline := time.Now().Add(timeout)
	select {
	case <-done:
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_ = pr.client.Flush(ctx)
		cancel()
	case <-time.After(timeout):
	}
	pr.client.Close()
	<-done
}

// failureReason maps a produce error onto the fixed reason set.
func failureReason(err error) string {
	switch {
	case kclient.IsAuthError(err): // first: a timeout's "last err" may be the reason
		return ReasonAuth
	case errors.Is(err, kgo.ErrRecordTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, kerr.RequestTimedOut):
		return ReasonTimeout
	case errors.Is(err, kgo.ErrRecordRetries):
		return ReasonRetriesExhausted
	case errors.Is(err, kgo.ErrClientClosed), errors.Is(err, context.Canceled):
		return ReasonClientClosed
	case errors.Is(err, kerr.NotLeaderForPartition), errors.Is(err, kerr.LeaderNotAvailable), errors.Is(err, kerr.FencedLeaderEpoch):
		return ReasonNotLeader
	case errors.Is(err, kerr.NotEnoughReplicas), errors.Is(err, kerr.NotEnoughReplicasAfterAppend):
		return ReasonNotEnoughReplicas
	case errors.Is(err, kerr.UnknownTopicOrPartition), errors.Is(err, kerr.UnknownTopicID):
		return ReasonTopicMissing
	case errors.Is(err, kerr.MessageTooLarge), errors.Is(err, kerr.RecordListTooLarge):
		return ReasonMessageTooLarge
	}
	return ReasonOther
}
