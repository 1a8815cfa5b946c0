package exporter_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

const reloadV1 = `
probes:
  - name: keep
    rate: 200
    record_size: 100
    lag_interval: 500ms
  - name: change
    rate: 100
    record_size: 100
    lag_interval: 500ms
  - name: remove
    rate: 100
    record_size: 100
    lag_interval: 500ms
`

const reloadV2 = `
probes:
  - name: keep
    rate: 200
    record_size: 100
    lag_interval: 500ms
  - name: change
    rate: 150
    record_size: 100
    lag_interval: 500ms
  - name: add
    rate: 100
    record_size: 100
    lag_interval: 500ms
`

// Apply diffs probes: the unchanged one keeps its *probes.Probe and its
// counters never drop or stall, the changed one restarts, the removed one
// stops and the added one starts. An invalid configuration is rejected and
// the old one keeps running. Every goroutine of every probe, restarted or
// stopped, is gone after Stop.
func TestReloadDiffsProbes(t *testing.T) {
	logger := probetest.Logger()
	emb := exportertest.Embedded(t)
	leaks := goleak.IgnoreCurrent() // the embedded cluster's own goroutines

	parse := func(y string) (*config.Config, error) {
		cfg, err := config.Parse([]byte(y))
		if cfg != nil {
			cfg.Kafka.Brokers = emb.Brokers()
		}
		return cfg, err
	}
	reg := prometheus.NewRegistry()
	e := exporter.New(reg, logger)
	srv := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics"}))
	metrics := srv.URL + "/metrics"
	ctx, cancel := context.WithCancel(context.Background())
	if err := e.Reload(ctx, func() (*config.Resolved, error) { return resolve(parse(reloadV1)) }); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, 30*time.Second, "every probe producing and consuming", func() (bool, string) { return e.Ready(), "not ready" })
	first := mustScrape(t, metrics)
	if v := value(first, "kafka_bench_config_last_reload_successful"); v != 1 {
		t.Errorf("after the first load: last_reload_successful = %v, want 1", v)
	}
	ts1 := value(first, "kafka_bench_config_last_reload_success_timestamp_seconds")
	keep, changed := e.Probe("keep"), e.Probe("change")

	// Watch the unchanged probe's counter through the reload.
	var samples []float64
	var missing int
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			f, err := scrape.Get(metrics)
			if err == nil {
				v, ok := f.Value("kafka_bench_produced_records_total", "probe", "keep")
				if !ok {
					missing++
				}
				samples = append(samples, v)
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)
	if err := e.Reload(ctx, func() (*config.Resolved, error) { return resolve(parse(reloadV2)) }); err != nil {
		t.Fatal(err)
	}
	// Long enough for the unchanged probe to produce after the reload.
	probetest.Eventually(t, 30*time.Second, "the added probe ready", func() (bool, string) { return e.Ready(), "not ready" })
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-sampled

	if e.Probe("keep") != keep {
		t.Error("the unchanged probe was restarted")
	}
	if p := e.Probe("change"); p == nil || p == changed || p.Config().Rate != 150 {
		t.Errorf("the changed probe was not restarted with its new rate: %v", p)
	}
	if e.Probe("remove") != nil {
		t.Error("the removed probe still runs")
	}
	if e.Probe("add") == nil {
		t.Error("the added probe does not run")
	}
	if missing > 0 {
		t.Errorf("the unchanged probe's series vanished in %d of %d scrapes", missing, len(samples))
	}
	for i := 1; i < len(samples); i++ {
		if samples[i] < samples[i-1] {
			t.Fatalf("the unchanged probe's produced counter dropped from %v to %v", samples[i-1], samples[i])
		}
	}
	if len(samples) < 2 || samples[len(samples)-1] <= samples[0] {
		t.Errorf("the unchanged probe did not produce across the reload: %v", samples)
	}
	after := mustScrape(t, metrics)
	ts2 := value(after, "kafka_bench_config_last_reload_success_timestamp_seconds")
	if value(after, "kafka_bench_config_last_reload_successful") != 1 || ts2 <= ts1 {
		t.Errorf("after a good reload: successful = %v, timestamp %v -> %v", value(after, "kafka_bench_config_last_reload_successful"), ts1, ts2)
	}
	if n := len(after.Find("kafka_bench_produced_records_total", "probe", "remove")); n != 0 {
		t.Errorf("the removed probe still exports %d series", n)
	}

	// An invalid configuration changes nothing but the reload metric.
	running := map[string]any{}
	for _, p := range e.Probes() {
		running[p.Name] = e.Probe(p.Name)
	}
	err := e.Reload(ctx, func() (*config.Resolved, error) { return resolve(parse("probes: [{name: keep, rate: -1}]")) })
	if err == nil {
		t.Fatal("an invalid configuration was accepted")
	}
	rejected := mustScrape(t, metrics)
	if v := value(rejected, "kafka_bench_config_last_reload_successful"); v != 0 {
		t.Errorf("after a rejected reload: successful = %v, want 0", v)
	}
	if ts := value(rejected, "kafka_bench_config_last_reload_success_timestamp_seconds"); ts != ts2 {
		t.Errorf("a rejected reload moved the success timestamp: %v -> %v", ts2, ts)
	}
	for name, p := range running {
		if e.Probe(name) != p {
			t.Errorf("probe %s changed on a rejected reload", name)
		}
	}
	// So does one that validates but whose producer franz-go refuses: the
	// probe it would replace keeps running.
	if err := e.Reload(ctx, func() (*config.Resolved, error) { return resolve(parse(reloadV2)) }); err != nil { // successful = 1 again
		t.Fatal(err)
	}
	err = e.Reload(ctx, func() (*config.Resolved, error) {
		return resolve(parse(reloadV2 + "    producer: {linger.ms: 70000, delivery.timeout.ms: 200000}\n"))
	})
	if want := `probe "add": producer.linger.ms = 70000: franz-go refuses it: linger 1m10s is larger than allowed 1m0s`; err == nil || err.Error() != want {
		t.Errorf("a reload to clients franz-go refuses: err = %v, want %s", err, want)
	}
	if v := value(mustScrape(t, metrics), "kafka_bench_config_last_reload_successful"); v != 0 {
		t.Errorf("after a reload to refused clients: successful = %v, want 0", v)
	}
	for name, p := range running {
		if e.Probe(name) != p {
			t.Errorf("probe %s changed on a reload to refused clients", name)
		}
	}
	if err := e.Reload(ctx, func() (*config.Resolved, error) { return nil, errors.New("unreadable") }); err == nil {
		t.Error("a load error was not returned")
	}

	e.Stop()
	cancel()
	srv.Close()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	goleak.VerifyNone(t, leaks)
}

