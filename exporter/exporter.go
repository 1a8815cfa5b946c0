// Package exporter wires the probe engine to Prometheus: the registry and its
// collectors, the set of running probes (started, stopped and restarted on
// reload) and the HTTP endpoints. The quick start's embedded cluster is
// package embedded, which the command starts.
package exporter

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/collector"
	"github.com/kafka-bench/kafka_bench_exporter/exporter/configwatch"
	"github.com/kafka-bench/kafka_bench_exporter/groups"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// Exporter owns the registry and the running probes.
type Exporter struct {
	reg     *prometheus.Registry
	logger  *slog.Logger
	metrics *promsink.Metrics
	host    atomic.Pointer[collector.Collector] // nil: host metrics off
	reload  *reloadState
	watch   *configwatch.Watcher // broker and topic configuration changes
	groups  *groups.Collector    // every consumer group's lag
	live    *liveRing            // the landing page's sparklines
	liveRun liveLoop
	// capacity and capacityGate serve every probe's capacity canary.
	capacity     *promsink.CapacityMetrics
	capacityGate *capacity.Gate
	// creds are the credentials of every kafka section, shared by all the
	// clients of the process: probes, replica readers, capacity canaries
	// and the configuration watcher.
	creds *kclient.CredentialPool

	mu      sync.Mutex
	res     *config.Resolved // the configuration applied
	running map[string]*runningProbe
	stopped bool // Stop was called: nothing starts again
}

// ErrStopped is Apply's (and Reload's) answer once Stop was called: a
// reload during shutdown would start probes and the configuration poller
// that the exit then kills without a flush, a commit or leaving the group.
var ErrStopped = errors.New("the exporter is stopping: configuration not applied")

type runningProbe struct {
	probe *probes.Probe
	// resolved and kafka are what it runs with, files' contents included:
	// a reload that changes either restarts it.
	resolved config.ResolvedProbe
	kafka    config.Cluster
	cancel   context.CancelFunc
	done     chan struct{}
}

// New registers the exporter's collectors on reg: probe metrics, host
// metrics (switchable on reload), build info, Go and process collectors.
func New(reg *prometheus.Registry, logger *slog.Logger) *Exporter {
	creds := kclient.NewCredentialPool(kclient.NewCredentialMetrics(reg), logger)
	e := &Exporter{
		reg:     reg,
		logger:  logger,
		metrics: promsink.NewMetrics(reg),
		reload:  newReloadState(reg),
		watch:   configwatch.New(reg, logger, configwatch.Options{Credentials: creds}),
		groups:  groups.New(reg, logger, groups.Options{Credentials: creds}),
		running: map[string]*runningProbe{},
		live:    newLiveRing(),

		capacity:     promsink.NewCapacityMetrics(reg),
		capacityGate: capacity.NewGate(),
		creds:        creds,
	}
	reg.MustRegister(
		versioncollector.NewCollector("kafka_bench"),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collector.NewSet(logger, map[string]collector.Collector{"host": hostSwitch{e}}),
	)
	return e
}

// hostSwitch lets a reload turn host metrics on and off, or change their
// filters, without re-registering.
type hostSwitch struct{ e *Exporter }

func (h hostSwitch) Update(ch chan<- prometheus.Metric) error {
	if c := h.e.host.Load(); c != nil {
		return (*c).Update(ch)
	}
	return collector.ErrDisabled
}

