package probes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/payload"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// A probe with consumer.kind share reads its topic with a share group
// (KIP-932): every member may get records of every partition, acknowledges
// each one, and a record not accepted in time comes back. The accounting
// is tracker.Share's; this file is its members and the group's setup.

// Share-group defaults of the broker, for a group whose configs cannot be
// read.
const (
	defaultShareLock  = 30 * time.Second
	defaultShareLimit = 5
	// shareAckTimeout bounds the wait for the broker's answer to one
	// set of acknowledgements; past it their outcome is unknown.
	shareAckTimeout = 10 * time.Second
	// shareKickAfter is how long a member waits for a set's answer riding
	// the fetch in flight before it makes its client send the set on its
	// own (kickAcks).
	shareKickAfter = 20 * time.Millisecond
	// sharePollWait bounds one poll, so a member notices a stop.
	sharePollWait = time.Second
)

// setupShare checks the cluster serves share groups, sets the group's
// configs (share.auto.offset.reset earliest, so that no record produced
// before a member's first fetch is skipped, share.isolation.level as
// consumer.isolation.level says, and the lock duration and delivery limit
// of the share block), starts a new group at the topic's
// end (shareStartAtEnd; a consume-only bench reads from the start) and
// makes the run's share tracker,
// whose grace is the longest the broker takes to give up on a record:
// lock duration × delivery limit, plus loss_grace_period.
func (p *Probe) setupShare(ctx context.Context) error {
	if err := kclient.CheckShareGroups(ctx, p.admin); err != nil {
		return err
	}
	sh := p.cfg.Consumer.Share
	// A share group reads with the isolation of its group config, not of
	// its members: consumer.isolation.level is set on the group every
	// start, read_uncommitted too, so that a group an earlier run (or
	// anyone) set read_committed follows the configuration.
	configs := map[string]string{
		kclient.ShareAutoOffsetReset: "earliest",
		kclient.ShareIsolationLevel:  p.cfg.Consumer.IsolationLevel,
	}
	if sh.RecordLockDurationMS > 0 {
		configs[kclient.ShareRecordLockDuration] = strconv.Itoa(sh.RecordLockDurationMS)
	}
	if sh.DeliveryCountLimit > 0 {
		configs[kclient.ShareDeliveryCountLimit] = strconv.Itoa(sh.DeliveryCountLimit)
	}
	if err := kclient.SetShareGroupConfigs(ctx, p.adminClient, sh.GroupID, configs); err != nil {
		return err
	}
	if !p.opts.Bench.ConsumeOnly { // reading a pre-filled topic starts where the group is, or at the start
		if err := p.shareStartAtEnd(ctx); err != nil {
			return err
		}
	}
	lock, limit := defaultShareLock, int32(defaultShareLimit)
	if got, err := kclient.ShareGroupConfigs(ctx, p.adminClient, sh.GroupID); err != nil {
		p.logger.Warn("reading the share group's configs failed; assuming the broker defaults", "err", err)
	} else {
		if v, err := strconv.Atoi(got[kclient.ShareRecordLockDuration]); err == nil && v > 0 {
			lock = time.Duration(v) * time.Millisecond
		}
		if v, err := strconv.Atoi(got[kclient.ShareDeliveryCountLimit]); err == nil && v > 0 {
			limit = int32(v)
		}
	}
	if sh.RecordLockDurationMS > 0 {
		lock = time.Duration(sh.RecordLockDurationMS) * time.Millisecond
	}
	if sh.DeliveryCountLimit > 0 {
		limit = int32(sh.DeliveryCountLimit)
	}
	grace := lock*time.Duration(limit) + time.Duration(p.cfg.LossGracePeriod)
	p.share = tracker.NewShare(p.runID, tracker.ShareConfig{Grace: grace, DeliveryLimit: limit})
	p.logger.Info("share group ready", "group", sh.GroupID, "record_lock", lock, "delivery_limit", limit, "loss_grace", grace)
	return nil
}

