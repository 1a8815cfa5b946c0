package probes

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
)

// catchUpFirstDelay bounds the wait before a window's first read: the
// probe's own clients start first.
const catchUpFirstDelay = time.Minute

// catchUp is one catch-up window of a probe (config.CatchUp): every
// interval a reader without a group reads the probe topic from the window's
// start, and checks each record it reads against the records the producer
// of this process gave up on (goneLog). It reports to the probe's sinks
// (event.CatchUpReadHook, CatchUpFetchHook, CatchUpRunHook).
type catchUp struct {
	p   *Probe
	w   config.CatchUp
	now func() time.Time // the probe's steady clock
}

// catchUpResult is one read's outcome.
type catchUpResult struct {
	end                   string // event.CatchUpEnds
	start, first, last    time.Time
	ended                 time.Time // wall clock
	records, bytes        int64
	age                   time.Duration // of the first record read
	remote, remoteKnown   bool
	missing, outOfOrder   uint64
	duplicated, unchecked uint64
}

// runCatchUps runs every catch-up window of the probe until ctx ends.
func (p *Probe) runCatchUps(ctx context.Context) {
	if len(p.cfg.CatchUp) == 0 {
		return
	}
	done := make(chan struct{}, len(p.cfg.CatchUp))
	for _, w := range p.cfg.CatchUp {
		c := &catchUp{p: p, w: w, now: p.clk.now}
		go func() {
			defer func() { done <- struct{}{} }()
			c.loop(ctx)
		}()
	}
	for range p.cfg.CatchUp {
		<-done
	}
}

// loop reads the window every interval, from the start of one read to the
// start of the next.
func (c *catchUp) loop(ctx context.Context) {
	wait := min(time.Duration(c.w.Interval), catchUpFirstDelay)
	for sleep(ctx, wait) {
		started := time.Now()
		r := c.read(ctx)
		if ctx.Err() != nil {
			return
		}
		c.report(r)
		wait = time.Duration(c.w.Interval) - time.Since(started)
	}
}

// report tells the sinks of a read and logs what it found wrong.
func (c *catchUp) report(r *catchUpResult) {
	c.p.ev.CatchUpRun(event.CatchUpRun{
		Window: c.w.From, End: r.end,
		Start: r.start, First: r.first, Last: r.last, Ended: r.ended,
		Records: r.records, Bytes: r.bytes, Age: r.age,
		Remote: r.remote, RemoteKnown: r.remoteKnown,
		Missing: r.missing, OutOfOrder: r.outOfOrder, Duplicated: r.duplicated, Unchecked: r.unchecked,
	})
	if r.missing > 0 || r.outOfOrder > 0 {
		c.p.logger.Warn("catch-up read found records missing or out of order", "window", c.w.From,
			"missing", r.missing, "out_of_order", r.outOfOrder, "records", r.records)
	}
}

// windowOffsets are the offsets a read starts at and ends before, by
// partition, and the local log start (nil when the brokers do not say).
type windowOffsets struct {
	start, end, localStart map[int32]int64
}