// Apply makes the running probes match the resolved configuration res: new
// probes start, removed ones stop, changed ones restart, and unchanged ones
// keep running without a gap. A probe is unchanged when its settings, its
// clusters' settings and the contents of the files they name (credentials,
// the payload file) are. ctx bounds the life of the probes it starts.
// After Stop it changes nothing and returns ErrStopped.
func (e *Exporter) Apply(ctx context.Context, res *config.Resolved) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return ErrStopped
	}
	cfg := res.Config
	e.liveRun.start(ctx, e.live)
	var old *config.Config
	if e.res != nil {
		old = e.res.Config
	}
	e.warnSections(old, cfg)
	e.applyHost(cfg.Host)
	want := map[string]config.ResolvedProbe{}
	for _, p := range res.Probes {
		want[p.Probe.Name] = p
	}
	for name, rp := range e.running {
		p, keep := want[name]
		if keep && reflect.DeepEqual(p, rp.resolved) && reflect.DeepEqual(res.Kafka, rp.kafka) {
			delete(want, name)
			continue
		}
		e.logger.Info("stopping probe", "probe", name, "reason", map[bool]string{true: "changed", false: "removed"}[keep])
		rp.cancel()
		<-rp.done
		delete(e.running, name)
	}
	for _, p := range res.Probes {
		if _, ok := want[p.Probe.Name]; ok {
			e.start(ctx, res.Kafka, p)
		}
	}
	e.watch.Apply(ctx, configwatch.TargetFor(res)) // does not wait for a poll
	e.groups.Apply(ctx, groups.TargetFor(res))     // likewise
	e.creds.Retain(kafkaSections(res)...)
	e.res = res
	e.reload.applied()
	return nil
}

func (e *Exporter) applyHost(h config.Host) {
	if !h.Enabled {
		e.host.Store(nil)
		return
	}
	// Validated already: MustCompile cannot fail here.
	c := collector.NewHost(collector.HostConfig{
		Disks:      regexp.MustCompile(h.Disks),
		Interfaces: regexp.MustCompile(h.Interfaces),
	})
	e.host.Store(&c)
}

func (e *Exporter) start(ctx context.Context, k config.Cluster, r config.ResolvedProbe) {
	p := r.Probe
	pctx, cancel := context.WithCancel(ctx)
	rp := &runningProbe{
		probe: probes.New(p, probes.Options{
			Kafka:       k,
			Replica:     r.Replica,
			Payload:     r.Payload(),
			Sinks:       []event.Sink{e.metrics, e.live},
			Registerer:  e.reg,
			Logger:      e.logger,
			Credentials: e.creds,
			// The daemon keeps a probe whose client fails exported, down.
			RetryClients: true,
		}),
		resolved: r,
		kafka:    k,
		cancel:   cancel,
		done:     make(chan struct{}),
	}
	e.running[p.Name] = rp
	capacityDone := e.runCapacity(pctx, k, r)
	go func() {
		defer close(rp.done)
		defer func() { <-capacityDone }()
		if err := rp.probe.Run(pctx); err != nil {
			e.logger.Error("probe failed", "probe", p.Name, "err", err)
		}
	}()
}

// kafkaSections are the resolved clusters of res's sections: the kafka
// block and each replica block.
func kafkaSections(res *config.Resolved) []config.Cluster {
	ks := []config.Cluster{res.Kafka}
	for _, p := range res.Probes {
		if p.Probe.Replica != nil {
			ks = append(ks, p.Replica)
		}
	}
	return ks
}

// Stop stops every probe and waits for them (flush, commit, leave group).
// They stop in parallel, so shutdown takes one probe's flush deadline, not
// the sum of them. The exporter stays stopped: a later Apply or Reload (a
// SIGHUP or POST /-/reload during shutdown) starts nothing. An Apply under
// way finishes first, and its probes are stopped too.
func (e *Exporter) Stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopped = true
	e.watch.Stop()
	e.groups.Stop()
	e.liveRun.stop()
	for _, rp := range e.running {
		rp.cancel()
	}
	for name, rp := range e.running {
		<-rp.done
		delete(e.running, name)
	}
}

func (e *Exporter) isStopped() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopped
}

// Ready reports whether every probe has produced and consumed at least once;
// a host agent (no probes configured) is ready once configured.
func (e *Exporter) Ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.running) == 0 {
		return e.res != nil && e.res.Config.HostAgent()
	}
	for _, rp := range e.running {
		if !rp.probe.Ready() {
			return false
		}
	}
	return true
}

// Probes returns the configuration of the running probes, sorted by name.
func (e *Exporter) Probes() []config.Probe {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]config.Probe, 0, len(e.running))
	for _, rp := range e.running {
		out = append(out, rp.probe.Config())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Probe returns a running probe by name (tests and bench use it).
func (e *Exporter) Probe(name string) *probes.Probe {
	e.mu.Lock()
	defer e.mu.Unlock()
	if rp, ok := e.running[name]; ok {
		return rp.probe
	}
	return nil
}
