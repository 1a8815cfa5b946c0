// Package configwatch notices configuration changes of the cluster the
// probes measure. Every config_poll_interval it describes every broker's
// configuration and each probe topic's, and reads the cluster facts (broker
// ids and racks, the active controller, the cluster id, the Kafka version).
// A change becomes a metric change (a new hash label, a counter), one INFO
// log line per key (old → new) and an entry of GET /changes, so that graphs
// can carry a marker where the configuration changed. Values Kafka marks
// sensitive are never printed, hashed or exposed.
package configwatch

import (
	"context"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/backoff"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// retryDelay is how soon a poll is repeated when a probe topic did not
// exist yet (the probe is creating it), so its series appear with the
// probe's, not one interval later. While the topic stays missing the wait
// doubles, up to the interval: a topic that never comes (create_topic off)
// costs no more than the interval's polls.
const retryDelay = time.Second

// nextWait is the wait before the next poll after missing polls in a row
// found a probe topic missing (0: none was).
func nextWait(interval time.Duration, missing int) time.Duration {
	if missing < 1 {
		return interval
	}
	return backoff.Exp{First: retryDelay, Max: interval}.After(missing)
}

// ProbeTopic is the topic of one probe.
type ProbeTopic struct {
	Probe, Topic string
}

// Target is what the watcher polls.
type Target struct {
	Kafka    config.Cluster
	Topics   []ProbeTopic
	Interval time.Duration // 0: polling off
}

// Options configure a Watcher.
type Options struct {
	// RingSize is how many changes /changes keeps; 0 is DefaultRingSize.
	RingSize int
	// Credentials are shared with the process's other clients of the
	// cluster (one OAuth token for all); nil gives the watcher its own.
	Credentials *kclient.CredentialPool
}

// Watcher polls the cluster configuration while a target is applied.
type Watcher struct {
	logger   *slog.Logger
	m        *metrics
	ring     *Ring
	opts     Options
	releases map[int16]string
	wg       sync.WaitGroup

	mu      sync.Mutex
	target  Target
	gen     uint64 // results of an older generation's poll are dropped
	cancel  context.CancelFunc
	cluster *facts // nil before the first poll of this cluster
	members *members
	brokers map[int32]resource
	topics  map[ProbeTopic]resource
	failure string // what the last WARN was about; "" while polls succeed
}

// resource is the last configuration seen of a broker or topic.
type resource struct {
	configs Configs
	hash    string
}

// New registers the configuration metrics on reg. Nothing is polled before
// Apply.
func New(reg prometheus.Registerer, logger *slog.Logger, opts Options) *Watcher {
	if opts.RingSize <= 0 {
		opts.RingSize = DefaultRingSize
	}
	return &Watcher{
		logger:   logger,
		m:        newMetrics(reg),
		ring:     NewRing(opts.RingSize),
		opts:     opts,
		releases: releasesByMetadataVersion(),
		members:  newMembers(),
		brokers:  map[int32]resource{},
		topics:   map[ProbeTopic]resource{},
	}
}

// Changes serves GET /changes.
func (w *Watcher) Changes() http.Handler { return w.ring }

// Apply starts polling t, replacing the previous target. It does not wait
// for a poll in flight: its results are dropped. Another cluster (different
// kafka settings) starts from a clean slate; a removed probe's topic series
// go away. ctx bounds the polling.
func (w *Watcher) Apply(ctx context.Context, t Target) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil && reflect.DeepEqual(t, w.target) {
		return
	}
	wasRunning := w.cancel != nil
	w.stopLocked()
	if !reflect.DeepEqual(t.Kafka, w.target.Kafka) || t.Interval <= 0 {
		w.cluster, w.failure = nil, ""
		w.members = newMembers()
		w.brokers, w.topics = map[int32]resource{}, map[ProbeTopic]resource{}
		w.m.reset()
	}
	keep := map[ProbeTopic]bool{}
	for _, pt := range t.Topics {
		keep[pt] = true
	}
	for pt := range w.topics {
		if !keep[pt] {
			delete(w.topics, pt)
			w.m.topicChanges.DeleteLabelValues(pt.Probe, pt.Topic)
			w.m.topicInfo.DeletePartialMatch(prometheus.Labels{"probe": pt.Probe, "topic": pt.Topic})
		}
	}
	if t.Interval <= 0 {
		if wasRunning {
			w.logger.Info("configuration polling off (config_poll_interval: 0)")
		}
		w.target = t
		return
	}
	w.target = t
	pctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	w.wg.Add(1)
	go w.run(pctx, w.gen, t)
}

// Stop stops polling and waits for the poller to return.
func (w *Watcher) Stop() {
	w.mu.Lock()
	w.stopLocked()
	w.mu.Unlock()
	w.wg.Wait()
}

func (w *Watcher) stopLocked() {
	if w.cancel != nil {
		w.cancel()
		w.cancel = nil
	}
	w.gen++
}