// offsets lists the window of this read: its start by time (or the log
// start), its end (the high watermark, or the last stable offset for a
// read_committed reader) and the local log start.
func (c *catchUp) offsets(ctx context.Context) (windowOffsets, error) {
	adm, topic := c.p.admin, c.p.cfg.Topic
	age, fromStart := c.w.Age()
	var starts kadm.ListedOffsets
	var err error
	if fromStart {
		starts, err = adm.ListStartOffsets(ctx, topic)
	} else {
		starts, err = adm.ListOffsetsAfterMilli(ctx, time.Now().Add(-age).UnixMilli(), topic)
	}
	if err != nil {
		return windowOffsets{}, fmt.Errorf("listing the window's start offsets: %w", err)
	}
	list := adm.ListEndOffsets
	if applied := c.w.Consumer.Applied(c.p.cfg.Consumer); applied.ReadCommitted() {
		list = adm.ListCommittedOffsets
	}
	ends, err := list(ctx, topic)
	if err != nil {
		return windowOffsets{}, fmt.Errorf("listing the end offsets: %w", err)
	}
	w := windowOffsets{start: map[int32]int64{}, end: map[int32]int64{}}
	var firstErr error
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			firstErr = cmp(firstErr, o.Err)
			return
		}
		s, ok := starts.Lookup(topic, o.Partition)
		if !ok || s.Err != nil {
			firstErr = cmp(firstErr, fmt.Errorf("partition %d: no start offset", o.Partition))
			return
		}
		at := s.Offset
		if at < 0 || at > o.Offset { // after the last record by time: nothing to read
			at = o.Offset
		}
		if at < o.Offset {
			w.start[o.Partition], w.end[o.Partition] = at, o.Offset
		}
	})
	if firstErr != nil {
		return windowOffsets{}, fmt.Errorf("listing the window's offsets: %w", firstErr)
	}
	if local, err := adm.ListLocalLogStartOffsets(ctx, topic); err == nil {
		w.localStart = map[int32]int64{}
		local.Each(func(o kadm.ListedOffset) {
			if o.Err == nil && o.Offset >= 0 {
				w.localStart[o.Partition] = o.Offset
			}
		})
		for partition := range w.start {
			if _, ok := w.localStart[partition]; !ok {
				w.localStart = nil // one partition unknown: the tier is unknown
				break
			}
		}
	}
	return w, nil
}

func cmp(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// read reads the window once.
func (c *catchUp) read(ctx context.Context) *catchUpResult {
	r := &catchUpResult{end: event.CatchUpEndError}
	defer func() { r.ended = time.Now() }()
	ctx, cancel := context.WithTimeout(ctx, time.Duration(c.w.MaxDuration))
	defer cancel()
	w, err := c.offsets(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.p.errs.warn("catchup-offsets", "catch-up read could not list its window", "window", c.w.From, "err", err)
		} else {
			r.end = event.CatchUpEndDuration
		}
		return r
	}
	r.remoteKnown = w.localStart != nil
	for partition, at := range w.start {
		if r.remoteKnown && at < w.localStart[partition] {
			r.remote = true
		}
	}
	if len(w.start) == 0 {
		r.end = event.CatchUpEndOffsets
		return r
	}
	hook := catchUpFetchHook{ev: c.p.ev, window: c.w.From}
	cl, err := c.p.NewClient(kclient.RoleCatchUp, c.w.From, append(kclient.CatchUpOpts(c.p.cfg, c.w, w.start), kgo.WithHooks(hook))...)
	if err != nil {
		c.p.errs.warn("catchup-client", "catch-up reader could not be built", "window", c.w.From, "err", err)
		return r
	}
	defer cl.Close()
	r.start = c.now()
	rd := newCatchUpCheck(c.p.gone)
	r.end = c.poll(ctx, cl, w, rd, r)
	rd.finish(c.settledBefore(), r)
	return r
}

// settledBefore is the intended time before which a record that is not
// in the log will not come any more, nor be given up on later: a record
// is sent at most delivery.timeout.ms after its intended time (the
// producer skips those further behind) and given up on at most
// delivery.timeout.ms after its send; a transaction's end, and so the
// records it aborted, comes within transaction.timeout.ms; the loss grace
// period is on top. Gaps revealed by a younger record are not counted: a
// record still being retried may fill them later.
func (c *catchUp) settledBefore() time.Time {
	pc := c.p.cfg.Producer
	wait := 2*time.Duration(pc.DeliveryTimeoutMS)*time.Millisecond + time.Duration(c.p.cfg.LossGracePeriod)
	if pc.Transactional() {
		wait += time.Duration(pc.TransactionTimeoutMS) * time.Millisecond
	}
	return c.now().Add(-wait)
}

