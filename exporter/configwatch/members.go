package configwatch

import (
	"context"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Between the configuration polls, the cluster's members are watched
// closely: a broker that restarts leaves the metadata (fenced) for seconds.
const (
	// membersInterval is how often a Metadata request lists the brokers.
	membersInterval = 2 * time.Second
	// membersTimeout bounds one such request.
	membersTimeout = 3 * time.Second
)

// members is what the watcher knows of each broker between polls.
type members struct {
	listed map[int32]bool      // in the last Metadata answer; nil before the first
	ever   map[int32]bool      // listed once at least
	goneAt map[int32]time.Time // left the metadata, not back yet
	// restartSeen holds, per broker, when its return from a restart was
	// counted: until a poll that began after it tells the broker's release,
	// a release change is that restart, not a second one.
	restartSeen map[int32]time.Time
	racks       map[int32]string
	versions    map[int32]string // last release seen
}

func newMembers() *members {
	return &members{ever: map[int32]bool{}, goneAt: map[int32]time.Time{}, restartSeen: map[int32]time.Time{},
		racks: map[int32]string{}, versions: map[int32]string{}}
}

// awaitingRelease tells whether a broker back from a restart, and still
// listed, has not answered ApiVersions since (its first requests after the
// return can fail while the client reconnects).
func (m *members) awaitingRelease() bool {
	for id := range m.restartSeen {
		if m.listed[id] {
			return true
		}
	}
	return false
}

// connHook nudges the member watch when a connection to a broker drops or
// cannot be made: a broker going down is seen at once, not at the next
// tick.
type connHook struct{ nudge chan<- struct{} }

func (h connHook) OnBrokerDisconnect(kgo.BrokerMetadata, net.Conn) { h.poke() }

func (h connHook) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err != nil {
		h.poke()
	}
}

func (h connHook) poke() {
	select {
	case h.nudge <- struct{}{}:
	default:
	}
}

// watchMembers lists the brokers every membersInterval, and soon after a
// connection dropped, asking each broker in turn so that the client keeps
// a connection to every one (its drop is the first sign of a restart). A
// broker that came back asks for a configuration poll at once (pollNow):
// its release and configuration, as it restarted with them.
func (w *Watcher) watchMembers(ctx context.Context, gen uint64, cl *kgo.Client, nudge <-chan struct{}, pollNow chan<- struct{}) {
	defer w.wg.Done()
	tick := time.NewTicker(membersInterval)
	defer tick.Stop()
	next := 0
	var ids []int32
	for {
		ids, next = w.listMembers(ctx, gen, cl, ids, next, pollNow)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-nudge:
			// The connection dropped as the broker began its shutdown; it
			// leaves the metadata a moment later.
			select {
			case <-ctx.Done():
				return
			case <-time.After(membersInterval / 4):
			}
		}
	}
}

// listMembers sends one Metadata request, to the broker after the last
// one asked, and observes its answer.
func (w *Watcher) listMembers(ctx context.Context, gen uint64, cl *kgo.Client, ids []int32, next int, pollNow chan<- struct{}) ([]int32, int) {
	rctx, cancel := context.WithTimeout(ctx, membersTimeout)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	var resp *kmsg.MetadataResponse
	var err error
	if len(ids) > 0 {
		next %= len(ids)
		resp, err = req.RequestWith(rctx, cl.Broker(int(ids[next])))
		next++
	}
	if len(ids) == 0 || err != nil {
		resp, err = req.RequestWith(rctx, cl) // any broker that answers
	}
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		return ids, next // the configuration poll reports failures
	}
	listed := make([]int32, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		listed = append(listed, b.NodeID)
	}
	slices.Sort(listed)
	if w.observeMembers(gen, time.Now(), listed) {
		select {
		case pollNow <- struct{}{}:
		default:
		}
	}
	return listed, next
}

// observeMembers compares the brokers listed with the last list: one gone
// is logged, recorded for /changes and loses its kafka_bench_broker_info
// series; one back counts a restart. It reports whether one came back.
func (w *Watcher) observeMembers(gen uint64, now time.Time, listed []int32) (back bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gen != w.gen {
		return false
	}
	m := w.members
	cur := map[int32]bool{}
	for _, id := range listed {
		cur[id] = true
	}
	if m.listed == nil {
		m.listed = cur
		for id := range cur {
			m.ever[id] = true
		}
		return false
	}
	changed := false
	for _, id := range slices.Sorted(maps.Keys(m.listed)) {
		if cur[id] {
			continue
		}
		changed = true
		m.goneAt[id] = now
		b := idLabel(id)
		w.logger.Warn("broker left the cluster metadata (stopped, restarting or fenced)", "broker", b)
		w.record(now, Change{Resource: KindBroker, Broker: b}, []KeyChange{{Key: "registered", Old: "true", New: "false"}})
	}
	for _, id := range listed {
		if m.listed[id] {
			continue
		}
		changed = true
		b := idLabel(id)
		if !m.ever[id] {
			m.ever[id] = true
			w.logger.Info("broker joined the cluster metadata", "broker", b)
			w.record(now, Change{Resource: KindBroker, Broker: b}, []KeyChange{{Key: "registered", Old: "false", New: "true"}})
			back = true
			continue
		}
		args := []any{"broker", b}
		if at, ok := m.goneAt[id]; ok {
			args = append(args, "away_seconds", now.Sub(at).Seconds())
		}
		delete(m.goneAt, id)
		w.logger.Info("broker back in the cluster metadata: a restart", args...)
		w.record(now, Change{Resource: KindBroker, Broker: b}, []KeyChange{{Key: "registered", Old: "false", New: "true"}})
		w.m.brokerRestarts.WithLabelValues(b).Inc()
		m.restartSeen[id] = now
		back = true
	}
	m.listed = cur
	if changed {
		w.setBrokerInfo(listed)
	}
	return back
}