// shareStartAtEnd sets a new share group's start offsets to the topic's end,
// so that it starts at this run's first record instead of reading an old
// backlog (share.auto.offset.reset earliest then applies to partitions
// added later). A group that has started on any partition of the topic
// resumes where it is. A broker that refuses offsets for a group it does
// not know yet, or for a group another process's member has joined, leaves
// the group to earliest.
func (p *Probe) shareStartAtEnd(ctx context.Context) error {
	group, topic := p.cfg.Consumer.Share.GroupID, p.cfg.Topic
	described, err := p.admin.DescribeShareGroupOffsets(ctx, group)
	if err == nil {
		err = described.Error()
	}
	switch {
	case errors.Is(err, kerr.GroupIDNotFound):
	case err != nil:
		return fmt.Errorf("describing the offsets of share group %q: %w", group, err)
	default:
		for _, o := range described[group].Offsets[topic] {
			if o.Err == nil && o.StartOffset >= 0 {
				return nil // started before: it resumes
			}
		}
	}
	ends, err := p.admin.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("listing end offsets of %q: %w", topic, err)
	}
	offsets := kadm.Offsets{}
	for part, end := range ends[topic] {
		offsets.Add(kadm.Offset{Topic: topic, Partition: part, At: end.Offset})
	}
	resp, err := p.admin.AlterShareGroupOffsets(ctx, group, offsets)
	if err == nil {
		err = resp.Error()
	}
	switch {
	case errors.Is(err, kerr.GroupIDNotFound):
		p.logger.Info("the broker sets no offsets of a new share group; it starts at the topic's start (share.auto.offset.reset earliest)", "group", group)
	case errors.Is(err, kerr.NonEmptyGroup):
		// Another process's member joined first; offsets of a group
		// with members cannot be set, and waiting would never end if it
		// stays. The group starts where it is (earliest), and what that
		// member takes of the probe's records counts as lost.
		p.logger.Warn("the share group has members of another process: its start offsets stay where the broker puts them (share.auto.offset.reset earliest), and records those members take count as lost; use a group id of the probe's own", "group", group)
	case err != nil:
		return fmt.Errorf("setting the start offsets of share group %q: %w", group, err)
	}
	return nil
}

// startShareMembers starts consumer.consumers members of the share group.
func (p *Probe) startShareMembers(ctx context.Context, wg *sync.WaitGroup) error {
	for i := 0; i < p.cfg.Consumer.Consumers; i++ {
		c := newShareMember(p.runDeps, i)
		cl, err := p.NewClient(kclient.RoleConsumer, strconv.Itoa(i), kclient.ShareConsumerOpts(p.cfg, c.onAck)...)
		if err != nil {
			return &buildError{ClientConsumer, err}
		}
		c.client = cl
		wg.Go(func() {
			defer cl.Close() // releases what it holds, leaves the group
			c.run(ctx)
		})
	}
	return nil
}

// shareReadyTimeout bounds the wait for the share group at start: past it
// the probe produces anyway, and the first records' delivery latency shows
// the group's start.
const shareReadyTimeout = time.Minute

// waitShareReady waits until the share group's members are assigned every
// partition of the topic and the broker describes the group's offsets on
// each (the share partitions exist), so that the first records are
// delivered at once, not after the group's start: seconds on a new group
// (the assignment follows group.share.assignment.interval.ms).
func (p *Probe) waitShareReady(ctx context.Context) {
	group := p.cfg.Consumer.Share.GroupID
	ctx, cancel := context.WithTimeout(ctx, shareReadyTimeout)
	defer cancel()
	start := time.Now()
	for {
		assigned, described, err := p.shareStarted(ctx, group)
		if n := int(p.partitions.Load()); n > 0 && assigned >= n && described >= n {
			p.logger.Info("share group assigned", "group", group, "partitions", n, "after", time.Since(start).Round(time.Millisecond))
			return
		}
		if !sleep(ctx, 100*time.Millisecond) {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				p.logger.Warn("the share group is not assigned every partition; producing anyway", "group", group,
					"assigned", assigned, "described", described, "err", err)
			}
			return
		}
	}
}

