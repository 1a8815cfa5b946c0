package probes

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
)

// Causes of a rebalance, as one member of the probe's group observes it
// (event.RebalanceCauses).
const (
	CauseJoined          = event.CauseJoined
	CauseLost            = event.CauseLost
	CauseChurn           = event.CauseChurn
	CausePartitionsAdded = event.CausePartitionsAdded
	CauseReassigned      = event.CauseReassigned
)

// grewWithin is how long after partitions were added, or the churn member
// joined or left, a rebalance is put down to it.
const grewWithin = time.Minute

// windowsKept is how many recent rebalances a record's intended time is
// compared with for the rebalance end-to-end latency.
const windowsKept = 8

// window is one rebalance as one member saw it, on the probe's clock;
// end is zero while it lasts.
type window struct{ start, end time.Time }

// rebalances is a probe's view of its group's rebalances, shared by its
// consumers: the protocol in use and the recent rebalance windows.
type rebalances struct {
	configured string
	ev         *event.Hooks
	protocol   atomic.Pointer[string] // as described; nil: not yet known
	// stale says the protocol is to be described (again): until the first
	// answer, and after each rebalance, the only time it can change (a
	// member's join); between rebalances the group is not asked.
	stale   atomic.Bool
	grewAt  atomic.Int64 // unix nanoseconds (probe clock) of the last partitions added
	churnAt atomic.Int64 // of the churn member's last join or leave

	mu      sync.Mutex
	windows atomic.Pointer[[]*window] // copy on write: read per record
	// orphans are the open windows of members that left the group (the
	// churn member), under mu: closed with the last open window of the
	// members that stay (close).
	orphans []*window
}

func newRebalances(p config.Probe, ev *event.Hooks) *rebalances {
	r := &rebalances{configured: p.Consumer.GroupProtocol, ev: ev}
	r.windows.Store(&[]*window{})
	r.stale.Store(true)
	return r
}

// inUse is the protocol of the group as last described, else the
// configured one.
func (r *rebalances) inUse() string {
	if p := r.protocol.Load(); p != nil {
		return *p
	}
	return r.configured
}

// described records the protocol the coordinator runs the group with.
func (r *rebalances) described(protocol string) {
	if old := r.protocol.Load(); old != nil && *old == protocol {
		return
	}
	r.protocol.Store(&protocol)
	r.ev.GroupProtocol(protocol)
}

// describeGroup asks the coordinator which protocol the probe's group
// runs (kclient.GroupProtocol) while that is stale; a group not found yet,
// or a failed request, leaves the last answer and asks again next time.
func (p *Probe) describeGroup(ctx context.Context) {
	if !p.cfg.Consumer.Enabled || !p.reb.stale.Swap(false) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.LagInterval))
	defer cancel()
	protocol, err := kclient.GroupProtocol(ctx, p.admin, p.cfg.Consumer.GroupID)
	if err != nil || protocol == "" {
		p.reb.stale.Store(true)
		if err != nil {
			p.logger.Debug("describing the consumer group failed", "err", err)
		}
		return
	}
	p.reb.described(protocol)
}

// grew notes partitions added at now.
func (r *rebalances) grew(now time.Time) { r.grewAt.Store(now.UnixNano()) }

func (r *rebalances) open(start time.Time) *window {
	w := &window{start: start}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.windows.Load()
	ws := append(make([]*window, 0, windowsKept), old[max(0, len(old)-windowsKept+1):]...)
	ws = append(ws, w)
	r.windows.Store(&ws)
	return w
}

// close ends w at end, and, when no window of a member that stays is open
// any more, those of the members that left (orphans): the rebalance their
// leave began is over once every member that stays has records again
// after its callbacks.
func (r *rebalances) close(w *window, end time.Time) {
	r.stale.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.windows.Load()
	ending := map[*window]bool{w: true}
	orphan := map[*window]bool{}
	for _, o := range r.orphans {
		orphan[o] = true
	}
	open := false
	for _, x := range old {
		open = open || (x != w && x.end.IsZero() && !orphan[x])
	}
	if !open {
		for _, o := range r.orphans {
			ending[o] = true
		}
		r.orphans = nil
	}
	ws := make([]*window, len(old))
	for i, x := range old {
		if ending[x] {
			x = &window{start: x.start, end: end}
		}
		ws[i] = x
	}
	r.windows.Store(&ws)
}

// orphan hands w, the open window of a member that left the group, to
// the members that stay (close); with dropped true (the member held no
// partitions, so nothing waits for its leave) it is taken out.
func (r *rebalances) orphan(w *window, dropped bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !dropped {
		r.orphans = append(r.orphans, w)
		return
	}
	old := *r.windows.Load()
	ws := make([]*window, 0, len(old))
	for _, x := range old {
		if x != w {
			ws = append(ws, x)
		}
	}
	r.windows.Store(&ws)
}