// poll reads until the window's end offsets, a bound or ctx's deadline,
// paced to max_bytes_per_second; it says why it stopped.
func (c *catchUp) poll(ctx context.Context, cl *kgo.Client, w windowOffsets, rd *catchUpCheck, r *catchUpResult) string {
	topic := c.p.cfg.Topic
	maxPoll := c.w.Consumer.Applied(c.p.cfg.Consumer).MaxPollRecords
	pending := len(w.end)
	done := map[int32]bool{}
	finishPartition := func(partition int32) {
		if !done[partition] {
			done[partition] = true
			pending--
			cl.PauseFetchPartitions(map[string][]int32{topic: {partition}})
		}
	}
	for pending > 0 {
		fetches := cl.PollRecords(ctx, maxPoll)
		if ctx.Err() != nil {
			return event.CatchUpEndDuration
		}
		retention := false
		fetches.EachError(func(_ string, partition int32, err error) {
			if errors.Is(err, kerr.OffsetOutOfRange) {
				// Retention deleted what the read had yet to read: the
				// partition's window ends where it got to.
				retention = true
				finishPartition(partition)
				return
			}
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				c.p.errs.warn("catchup-fetch", "catch-up fetch failed", "window", c.w.From, "partition", partition, "err", err)
			}
		})
		now := c.now()
		var stop string
		var tally catchUpTally
		fetches.EachRecord(func(rec *kgo.Record) {
			if stop != "" || done[rec.Partition] {
				return
			}
			end := w.end[rec.Partition]
			if rec.Offset >= end {
				finishPartition(rec.Partition)
				return
			}
			if rec.Offset == end-1 {
				finishPartition(rec.Partition)
			}
			if rec.Attrs.IsControl() {
				return
			}
			if r.records == 0 {
				r.first = now
				if !rec.Timestamp.IsZero() {
					r.age = time.Since(rec.Timestamp)
				}
			}
			r.records++
			r.bytes += int64(len(rec.Value))
			r.last = now
			tally.count(rec, w.localStart)
			rd.observe(rec)
			switch {
			case c.w.MaxRecords > 0 && r.records >= c.w.MaxRecords:
				stop = event.CatchUpEndRecords
			case c.w.MaxBytes > 0 && r.bytes >= c.w.MaxBytes:
				stop = event.CatchUpEndBytes
			}
		})
		tally.report(c.p.ev, c.w.From)
		if stop != "" {
			return stop
		}
		if retention && pending == 0 {
			return event.CatchUpEndRetention
		}
		if !c.pace(ctx, r) {
			return event.CatchUpEndDuration
		}
	}
	return event.CatchUpEndOffsets
}

// catchUpTally is a poll's records and bytes by the tier that served them
// (by index in event.CatchUpTiers), told to the sinks once per poll.
type catchUpTally [3]struct{ records, bytes int64 }

// The indices of catchUpTally.
const (
	tierLocal = iota
	tierRemote
	tierUnknown
)

// count adds a record to its tier: below the partition's local log start,
// the remote tier; unknown without the local log starts.
func (t *catchUpTally) count(rec *kgo.Record, localStart map[int32]int64) {
	tier := tierUnknown
	if localStart != nil {
		tier = tierLocal
		if rec.Offset < localStart[rec.Partition] {
			tier = tierRemote
		}
	}
	t[tier].records++
	t[tier].bytes += int64(len(rec.Value))
}

// report tells the sinks of the tally's records.
func (t *catchUpTally) report(ev *event.Hooks, window string) {
	for i, tier := range [...]string{tierLocal: event.CatchUpLocal, tierRemote: event.CatchUpRemote, tierUnknown: event.CatchUpUnknown} {
		ev.CatchUpRead(window, tier, t[i].records, t[i].bytes)
	}
}

// pace waits until the bytes read so far are due at max_bytes_per_second
// from the read's start: franz-go asks a broker for more only once its
// last fetch was polled, so the fetches keep the pace too. False: ctx
// ended.
func (c *catchUp) pace(ctx context.Context, r *catchUpResult) bool {
	if wait := c.paceWait(r, c.now()); wait > 0 {
		return sleep(ctx, wait)
	}
	return ctx.Err() == nil
}