func (w *Watcher) run(ctx context.Context, gen uint64, t Target) {
	defer w.wg.Done()
	nudge := make(chan struct{}, 1)
	cl, err := kclient.New(t.Kafka, kclient.Options{Credentials: w.opts.Credentials}, kgo.WithHooks(connHook{nudge}))
	if err != nil {
		w.logger.Error("configuration polling disabled: cannot create a Kafka client", "err", err)
		return
	}
	defer cl.Close()
	pollNow := make(chan struct{}, 1)
	w.wg.Add(1)
	go w.watchMembers(ctx, gen, cl, nudge, pollNow)
	topics := make([]string, 0, len(t.Topics))
	for _, pt := range t.Topics {
		topics = append(topics, pt.Topic)
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	missing := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-pollNow: // a broker came back: its version and configuration now
			if !timer.Stop() {
				<-timer.C
			}
		}
		start := time.Now()
		s := poll(ctx, cl, topics, w.releases)
		if ctx.Err() != nil {
			return
		}
		if w.observe(gen, time.Now(), time.Since(start), s) {
			missing++
		} else {
			missing = 0
		}
		timer.Reset(nextWait(t.Interval, missing))
	}
}

// observe applies one poll's results; it reports whether to poll again soon:
// a probe topic is missing, or a broker back from a restart has not told
// its release yet.
func (w *Watcher) observe(gen uint64, now time.Time, took time.Duration, s snapshot) (soon bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gen != w.gen {
		return false
	}
	w.logger.Debug("configuration polled", "brokers", len(s.brokers), "topics", len(s.topics), "took", took, "ok", s.err == nil)
	w.m.pollDuration.WithLabelValues().Set(took.Seconds())
	w.m.pollSuccess.WithLabelValues().Set(map[bool]float64{true: 1}[s.err == nil])
	w.noteFailure(s)
	for _, k := range []Kind{KindCluster, KindBroker, KindTopic} {
		w.m.describeFailed.WithLabelValues(string(k)).Add(float64(s.failed[k]))
	}
	if s.facts != nil {
		w.observeCluster(now, now.Add(-took), s.facts)
	}
	for _, id := range slices.Sorted(maps.Keys(s.brokers)) {
		w.observeBroker(now, id, s.brokers[id])
	}
	for _, pt := range w.target.Topics {
		if c, ok := s.topics[pt.Topic]; ok {
			w.observeTopic(now, pt, c)
		}
	}
	return s.missingTopics || w.members.awaitingRelease()
}

// noteFailure logs a failing poll once, at WARN, and its recovery; the
// polls in between log at DEBUG, so a denied DescribeConfigs gives one line.
func (w *Watcher) noteFailure(s snapshot) {
	switch {
	case s.err == nil:
		if w.failure != "" {
			w.logger.Info("configuration poll succeeded again")
		}
		w.failure = ""
	case s.denied && w.failure != "denied":
		w.failure = "denied"
		w.logger.Warn("describing the cluster configuration was denied (ACLs or a managed cluster): "+
			"configuration changes are not tracked, kafka_bench_config_poll_success is 0; probing goes on", "err", s.err)
	case !s.denied && w.failure != "failed":
		w.failure = "failed"
		w.logger.Warn("configuration poll failed; retrying every config_poll_interval", "interval", w.target.Interval, "err", s.err)
	default:
		w.logger.Debug("configuration poll failed again", "err", s.err)
	}
}

// observeCluster applies the cluster facts of a poll that began at started.
func (w *Watcher) observeCluster(now, started time.Time, f *facts) {
	prev := w.cluster
	// Without the quorum's answer a KRaft controller is unknown (metadata
	// names a random broker): keep the last one known rather than flap.
	if f.kraft && f.quorumAPI && !f.fromQuorum {
		f.controller = -1
		if prev != nil {
			f.controller = prev.controller
		}
	}
	// No broker answered ApiVersions this time: the version did not change.
	if f.version == "" && prev != nil {
		f.version = prev.version
	}
	if prev != nil {
		var kcs []KeyChange
		for _, d := range []struct{ key, old, cur string }{
			{"cluster_id", prev.clusterID, f.clusterID},
			{"controller", idLabel(prev.controller), idLabel(f.controller)},
			{"version", prev.version, f.version},
			{"brokers", joinIDs(prev.brokers), joinIDs(f.brokers)},
		} {
			if d.old != d.cur {
				kcs = append(kcs, KeyChange{Key: d.key, Old: d.old, New: d.cur})
			}
		}
		w.record(now, Change{Resource: KindCluster}, kcs)
	}
	w.cluster = f
	version := f.version
	if version == "" {
		version = "unknown"
	}
	w.m.clusterInfo.Reset()
	w.m.clusterInfo.WithLabelValues(f.clusterID, idLabel(f.controller), version, f.finalized[metadataVersion],
		f.finalized["transaction.version"], f.finalized["share.version"]).Set(1)
	w.m.clusterBrokers.WithLabelValues().Set(float64(len(f.brokers)))
	for _, id := range f.brokers {
		w.members.racks[id] = f.racks[id]
		v, ok := f.versions[id]
		if !ok {
			continue // did not answer: as before
		}
		if old := w.members.versions[id]; old != "" && old != v {
			b := idLabel(id)
			w.record(now, Change{Resource: KindBroker, Broker: b}, []KeyChange{{Key: "version", Old: old, New: v}})
			w.m.brokerVersions.WithLabelValues(b).Inc()
			if _, counted := w.members.restartSeen[id]; !counted {
				w.m.brokerRestarts.WithLabelValues(b).Inc()
			}
		}
		w.members.versions[id] = v
		// A poll that began before the broker's return may hold the
		// release it answered before it stopped: the mark stays for the
		// next poll.
		if at, ok := w.members.restartSeen[id]; ok && !started.Before(at) {
			delete(w.members.restartSeen, id)
		}
	}
	w.setBrokerInfo(f.brokers)
}

