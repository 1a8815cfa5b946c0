// Package probetest runs the probes of a config in-process for the engine's
// own tests: a registry, probes.New for each probe, and a reader of the
// registry that fails the test on a missing series. It needs no exporter.
package probetest

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testwait"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// Run is the running probes of one config.
type Run struct {
	Registry *prometheus.Registry
	probes   map[string]*probes.Probe
	done     map[string]chan struct{} // closed when the probe's Run returns
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// Logger logs to stderr at info under `go test -v`, else discards.
func Logger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(slog.DiscardHandler)
}

// Start parses yamlConfig, points it at brokers and runs every probe with
// the metrics and the Kafka client metrics on one registry; t.Cleanup stops
// them (flush, commit, leave the group).
func Start(t testing.TB, yamlConfig string, brokers []string) *Run {
	t.Helper()
	return StartLogged(t, yamlConfig, brokers, Logger())
}

// StartLogged is Start with the probes' logger, for tests that assert on
// what is logged.
func StartLogged(t testing.TB, yamlConfig string, brokers []string, logger *slog.Logger) *Run {
	t.Helper()
	return StartWith(t, yamlConfig, brokers, probes.Options{Logger: logger})
}

// StartWith is Start with the probes' options (a logger, a recorder, ...);
// the harness sets Kafka and Registerer, and adds the metrics to the sinks.
func StartWith(t testing.TB, yamlConfig string, brokers []string, opts probes.Options) *Run {
	t.Helper()
	res := Resolved(t, yamlConfig, brokers)
	reg := prometheus.NewRegistry()
	opts.Kafka, opts.Registerer = res.Kafka, reg
	opts.Sinks = append(append([]event.Sink(nil), opts.Sinks...), promsink.NewMetrics(reg))
	ctx, cancel := context.WithCancel(context.Background())
	r := &Run{Registry: reg, probes: map[string]*probes.Probe{}, done: map[string]chan struct{}{}, cancel: cancel}
	for _, rp := range res.Probes {
		pc := rp.Probe
		opts.Replica, opts.Payload = rp.Replica, rp.Payload()
		p := probes.New(pc, opts)
		done := make(chan struct{})
		r.probes[pc.Name], r.done[pc.Name] = p, done
		r.wg.Go(func() {
			defer close(done)
			if err := p.Run(ctx); err != nil {
				t.Errorf("probe %s: %v", pc.Name, err)
			}
		})
	}
	t.Cleanup(r.Stop)
	return r
}

// Config parses yamlConfig, failing the test when it is invalid, and points
// it at brokers.
func Config(t testing.TB, yamlConfig string, brokers []string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yamlConfig))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	cfg.Kafka.Brokers = brokers
	return cfg
}

// Resolved is Config resolved (config.Resolve): its files read, relative
// to the working directory.
func Resolved(t testing.TB, yamlConfig string, brokers []string) *config.Resolved {
	t.Helper()
	res, err := config.Resolve(Config(t, yamlConfig, brokers), "")
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return res
}

// Stop stops every probe and waits for them; safe to call twice.
func (r *Run) Stop() {
	r.cancel()
	r.wg.Wait()
}

// Probe returns a probe by name, failing the test when there is none.
func (r *Run) Probe(t testing.TB, name string) *probes.Probe {
	t.Helper()
	p, ok := r.probes[name]
	if !ok {
		t.Fatalf("no probe %q", name)
	}
	return p
}

// Running reports whether the probe's Run has not returned.
func (r *Run) Running(t testing.TB, name string) bool {
	t.Helper()
	r.Probe(t, name)
	select {
	case <-r.done[name]:
		return false
	default:
		return true
	}
}

// WaitReady waits until the probe is up (acknowledged and consumed records).
func (r *Run) WaitReady(t testing.TB, name string, timeout time.Duration) {
	t.Helper()
	p := r.Probe(t, name)
	Eventually(t, timeout, "probe "+name+" ready", func() (bool, string) { return p.Ready(), "not up" })
}

// Gather reads the registry as a scrape would.
func (r *Run) Gather(t testing.TB) scrape.Families {
	t.Helper()
	return Gather(t, r.Registry)
}

// Gather reads g as a scrape would.
func Gather(t testing.TB, g prometheus.Gatherer) scrape.Families {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	f := scrape.Families{}
	for _, mf := range mfs {
		f[mf.GetName()] = mf
	}
	return f
}

// Value is the sum of the matching series of name (see scrape.Families.Value);
// it fails the test when no series matches, so a renamed or missing metric
// is never read as 0.
func Value(t testing.TB, f scrape.Families, name string, labels ...string) float64 {
	t.Helper()
	v, ok := f.Value(name, labels...)
	if !ok {
		t.Fatalf("no series %s%v", name, labels)
	}
	return v
}

// Eventually polls cond every 200 ms until it holds, failing the test with
// the last state cond reported when timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	testwait.Until(t, timeout, 200*time.Millisecond, what, cond)
}

// Kfake starts an in-process kfake cluster of n brokers for t and returns
// its addresses; it stops with the test.
func Kfake(t testing.TB, n int) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// ShareBesideGroup runs the configuration's first probe (a share probe) and
// its second (a group probe) on one registry, as one process does, and
// returns the group probe, which runs until the test ends, and the share
// probe's error once it stops (within timeout).
func ShareBesideGroup(t testing.TB, cfg *config.Config, timeout time.Duration) (*probes.Probe, error) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts := probes.Options{Kafka: config.Cluster{Kafka: cfg.Kafka}, Sinks: []event.Sink{promsink.NewMetrics(reg)}, Logger: Logger(), RetryClients: true}
	share, group := probes.New(cfg.Probes[0], opts), probes.New(cfg.Probes[1], opts)
	ctx, cancel := context.WithCancel(context.Background())
	groupDone := make(chan error, 1)
	go func() { groupDone <- group.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-groupDone
	})
	shareDone := make(chan error, 1)
	go func() { shareDone <- share.Run(ctx) }()
	select {
	case err := <-shareDone:
		return group, err
	case <-time.After(timeout):
		t.Fatal("the share probe did not stop")
		return nil, nil
	}
}

// Want is a count a test expects of a probe: a family, its labels past
// "probe" (name, value pairs), and the value.
type Want struct {
	Name   string
	Labels []string
	Value  float64
}

// ShareFaultCounts are the counts of a share probe that read n records,
// released `release` of them once and rejected `reject`, when the broker
// refused no acknowledgement and no outcome was unknown.
func ShareFaultCounts(n, release, reject float64) []Want {
	return []Want{
		{"kafka_bench_share_acks_total", []string{"outcome", "accept"}, n - reject},
		{"kafka_bench_share_acks_total", []string{"outcome", "release"}, release},
		{"kafka_bench_share_acks_total", []string{"outcome", "reject"}, reject},
		{"kafka_bench_share_redeliveries_total", []string{"cause", "released"}, release},
		{"kafka_bench_share_redeliveries_total", []string{"cause", "lock_expired"}, 0},
		{"kafka_bench_share_records_archived_total", []string{"reason", "rejected"}, reject},
		{"kafka_bench_share_records_archived_total", []string{"reason", "delivery_limit"}, 0},
	}
}

// CheckCounts reports each count of probe in f that differs from its want.
func CheckCounts(t testing.TB, f scrape.Families, probe string, wants []Want) {
	t.Helper()
	for _, w := range wants {
		if got := Value(t, f, w.Name, append([]string{"probe", probe}, w.Labels...)...); got != w.Value {
			t.Errorf("%s: %s%v = %v, want %v", probe, w.Name, w.Labels, got, w.Value)
		}
	}
}