// shareStarted counts the topic's partitions assigned to a member of the
// group, and those the group's offsets describe.
func (p *Probe) shareStarted(ctx context.Context, group string) (assigned, described int, err error) {
	groups, err := p.admin.DescribeShareGroups(ctx, group)
	if err == nil {
		err = groups.Error()
	}
	if err != nil {
		return 0, 0, err
	}
	parts := map[int32]bool{}
	for _, m := range groups[group].Members {
		for part := range m.Assignment[p.cfg.Topic] {
			parts[part] = true
		}
	}
	offsets, err := p.admin.DescribeShareGroupOffsets(ctx, group)
	if err == nil {
		err = offsets.Error()
	}
	if err != nil {
		return len(parts), 0, err
	}
	for _, o := range offsets[group].Offsets[p.cfg.Topic] {
		if o.Err == nil {
			described++
		}
	}
	return len(parts), described, nil
}

// expireShare settles the records whose grace is over: lost or archived.
func (p *Probe) expireShare(now time.Time) {
	if p.share == nil {
		return
	}
	u := p.share.SettleUnknown(now)
	p.ev.ShareUnknown(tracker.UnknownApplied, u.Accepted+u.ArchivedReject+u.ArchivedLimit)
	p.ev.ShareArchived(true, u.ArchivedReject)
	lost, archived := p.share.Expire(now)
	p.ev.Anomaly(event.Lost, lost)
	p.ev.ShareArchived(false, archived+u.ArchivedLimit)
}

// updateShareLag sets the share group's lag (the broker's share-partition
// lag) and its member count; a value that cannot be read is dropped.
func (p *Probe) updateShareLag(ctx context.Context) {
	group := p.cfg.Consumer.Share.GroupID
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.LagInterval))
	defer cancel()
	offsets, err := p.admin.DescribeShareGroupOffsets(ctx, group)
	lag, known := int64(0), err == nil
	if known {
		if err = offsets.Error(); err != nil {
			known = false
		}
	}
	if known {
		parts := 0
		for _, o := range offsets[group].Offsets[p.cfg.Topic] {
			if o.Err != nil || o.Lag < 0 {
				known = false
				break
			}
			parts++
			lag += o.Lag
		}
		known = known && parts > 0
	}
	lagGauge := event.Gauge{Value: float64(lag), Known: known}
	if !known {
		p.logger.Debug("share group lag unknown", "err", err)
	}
	groups, err := p.admin.DescribeShareGroups(ctx, group)
	if err == nil {
		err = groups.Error()
	}
	if err != nil {
		p.logger.Debug("describing the share group failed", "err", err)
		p.ev.ShareGroup(lagGauge, event.Gauge{})
		return
	}
	p.ev.ShareGroup(lagGauge, event.Gauge{Value: float64(len(groups[group].Members)), Known: true})
}