// setBrokerInfo exports kafka_bench_broker_info for the brokers listed.
func (w *Watcher) setBrokerInfo(brokers []int32) {
	w.m.brokerRack.Reset()
	for _, id := range brokers {
		b := idLabel(id)
		w.m.brokerRack.WithLabelValues(b, w.members.racks[id], w.members.versions[id]).Set(1)
		w.m.brokerRestarts.WithLabelValues(b).Add(0)
		w.m.brokerVersions.WithLabelValues(b).Add(0)
	}
}

// observeBroker compares a broker's configuration with the last one seen.
// A broker that left the metadata keeps its last configuration and series,
// so that a change made while it was down (a server.properties edit and a
// restart) is reported when it returns.
func (w *Watcher) observeBroker(now time.Time, id int32, c Configs) {
	b := idLabel(id)
	h := c.Hash(KindBroker)
	prev, seen := w.brokers[id]
	switch {
	case !seen:
		w.m.brokerChanges.WithLabelValues(b).Add(0)
		w.m.brokerLastChange.WithLabelValues(b).Set(0)
	case prev.hash != h:
		w.record(now, Change{Resource: KindBroker, Broker: b}, Diff(KindBroker, prev.configs, c))
		w.m.brokerChanges.WithLabelValues(b).Inc()
		w.m.brokerLastChange.WithLabelValues(b).Set(float64(now.UnixNano()) / 1e9)
		w.m.brokerInfo.DeleteLabelValues(b, prev.hash)
	}
	w.m.brokerInfo.WithLabelValues(b, h).Set(1)
	w.m.setBrokerValues(b, c)
	w.brokers[id] = resource{configs: c, hash: h}
}

func (w *Watcher) observeTopic(now time.Time, pt ProbeTopic, c Configs) {
	h := c.Hash(KindTopic)
	prev, seen := w.topics[pt]
	switch {
	case !seen:
		w.m.topicChanges.WithLabelValues(pt.Probe, pt.Topic).Add(0)
	case prev.hash != h:
		w.record(now, Change{Resource: KindTopic, Probe: pt.Probe, Topic: pt.Topic}, Diff(KindTopic, prev.configs, c))
		w.m.topicChanges.WithLabelValues(pt.Probe, pt.Topic).Inc()
		w.m.topicInfo.DeleteLabelValues(pt.Probe, pt.Topic, prev.hash)
	}
	w.m.topicInfo.WithLabelValues(pt.Probe, pt.Topic, h).Set(1)
	w.topics[pt] = resource{configs: c, hash: h}
}

// record logs each changed key at INFO and keeps it for /changes. A
// sensitive key is logged without values.
func (w *Watcher) record(now time.Time, base Change, kcs []KeyChange) {
	changes := make([]Change, 0, len(kcs))
	for _, kc := range kcs {
		c := base
		c.Time = now.UTC()
		c.Key, c.OldSource, c.NewSource, c.Sensitive = kc.Key, kc.OldSource, kc.NewSource, kc.Sensitive
		args := []any{"resource", string(c.Resource)}
		switch c.Resource {
		case KindBroker:
			args = append(args, "broker", c.Broker)
		case KindTopic:
			args = append(args, "probe", c.Probe, "topic", c.Topic)
		}
		args = append(args, "key", c.Key)
		if kc.Sensitive {
			args = append(args, "sensitive", true)
		} else {
			c.Old, c.New = kc.Old, kc.New
			args = append(args, "old", c.Old, "new", c.New)
		}
		if c.NewSource != "" || c.OldSource != "" {
			args = append(args, "old_source", c.OldSource, "new_source", c.NewSource)
		}
		w.logger.Info("configuration changed", args...)
		changes = append(changes, c)
	}
	w.ring.Add(changes...)
}

// idLabel renders a node id; "" for -1 (unknown).
func idLabel(id int32) string {
	if id < 0 {
		return ""
	}
	return strconv.Itoa(int(id))
}

// joinIDs renders the broker ids of the cluster facts ("1,2,3").
func joinIDs(ids []int32) string {
	var out strings.Builder
	for i, id := range ids {
		if i > 0 {
			out.WriteString(",")
		}
		out.WriteString(idLabel(id))
	}
	return out.String()
}