// Restarting and stopping probes many times leaves no goroutine behind.
func TestProbeRestartsLeakNoGoroutines(t *testing.T) {
	logger := probetest.Logger()
	emb := exportertest.Embedded(t)
	leaks := goleak.IgnoreCurrent()
	e := exporter.New(prometheus.NewRegistry(), logger)
	ctx, cancel := context.WithCancel(context.Background())
	for i := range 4 {
		cfg, err := config.Parse(fmt.Appendf(nil, `
probes:
  - name: p
    rate: %d
    record_size: 100
    lag_interval: 200ms
    consumer: {consumers: 2}
`, 50+i))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Kafka.Brokers = emb.Brokers()
		if err := e.Apply(ctx, mustResolve(t, cfg)); err != nil { // a changed rate: the probe restarts
			t.Fatal(err)
		}
		probetest.Eventually(t, 30*time.Second, "probe ready", func() (bool, string) { return e.Ready(), "not ready" })
	}
	e.Stop()
	cancel()
	goleak.VerifyNone(t, leaks)
}

// A reload during or after Stop (a SIGHUP or POST /-/reload while the
// process shuts down) starts nothing: no probe and no configuration
// poller, which the exit would kill without a flush, a commit or leaving
// the group. Reload and Apply say why.
func TestReloadAfterStopStartsNothing(t *testing.T) {
	logger := probetest.Logger()
	emb := exportertest.Embedded(t)
	leaks := goleak.IgnoreCurrent()
	load := func() (*config.Resolved, error) {
		cfg, err := config.Parse([]byte(`
config_poll_interval: 1s
probes:
  - name: p
    rate: 100
    record_size: 100
    lag_interval: 200ms
`))
		if cfg != nil {
			cfg.Kafka.Brokers = emb.Brokers()
		}
		return resolve(cfg, err)
	}
	ctx := t.Context() // the probes' context stays live: only Stop ends them
	for _, during := range []bool{false, true} {
		e := exporter.New(prometheus.NewRegistry(), logger)
		if err := e.Reload(ctx, load); err != nil {
			t.Fatal(err)
		}
		probetest.Eventually(t, 30*time.Second, "probe ready", func() (bool, string) { return e.Ready(), "not ready" })
		reloaded := make(chan error, 1)
		if during {
			go func() { reloaded <- e.Reload(ctx, load) }() // before, during or after Stop
			e.Stop()
		} else {
			e.Stop()
			reloaded <- e.Reload(ctx, load)
		}
		err := <-reloaded
		if !during && !errors.Is(err, exporter.ErrStopped) {
			t.Errorf("reload after Stop: %v, want %v", err, exporter.ErrStopped)
		}
		if err := e.Reload(ctx, load); !errors.Is(err, exporter.ErrStopped) {
			t.Errorf("reload after Stop: %v, want %v", err, exporter.ErrStopped)
		}
		cfg, _ := load()
		if err := e.Apply(ctx, cfg); !errors.Is(err, exporter.ErrStopped) {
			t.Errorf("Apply after Stop: %v, want %v", err, exporter.ErrStopped)
		}
		if ps := e.Probes(); len(ps) != 0 {
			t.Errorf("reload during=%v: %d probes running after Stop", during, len(ps))
		}
		goleak.VerifyNone(t, leaks)
	}
}