// paceWait is how long after now the bytes r read so far are due; 0
// without a cap.
func (c *catchUp) paceWait(r *catchUpResult, now time.Time) time.Duration {
	if c.w.MaxBytesPerSecond <= 0 {
		return 0
	}
	due := r.start.Add(time.Duration(float64(r.bytes) / c.w.MaxBytesPerSecond * float64(time.Second)))
	return max(due.Sub(now), 0)
}

// catchUpFetchHook times the reader's fetches, for the sinks.
type catchUpFetchHook struct {
	ev     *event.Hooks
	window string
}

// fetchKey is the Fetch request's API key.
const fetchKey = 1

func (h catchUpFetchHook) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if key == fetchKey && e2e.Err() == nil {
		h.ev.CatchUpFetch(h.window, e2e.DurationE2E())
	}
}

// catchUpCheck checks the records of one read: per partition and run, the
// sequence numbers must follow one another; a gap is missing unless the
// producer of this process gave it up (goneLog) or a later record of the
// read fills it (out of order).
type catchUpCheck struct {
	gone  *goneLog
	seqs  map[catchUpKey]*catchUpSeq
	other uint64 // records whose gaps cannot be checked
}

type catchUpKey struct {
	run       uint64
	partition int32
}

// catchUpSeq is one partition's sequence of one run in a read.
type catchUpSeq struct {
	next uint64
	read uint64 // records
	gaps []catchUpGap
	late map[uint64]bool // lower sequence numbers that filled a gap
	dups uint64
}

// catchUpGap is [lo, hi), found by a record intended at after.
type catchUpGap struct {
	lo, hi uint64
	after  int64
}

func newCatchUpCheck(gone *goneLog) *catchUpCheck {
	return &catchUpCheck{gone: gone, seqs: map[catchUpKey]*catchUpSeq{}}
}

// observe checks one record against the last of its partition and run.
func (k *catchUpCheck) observe(rec *kgo.Record) {
	h, err := payload.Decode(rec.Value)
	if err != nil || h.Partition != rec.Partition {
		k.other++
		return
	}
	key := catchUpKey{h.RunID, h.Partition}
	s := k.seqs[key]
	if s == nil {
		k.seqs[key] = &catchUpSeq{next: h.Seq + 1, read: 1}
		return
	}
	s.read++
	switch {
	case h.Seq == s.next:
		s.next++
	case h.Seq > s.next:
		s.gaps = append(s.gaps, catchUpGap{s.next, h.Seq, h.Intended})
		s.next = h.Seq + 1
	default:
		s.fill(h.Seq)
	}
}

// fill takes seq, lower than the next expected, out of its gap (out of
// order); seq in no gap, or filled before, was read before (a duplicate).
func (s *catchUpSeq) fill(seq uint64) {
	i := sort.Search(len(s.gaps), func(i int) bool { return s.gaps[i].hi > seq })
	if i < len(s.gaps) && s.gaps[i].lo <= seq && !s.late[seq] {
		if s.late == nil {
			s.late = map[uint64]bool{}
		}
		s.late[seq] = true
		return
	}
	s.dups++
}

// finish counts the read's findings into r: the sequence numbers of the
// gaps found by records intended before settled that were neither given
// up on by the producer nor read late are missing. Other runs' gaps
// cannot be checked: their records count as unchecked.
func (k *catchUpCheck) finish(settled time.Time, r *catchUpResult) {
	r.unchecked += k.other
	for key, s := range k.seqs {
		r.duplicated += s.dups
		r.outOfOrder += uint64(len(s.late))
		if !k.gone.ownRun(key.run) {
			r.unchecked += s.read
			continue
		}
		var missing uint64
		for _, g := range s.gaps {
			if g.after >= settled.UnixNano() {
				continue
			}
			n, complete := k.gone.uncovered(key.run, key.partition, g.lo, g.hi)
			if !complete {
				r.unchecked += s.read
				missing = 0
				break
			}
			for seq := range s.late {
				if seq >= g.lo && seq < g.hi {
					if u, _ := k.gone.uncovered(key.run, key.partition, seq, seq+1); u == 1 {
						n--
					}
				}
			}
			missing += n
		}
		r.missing += missing
	}
}