// ShareFault is the action the fault knobs choose for a record on its first
// delivery: a fraction release_fraction of the sequence numbers is
// released, the next reject_fraction rejected, the rest accepted. The
// choice is a hash of partition and seq, so it is the same in every member
// and a test can count it.
func ShareFault(f config.ShareFaults, partition int32, seq uint64) tracker.ShareAction {
	if f.ReleaseFraction == 0 && f.RejectFraction == 0 {
		return tracker.Accept
	}
	x := splitmix(uint64(uint32(partition))<<48 ^ seq)
	u := float64(x>>11) / (1 << 53) // uniform in [0, 1)
	switch {
	case u < f.ReleaseFraction:
		return tracker.Release
	case u < f.ReleaseFraction+f.RejectFraction:
		return tracker.Reject
	}
	return tracker.Accept
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// shareMember is one member of the probe's share group, with its own
// client.
//
// Its acknowledgements ride its client's next share fetch; it does not
// wait for the broker's answer before polling again. The answer is matched
// to what it acknowledged by partition: the client sends a partition's
// queued acknowledgements whole in its next request and reports the
// broker's answer per partition and request, in order, and the broker
// applies a partition's acknowledgements of one request all or none. So
// while at most one set of a partition's acknowledgements awaits its
// answer, the partition's next answer is that set's. A member answers a
// poll's records of a partition only once the partition's previous set was
// answered (normally at once: its answer came with the fetch that brought
// the poll), and a poll's records of one partition go in one call per
// action. What cannot be matched (a set not answered in time, an answer
// for a partition with two sets waiting, an answer for none) is of unknown
// outcome: the share tracker settles it by what the group delivers next.
type shareMember struct {
	runDeps
	index  int
	client *kgo.Client
	// logger is the probe's, with the member's index (it shadows
	// runDeps').
	logger *slog.Logger
	// ackTimeout bounds the wait for the broker's answer to a set
	// (shareAckTimeout).
	ackTimeout time.Duration

	lastHold time.Time

	mu sync.Mutex
	// out: per partition, the sets sent and not answered, oldest first.
	out map[int32][]*ackSet
	// changed is closed (and replaced) at every answer.
	changed chan struct{}
	// unmatched: an answer could not be matched to a set; until every
	// acknowledgement sent was answered (FlushAcks), new sets' outcomes
	// are unknown.
	unmatched bool
	// refused: the sets refused since every acknowledgement was last
	// answered, by partition: an answer with no set of its partition
	// waiting is the rest of one the client split (part of it dropped
	// before sending), and makes its outcome unknown.
	refused map[int32]*ackSet
	// strays counts the answers that matched no set sent.
	strays uint64
}

// ackSet is one partition's answers of one poll with one action, sent in one
// call.
type ackSet struct {
	partition int32
	action    tracker.ShareAction
	answers   []answer // the own run's records (the others are not accounted)
	// records, first and last are the set's records (every run's) and
	// their lowest and highest offsets, for the debug log.
	records     int
	first, last int64
	sent        time.Time
	// unknown: its outcome was noted unknown (no answer in time); its
	// answer, when it comes, settles it.
	unknown bool
	// unmatched: its answer cannot be told from another set's; it stays
	// unknown.
	unmatched bool
}

// debugSet logs msg about set s at debug level, with more attributes; the
// attributes are built only when debug is on (a set per partition and
// poll).
func (c *shareMember) debugSet(msg string, s *ackSet, more ...any) {
	if !c.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	c.logger.Debug(msg, append([]any{"partition", s.partition, "action", ackStatus(s.action), "records", s.records,
		"first_offset", s.first, "last_offset", s.last}, more...)...)
}

// answer is the probe's acknowledgement of one delivered record.
type answer struct {
	r         *kgo.Record
	own       bool // a record of the own run, accounted
	partition int32
	seq       uint64
	count     int32 // the broker's delivery count
	action    tracker.ShareAction
}

func newShareMember(deps runDeps, index int) *shareMember {
	return &shareMember{runDeps: deps, index: index, logger: deps.logger.With("member", index), ackTimeout: shareAckTimeout,
		out: map[int32][]*ackSet{}, changed: make(chan struct{}), refused: map[int32]*ackSet{}}
}

// onAck matches the broker's answers to the sets sent (ShareAckCallback).
func (c *shareMember) onAck(_ *kgo.Client, rs kgo.ShareAckResults) {
	now := c.clk.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rs {
		if r.Topic != c.cfg.Topic {
			continue
		}
		q := c.out[r.Partition]
		if len(q) == 0 {
			c.strays++
			c.logger.Debug("a share acknowledgement's answer matches no set sent", "partition", r.Partition, "err", r.Err, "answers_matching_no_set", c.strays)
			if s := c.refused[r.Partition]; s != nil {
				delete(c.refused, r.Partition)
				c.noteUnknown(s, now, "an answer for no set after its refusal: part of it may have been applied")
			}
			c.unmatched = true
			continue
		}
		s := q[0]
		q = q[1:]
		c.debugSet("share acknowledgements answered", s, "err", r.Err, "after", now.Sub(s.sent), "sets_behind", len(q))
		if len(q) == 0 {
			delete(c.out, r.Partition)
		} else {
			// The answer may cover the sets behind too (sent in one
			// request): theirs cannot be matched.
			c.out[r.Partition] = q
			for _, t := range q {
				c.noteUnknown(t, now, "sent before the previous set's answer")
				t.unmatched = true
			}
			c.unmatched = true
		}
		c.settle(s, r.Err, now)
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// settle accounts the broker's answer to set s: err nil is applied, an
// invalid record state refused, any other error of unknown outcome.
func (c *shareMember) settle(s *ackSet, err error, now time.Time) {
	if s.unmatched {
		return
	}
	o := tracker.AckApplied
	switch {
	case err == nil:
		c.ev.ShareAckLatency(now.Sub(s.sent))
	case errors.Is(err, kerr.InvalidRecordState):
		o = tracker.AckRefused
		c.refused[s.partition] = s
		c.logger.Debug("share acknowledgement refused", "partition", s.partition, "err", err)
	default:
		o = tracker.AckUnknown
		c.logger.Debug("share acknowledgement's outcome unknown", "partition", s.partition, "err", err)
	}
	for _, a := range s.answers {
		if o != tracker.AckUnknown {
			c.ev.ShareAcked(a.action, o == tracker.AckApplied)
		}
		c.account(c.share.Acknowledged(a.partition, a.seq, a.count, a.action, o, now), a.action)
	}
}

// noteUnknown notes the outcome of set s unknown, once, for reason.
func (c *shareMember) noteUnknown(s *ackSet, now time.Time, reason string) {
	if s.unknown {
		return
	}
	c.debugSet("share acknowledgements' outcome unknown", s, "reason", reason)
	s.unknown = true
	for _, a := range s.answers {
		c.account(c.share.Acknowledged(a.partition, a.seq, a.count, a.action, tracker.AckUnknown, now), a.action)
	}
}

// account counts what an answer settled.
func (c *shareMember) account(conf tracker.Confirmation, a tracker.ShareAction) {
	if conf.Archived {
		c.ev.ShareArchived(a == tracker.Reject, 1)
	}
	if conf.Unknown != tracker.UnknownUnresolved {
		c.ev.ShareUnknown(conf.Unknown, 1)
	}
}

// run polls until ctx is cancelled; each poll's records are answered
// before the next poll, their acknowledgements ride the next fetch. The
// caller closes the client.
func (c *shareMember) run(ctx context.Context) {
	for ctx.Err() == nil {
		if c.held.Load() {
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		// Every record the client holds: a share fetch's records in one
		// poll, answered in one set per partition that rides the next
		// fetch. (A poll of part of a fetch would leave the rest
		// buffered, and the client fetches, and sends the poll's
		// answers, only once it is taken: the member would wait for
		// the answer of a set not sent yet. The fetch's size is
		// consumer.max.poll.records, kclient.ShareConsumerOpts.)
		pollCtx, cancel := context.WithTimeout(ctx, sharePollWait)
		fetches := c.client.PollRecords(pollCtx, 0)
		cancel()
		if fetches.IsClientClosed() || ctx.Err() != nil {
			return
		}
		fetches.EachError(func(_ string, partition int32, err error) {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				c.errs.fetch(partition, err)
			}
		})
		now := c.clk.now()
		answers := c.process(fetches, now)
		if len(answers) == 0 {
			continue
		}
		if c.holdDue(now) && !sleep(ctx, time.Duration(c.cfg.Consumer.Share.Faults.Hold)) {
			return // closing releases the held records
		}
		if !c.acknowledge(ctx, answers) {
			return
		}
	}
}

// holdDue says member 0 is to hold this poll's records (faults.hold).
func (c *shareMember) holdDue(now time.Time) bool {
	f := c.cfg.Consumer.Share.Faults
	if c.index != 0 || f.Hold <= 0 || (!c.lastHold.IsZero() && now.Sub(c.lastHold) < time.Duration(f.HoldInterval)) {
		return false
	}
	c.lastHold = now
	c.logger.Info("holding a poll's records past the record lock (faults.hold)", "hold", f.Hold)
	return true
}

// process accounts one poll's records and chooses each one's answer.
func (c *shareMember) process(fetches kgo.Fetches, now time.Time) []answer {
	var answers []answer
	delivered := 0
	fetches.EachRecord(func(r *kgo.Record) {
		if r.Attrs.IsControl() {
			// A transaction's marker (kclient keeps them): no
			// delivery, but acknowledged with the records, so that
			// the client sends no acknowledgement of its own.
			answers = append(answers, answer{r: r, partition: r.Partition, action: tracker.Accept})
			return
		}
		delivered++
		e := event.ShareDelivery{Now: now, Bytes: len(r.Value), DeliveryCount: r.DeliveryCount()}
		a := answer{r: r, partition: r.Partition, action: tracker.Accept}
		h, err := payload.Decode(r.Value)
		switch {
		case err != nil || h.Partition != r.Partition || h.RunID != c.runID:
			// A foreign record, or another run's (a consume-only
			// bench reads a pre-filled topic): counted once, at its
			// first delivery.
			if err != nil || h.Partition != r.Partition {
				e.Foreign = true
			} else {
				e.ID = RecordID{Run: h.RunID, Partition: h.Partition, Seq: h.Seq}
			}
		default:
			a.own, a.seq, a.count = true, h.Seq, r.DeliveryCount()
			d := c.share.Deliver(r.Partition, h.RunID, h.Seq, a.count, now)
			e.Own, e.ID = true, RecordID{Run: h.RunID, Partition: h.Partition, Seq: h.Seq}
			e.First, e.Redelivery, e.Cause, e.Duplicate = d.First, d.Redelivery, d.Cause, d.Duplicate
			if d.Redelivery || d.Duplicate {
				c.logger.Debug("share record delivered again", "partition", r.Partition, "offset", r.Offset, "delivery_count", a.count,
					"cause", d.Cause, "duplicate", d.Duplicate, "settles_unknown_as_not_applied", d.UnknownNotApplied)
			}
			if d.First {
				e.Latency = since(h.Intended, now)
				a.action = ShareFault(c.cfg.Consumer.Share.Faults, r.Partition, h.Seq)
			}
			if d.UnknownNotApplied {
				c.ev.ShareUnknown(tracker.UnknownNotApplied, 1)
			}
		}
		c.ev.ShareDelivered(e)
		answers = append(answers, a)
	})
	if n := delivered; n > 0 {
		c.ev.Polled(n)
		c.live.consumed(now)
	}
	return answers
}

// shareActions are the actions in the order a poll's answers are sent.
var shareActions = [...]tracker.ShareAction{tracker.Accept, tracker.Release, tracker.Reject}

// acknowledge sends one poll's answers, one call per action, each
// partition's once its previous set was answered; false when ctx ended.
func (c *shareMember) acknowledge(ctx context.Context, answers []answer) bool {
	if c.mustSync() && !c.sync(ctx) {
		return false
	}
	var byAction [len(shareActions)][]answer
	for _, a := range answers {
		for i, act := range shareActions {
			if a.action == act {
				byAction[i] = append(byAction[i], a)
			}
		}
	}
	sent := false
	for i, group := range byAction {
		if len(group) == 0 {
			continue
		}
		if sent && !c.sync(ctx) {
			// A partition's answers of two actions would wait
			// together: every set sent is answered first.
			return false
		}
		if !c.send(ctx, shareActions[i], group) {
			return false
		}
		sent = true
	}
	return true
}

func (c *shareMember) mustSync() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unmatched
}

// sync waits until every acknowledgement sent was answered (bounded by
// shareAckTimeout); the answers then matched to no set were the sets'
// still waiting, whose outcome stays unknown. False when ctx ended.
func (c *shareMember) sync(ctx context.Context) bool {
	fctx, cancel := context.WithTimeout(ctx, c.ackTimeout)
	err := c.client.FlushAcks(fctx)
	cancel()
	if ctx.Err() != nil {
		return false
	}
	now := c.clk.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.logger.Debug("waiting for the share acknowledgements' answers failed", "err", err)
		return true // still unmatched: the next sets are of unknown outcome
	}
	for p, q := range c.out {
		for _, s := range q {
			c.noteUnknown(s, now, "every acknowledgement was answered, none matched to it")
		}
		delete(c.out, p)
	}
	c.unmatched = false
	clear(c.refused)
	return true
}

// send sends the answers with action act, once each partition's previous
// set was answered or its wait is over; false when ctx ended.
func (c *shareMember) send(ctx context.Context, act tracker.ShareAction, answers []answer) bool {
	sets, records := ackSets(answers)
	if !c.waitAnswered(ctx, sets) {
		return false
	}
	c.queue(sets)
	c.client.MarkAcks(ackStatus(act), records...)
	return true
}

// ackSets are the answers' sets by partition, and their records.
func ackSets(answers []answer) (map[int32]*ackSet, []*kgo.Record) {
	sets := map[int32]*ackSet{}
	records := make([]*kgo.Record, 0, len(answers))
	for _, a := range answers {
		s := sets[a.partition]
		if s == nil {
			s = &ackSet{partition: a.partition, action: a.action, first: -1, last: -1}
			sets[a.partition] = s
		}
		s.records++
		if a.r != nil {
			if s.first < 0 || a.r.Offset < s.first {
				s.first = a.r.Offset
			}
			s.last = max(s.last, a.r.Offset)
		}
		if a.own {
			s.answers = append(s.answers, a)
		}
		records = append(records, a.r)
	}
	return sets, records
}

// queue notes the sets as sent: the tracker hears of their answers before
// they leave (the broker may hand a released record to another member
// before this one hears back), and they wait for the broker's answer.
func (c *shareMember) queue(sets map[int32]*ackSet) {
	for _, s := range sets {
		for _, a := range s.answers {
			c.share.Answered(a.partition, a.seq, a.count, a.action)
		}
	}
	now := c.clk.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, s := range sets {
		s.sent = now
		c.out[p] = append(c.out[p], s)
		c.debugSet("share acknowledgements queued", s, "sets_waiting", len(c.out[p])-1)
		if c.unmatched || len(c.out[p]) > 1 {
			c.noteUnknown(s, now, "sent while an answer was unmatched or another set of its partition waited")
			s.unmatched = true
			c.unmatched = true
		}
	}
}

// kickAcks makes the client send its queued acknowledgements now, without
// waiting for their answer. A set waiting for its answer normally rides
// the fetch in flight, and is answered within a round trip; but a fetch
// the broker holds (no records to hand out, up to its wait) would hold
// the answer too, and a set queued after the fetch left waits for the
// next one or its client's ack timer (a second). Kicked at once, the
// client would send every set on its own, a round trip before the next
// fetch.
func (c *shareMember) kickAcks() {
	if c.client == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = c.client.FlushAcks(ctx) // signals every broker's flush; the cancelled wait returns at once
}

// waitAnswered waits until no earlier set of the sets' partitions waits
// for its answer, at most shareAckTimeout: past it, the sets still waiting
// are of unknown outcome. False when ctx ended.
func (c *shareMember) waitAnswered(ctx context.Context, sets map[int32]*ackSet) bool {
	var timeout, kick <-chan time.Time
	for {
		c.mu.Lock()
		waiting := false
		for p := range sets {
			if len(c.out[p]) > 0 {
				waiting = true
				break
			}
		}
		changed := c.changed
		c.mu.Unlock()
		if !waiting {
			return true
		}
		if timeout == nil {
			t := time.NewTimer(c.ackTimeout)
			defer t.Stop()
			timeout = t.C
			k := time.NewTimer(shareKickAfter)
			defer k.Stop()
			kick = k.C
		}
		select {
		case <-ctx.Done():
			return false
		case <-kick:
			c.kickAcks()
		case <-changed:
		case <-timeout:
			now := c.clk.now()
			c.mu.Lock()
			for p := range sets {
				for _, s := range c.out[p] {
					c.noteUnknown(s, now, "no answer in time")
				}
			}
			c.mu.Unlock()
			return true
		}
	}
}

func ackStatus(a tracker.ShareAction) kgo.AckStatus {
	switch a {
	case tracker.Release:
		return kgo.AckRelease
	case tracker.Reject:
		return kgo.AckReject
	}
	return kgo.AckAccept
}

// shareUnsupported wraps the error of a cluster without share groups with
// the probe's name.
func (p *Probe) shareUnsupported(err error) error {
	return fmt.Errorf("probe %q: consumer.kind share: %w", p.cfg.Name, err)
}