// A reload re-reads the payload file: the same file leaves its probe
// running, a file whose entries changed (its longest one the same length,
// so record_size stays) restarts it with them.
func TestChangedPayloadFileRestartsProbe(t *testing.T) {
	emb := exportertest.Embedded(t)
	dir := t.TempDir()
	payload := filepath.Join(dir, "entries.txt")
	file := filepath.Join(dir, "config.yml")
	writeFile := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(file, `
probes:
  - name: p
    rate: 50
    lag_interval: 200ms
    payload: {kind: file, file: entries.txt}
`)
	load := func() (*config.Resolved, error) {
		cfg, err := config.LoadFile(file)
		if err != nil {
			return nil, err
		}
		cfg.Kafka.Brokers = emb.Brokers()
		return config.ResolveFile(cfg, file)
	}
	e := exporter.New(prometheus.NewRegistry(), probetest.Logger())
	defer e.Stop()
	ctx := t.Context()
	writeFile(payload, "one\ntwo\n")
	if err := e.Reload(ctx, load); err != nil {
		t.Fatal(err)
	}
	first := e.Probe("p")
	if err := e.Reload(ctx, load); err != nil {
		t.Fatal(err)
	}
	if e.Probe("p") != first {
		t.Error("a reload with the same payload file restarted the probe")
	}
	writeFile(payload, "six\nten\n")
	if err := e.Reload(ctx, load); err != nil {
		t.Fatal(err)
	}
	if e.Probe("p") == first {
		t.Error("a reload with changed payload entries left the probe running on the old ones")
	}
	if got := e.Probe("p").Config().RecordSize; got != config.HeaderSize+3 {
		t.Errorf("record_size = %d, want the header and the longest entry, %d", got, config.HeaderSize+3)
	}
}
