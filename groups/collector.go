// Package groups exports every consumer group of the cluster: classic and
// KIP-848 consumer groups, share groups (KIP-932), Streams groups
// (KIP-1071) where the brokers serve them, and groups that only hold
// committed offsets. Every groups.interval it lists, describes and reads
// the offsets of all selected groups, a request per coordinator or leader
// for each step, never one per group or partition, and keeps the result: a
// scrape serves the last poll and never waits on Kafka. Lag is exported in
// records and in seconds, with each group's state and a status (status.go).
//
// It sits beside the probes in the data flow (config → kclient → groups →
// metrics); the exporter only wires it.
package groups

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// Target is what the collector polls.
type Target struct {
	Kafka  config.Cluster
	Groups config.Groups
	// Own are the probes' groups, left out unless groups.probe_groups.
	Own []string
}

// On reports whether t polls anything.
func (t Target) On() bool { return t.Groups.Enabled && len(t.Kafka.Kafka.Brokers) > 0 }

// TargetFor is the target of the resolved res: nothing without brokers (the
// embedded cluster of the quick start gets them before it is resolved).
func TargetFor(res *config.Resolved) Target {
	t := Target{Kafka: res.Kafka, Groups: res.Config.Groups}
	for _, p := range res.Config.Probes {
		t.Own = append(t.Own, p.Consumer.GroupID, p.Consumer.Share.GroupID)
	}
	return t
}

// Options configure a Collector.
type Options struct {
	// Credentials are shared with the process's other clients of the
	// cluster; nil gives the collector its own.
	Credentials *kclient.CredentialPool
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// Collector polls the groups in the background and serves the last poll.
type Collector struct {
	logger *slog.Logger
	opts   Options
	wg     sync.WaitGroup

	mu     sync.Mutex
	target Target
	cancel context.CancelFunc
	state  *state
	last   []prometheus.Metric // the last poll's series
}

// New registers the collector on reg; nothing is polled before Apply.
func New(reg prometheus.Registerer, logger *slog.Logger, opts Options) *Collector {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Collector{logger: logger, opts: opts}
	reg.MustRegister(c)
	return c
}

// Describe sends nothing: the lag families' labels follow
// groups.granularity, which a reload may change (an unchecked collector).
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect serves the last poll.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	for _, m := range last {
		ch <- m
	}
}

// Apply polls t from now on, replacing the previous target; an unchanged
// target keeps polling without a gap. Another cluster, or the block turned
// off, drops what was learnt and every series. ctx bounds the polling.
func (c *Collector) Apply(ctx context.Context, t Target) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil && reflect.DeepEqual(t, c.target) {
		return
	}
	wasOn := c.cancel != nil
	c.stopLocked()
	if !reflect.DeepEqual(t.Kafka, c.target.Kafka) || !t.On() || c.state == nil {
		c.state = newState()
		c.last = nil
	}
	c.target = t
	if !t.On() {
		if wasOn {
			c.logger.Info("consumer groups off (groups.enabled: false)")
		}
		return
	}
	pctx, cancel := context.WithCancel(ctx)
	c.cancel = cancel
	c.wg.Add(1)
	go c.run(pctx, t, c.state)
}

// Stop stops polling and waits for the poller.
func (c *Collector) Stop() {
	c.mu.Lock()
	c.stopLocked()
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *Collector) stopLocked() {
	if c.cancel != nil {
		c.cancel()
		c.cancel = nil
	}
}

func (c *Collector) run(ctx context.Context, t Target, st *state) {
	defer c.wg.Done()
	cl, err := kclient.New(t.Kafka, kclient.Options{Credentials: c.opts.Credentials})
	if err != nil {
		c.logger.Error("consumer groups off: cannot create a Kafka client", "err", err)
		return
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	p := &poller{cl: cl, adm: adm, target: t, st: st, logger: c.logger, now: c.opts.Now,
		groups: config.NewNameFilter(t.Groups.Allow, t.Groups.Deny), topics: config.NewNameFilter(t.Groups.TopicsAllow, t.Groups.TopicsDeny)}
	p.own = map[string]bool{}
	if !t.Groups.ProbeGroups {
		for _, g := range t.Own {
			p.own[g] = true
		}
	}
	interval := time.Duration(t.Groups.Interval)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		start := time.Now()
		pctx, cancel := context.WithTimeout(ctx, max(interval, 10*time.Second))
		series := p.poll(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		c.mu.Lock()
		if c.state == st {
			c.last = series
		}
		c.mu.Unlock()
		timer.Reset(max(0, interval-time.Since(start)))
	}
}

// logProblems logs what made a poll incomplete, once while it lasts.
func (p *poller) logProblems(problems []string) {
	text := strings.Join(problems, "; ")
	switch text {
	case p.st.failure:
	case "":
		p.logger.Info("consumer groups read in full again")
	default:
		p.logger.Warn("consumer groups not read in full", "problems", len(problems), "first", problems[0], "all", text)
	}
	p.st.failure = text
}