// during says whether intended (unix nanoseconds, the probe's clock) falls
// within a recent rebalance.
func (r *rebalances) during(intended int64) bool {
	for _, w := range *r.windows.Load() {
		if intended >= w.start.UnixNano() && (w.end.IsZero() || intended <= w.end.UnixNano()) {
			return true
		}
	}
	return false
}

// member follows the rebalances of one consumer of the group. Its
// callbacks run on franz-go's goroutine, consumed on the poll loop's.
type member struct {
	r   *rebalances
	clk clock

	churn bool // the churn member itself: its own moves are not churn's effect

	mu     sync.Mutex
	joined bool
	active *window // the rebalance under way; nil: none
	cause  string
	// revoked is how many partitions its last revoke or lost callback
	// took: when it leaves the group, those it held.
	revoked int
}

func newMember(r *rebalances, clk clock, churn bool) *member {
	return &member{r: r, clk: clk, churn: churn}
}

func (mb *member) callbacks(onRevoked func(context.Context, *kgo.Client, map[string][]int32)) (assigned, revoked, lost func(context.Context, *kgo.Client, map[string][]int32)) {
	assigned = func(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
		mb.r.ev.Partitions(count(parts), 0, 0)
		mb.begin(false)
	}
	revoked = func(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
		mb.r.ev.Partitions(0, count(parts), 0)
		mb.setRevoked(count(parts))
		mb.begin(false)
		onRevoked(ctx, cl, parts)
	}
	lost = func(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
		mb.r.ev.Partitions(0, 0, count(parts))
		mb.setRevoked(count(parts))
		mb.begin(true)
	}
	return assigned, revoked, lost
}

func count(parts map[string][]int32) int {
	n := 0
	for _, ps := range parts {
		n += len(ps)
	}
	return n
}

// begin starts a rebalance at the member's first callback of it; later
// callbacks of the same rebalance extend it.
func (mb *member) begin(lost bool) {
	now := mb.clk.now()
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if !mb.joined {
		mb.joined = true
		mb.r.ev.Rebalance(event.Rebalance{Protocol: mb.r.inUse(), Cause: CauseJoined})
		return
	}
	if mb.active != nil {
		if lost {
			mb.cause = CauseLost
		}
		return
	}
	switch {
	case lost:
		mb.cause = CauseLost
	case !mb.churn && now.Sub(time.Unix(0, mb.r.churnAt.Load())) < grewWithin:
		mb.cause = CauseChurn
	case now.Sub(time.Unix(0, mb.r.grewAt.Load())) < grewWithin:
		mb.cause = CausePartitionsAdded
	default:
		mb.cause = CauseReassigned
	}
	mb.active = mb.r.open(now)
}

func (mb *member) setRevoked(n int) {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	mb.revoked = n
}

// left is called once the member left the group (its client closed, which
// revokes what it held): the rebalance it began is not its to end, as it
// reads no more. It is ended by the members that stay, or dropped where it
// held no partitions. Not counted: the member saw no end of it.
func (mb *member) left() {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if mb.active == nil {
		return
	}
	mb.r.orphan(mb.active, mb.revoked == 0)
	mb.active = nil
}

// churn runs consumer.churn until ctx ends: every interval one more
// member joins the group, reads and commits as the others do, and leaves
// after duration.
func (p *Probe) churn(ctx context.Context) {
	ch := p.cfg.Consumer.Churn
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(ch.Interval - ch.Duration)):
		}
		c, err := p.newConsumer(p.cfg.Consumer.Consumers, true)
		if err != nil {
			p.logger.Warn("the churn member could not be built", "err", err)
			continue
		}
		p.reb.churnAt.Store(p.clk.now().UnixNano())
		memberCtx, cancel := context.WithTimeout(ctx, time.Duration(ch.Duration))
		c.run(memberCtx)
		cancel()
		p.reb.churnAt.Store(p.clk.now().UnixNano())
		c.client.Close() // leaves the group
		c.member.left()
	}
}

// consumed ends a rebalance under way: the member has records again. A
// consumer without a member (built by a test) follows none.
func (mb *member) consumed(now time.Time) {
	if mb == nil {
		return
	}
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if mb.active == nil {
		return
	}
	mb.r.ev.Rebalance(event.Rebalance{Protocol: mb.r.inUse(), Cause: mb.cause, Took: now.Sub(mb.active.start)})
	mb.r.close(mb.active, now)
	mb.active = nil
}
