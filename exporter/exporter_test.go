package exporter_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/exporter"
	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

func mustScrape(t *testing.T, url string) scrape.Families {
	t.Helper()
	f, err := scrape.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func value(f scrape.Families, name string, labels ...string) float64 {
	v, _ := f.Value(name, labels...)
	return v
}

// TestTwoProbesOnEmbeddedCluster runs two probes on kfake and asserts on a
// real scrape: rate within 10 % of target, consumed = produced after
// draining, nothing lost or duplicated, histograms counted, lag back to 0.
func TestTwoProbesOnEmbeddedCluster(t *testing.T) {
	logger := probetest.Logger()
	emb := exportertest.Embedded(t)

	// The probes' groups are exported by the groups collector too, so
	// that its per-group families are part of the exposition checked.
	cfg, err := config.Parse([]byte(`
groups: {probe_groups: true, interval: 1s, stall_window: 1s}
probes:
  - name: fast
    rate: 400
    record_size: 200
    lag_interval: 500ms
    create_topic: {partitions: 4}
    producer: {acks: "1", linger.ms: 2}
  - name: slow
    rate: 100
    record_size: 1024
    lag_interval: 500ms
    consumer: {consumers: 2, max.poll.records: 50}
    capacity: {interval: 1h, max_rate: 200}
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Kafka.Brokers = emb.Brokers()
	// The slow probe also reads its topic back as its own replica (identity
	// policy), so the replication families are exposed and checked too.
	replica := &config.Replica{}
	replica.SetDefaults()
	replica.Kafka.Brokers, replica.TopicPolicy = emb.Brokers(), config.TopicPolicyIdentity
	cfg.Probes[1].Replica = replica

	reg := prometheus.NewRegistry()
	e := exporter.New(reg, logger)
	ctx := t.Context()
	if err := e.Apply(ctx, mustResolve(t, cfg)); err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	srv := httptest.NewServer(e.Handler(exporter.HandlerOpts{TelemetryPath: "/metrics"}))
	defer srv.Close()
	metricsURL := srv.URL + "/metrics"

	probetest.Eventually(t, 30*time.Second, "/-/ready", func() (bool, string) {
		resp, err := http.Get(srv.URL + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})

	// Steady state: the rate between two scrapes is the target ±10 %. Past
	// the start-up transient (the first acknowledgements arrive late and in
	// a burst): each producer's client holds less than 200 ms of records.
	probetest.Eventually(t, 30*time.Second, "both probes in steady state", func() (bool, string) {
		f := mustScrape(t, metricsURL)
		state, steady := "", true
		for _, p := range cfg.Probes {
			buffered, ok := f.Value("kafka_bench_client_buffered_produce_records", "probe", p.Name, "role", "producer")
			produced, _ := f.Value("kafka_bench_produced_records_total", "probe", p.Name)
			steady = steady && ok && buffered < p.Rate/5 && produced > 0
			state += fmt.Sprintf("%s: buffered=%v produced=%v; ", p.Name, buffered, produced)
		}
		return steady, state
	})
	// A window of 10 s, timed from the middle of each scrape: a scrape or an
	// acknowledgement that a loaded machine delays by a few hundred
	// milliseconds moves the rate by a few percent, not ten.
	timedScrape := func() (scrape.Families, time.Time) {
		start := time.Now()
		f := mustScrape(t, metricsURL)
		return f, start.Add(time.Since(start) / 2)
	}
	s1, t1 := timedScrape()
	time.Sleep(10 * time.Second)
	s2, t2 := timedScrape()
	for _, p := range cfg.Probes {
		got := (value(s2, "kafka_bench_produced_records_total", "probe", p.Name) -
			value(s1, "kafka_bench_produced_records_total", "probe", p.Name)) / t2.Sub(t1).Seconds()
		t.Logf("probe %s: produced %.1f records/s over %v, target %.0f", p.Name, got, t2.Sub(t1), p.Rate)
		if math.Abs(got-p.Rate) > 0.1*p.Rate {
			t.Errorf("probe %s: produced %.1f records/s, target %.0f (±10%%)", p.Name, got, p.Rate)
		}
	}

	checkExposition(t, metricsURL)
	checkNativeHistograms(t, metricsURL)

	for _, p := range cfg.Probes {
		e.Probe(p.Name).StopProducing()
	}
	var final scrape.Families
	probetest.Eventually(t, 30*time.Second, "consumers to drain and lag to reach 0", func() (bool, string) {
		final = mustScrape(t, metricsURL)
		state := ""
		done := true
		for _, p := range cfg.Probes {
			l := []string{"probe", p.Name}
			produced, consumed := value(final, "kafka_bench_produced_records_total", l...), value(final, "kafka_bench_consumed_records_total", l...)
			lag := value(final, "kafka_bench_consumer_lag_records", l...)
			lagSec := value(final, "kafka_bench_consumer_lag_seconds", l...)
			state += fmt.Sprintf("%s: produced=%v consumed=%v lag=%v lag_s=%v dup=%v ooo=%v failed=%v; ", p.Name, produced, consumed, lag, lagSec,
				value(final, "kafka_bench_records_duplicated_total", l...), value(final, "kafka_bench_records_out_of_order_total", l...),
				value(final, "kafka_bench_produce_failed_total", l...))
			// Every record handed to the client is acknowledged: lag from the
			// consumer's position reaches 0 as soon as it has read what was
			// acknowledged, possibly before the last records are.
			sent := float64(e.Probe(p.Name).Sent())
			done = done && produced > 0 && produced == sent && produced == consumed && lag == 0 && lagSec == 0
		}
		return done, state
	})

	for _, p := range cfg.Probes {
		l := []string{"probe", p.Name}
		produced := value(final, "kafka_bench_produced_records_total", l...)
		checks := []struct {
			name      string
			got, want float64
		}{
			{"records lost", value(final, "kafka_bench_records_lost_total", l...), 0},
			{"records duplicated", value(final, "kafka_bench_records_duplicated_total", l...), 0},
			{"records out of order", value(final, "kafka_bench_records_out_of_order_total", l...), 0},
			{"records foreign", value(final, "kafka_bench_records_foreign_total", l...), 0},
			{"produce failures", value(final, "kafka_bench_produce_failed_total", l...), 0},
			{"produce latency count", value(final, "kafka_bench_produce_latency_seconds", l...), produced},
			{"send delay count", value(final, "kafka_bench_send_delay_seconds", l...), produced},
			{"end-to-end latency count", value(final, "kafka_bench_end_to_end_latency_seconds", l...), produced},
			{"produced bytes", value(final, "kafka_bench_produced_bytes_total", l...), produced * float64(p.RecordSize)},
			{"consumed bytes", value(final, "kafka_bench_consumed_bytes_total", l...), produced * float64(p.RecordSize)},
			{"target rate", value(final, "kafka_bench_probe_target_rate_records_per_second", l...), p.Rate},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("probe %s: %s = %v, want %v", p.Name, c.name, c.got, c.want)
			}
		}
		if n := value(final, "kafka_bench_commit_latency_seconds", l...); n < 1 {
			t.Errorf("probe %s: no commit latency observed", p.Name)
		}
		if got := len(final.Find("kafka_bench_produce_failed_total", l...)); got != len(probes.FailureReasons) {
			t.Errorf("probe %s: %d failure reason series pre-created, want %d", p.Name, got, len(probes.FailureReasons))
		}
		wantInfo := map[string]string{
			"topic": "kafka-bench-" + p.Name, "acks": p.Producer.Acks, "compression": "none",
			"record_size_bytes": fmt.Sprint(p.RecordSize), "batch_size_bytes": "16384",
			"linger_ms": fmt.Sprint(p.Producer.LingerMS), "partitions": fmt.Sprint(p.CreateTopic.Partitions),
			"group": "kafka-bench-" + p.Name,
		}
		for label, want := range wantInfo {
			if got := final.Label("kafka_bench_probe_info", label, l...); got != want {
				t.Errorf("probe %s: kafka_bench_probe_info{%s} = %q, want %q", p.Name, label, got, want)
			}
		}
		for _, role := range []string{"producer", "consumer", "admin"} {
			if _, ok := s2.Value("kafka_bench_client_connects_total", "probe", p.Name, "role", role); !ok {
				t.Errorf("probe %s: no kprom client metrics for role %s", p.Name, role)
			}
		}
	}
	if v := value(final, "kafka_bench_host_cpus"); v < 1 {
		t.Errorf("kafka_bench_host_cpus = %v", v)
	}
	for _, name := range []string{"kafka_bench_host_cpu_seconds_total", "kafka_bench_host_memory_available_bytes", "kafka_bench_build_info", "go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := final.Value(name); !ok {
			t.Errorf("%s missing from the exposition", name)
		}
	}
	if v := value(final, "kafka_bench_scrape_collector_success", "collector", "host"); v != 1 {
		t.Errorf("host collector success = %v", v)
	}

	e.Stop()
	after := mustScrape(t, metricsURL)
	if n := len(after.Find("kafka_bench_produced_records_total")); n != 0 {
		t.Errorf("stopped probes still export %d produced series", n)
	}
}

// afterCapacityRun are the families a capacity run creates (capacity_test.go checks them).
var afterCapacityRun = map[string]bool{"kafka_bench_capacity_records_per_second": true,
	"kafka_bench_capacity_bytes_per_second": true, "kafka_bench_capacity_p99_seconds": true}

// checkExposition runs `promtool check metrics` on a real scrape and keeps
// testdata/metric_names.txt (the contract that dashboards and alerts are
// linted against) in step with what the exporter really exposes.
func checkExposition(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	promtool := testenv.Tool(t, "promtool")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}

	contract, err := os.ReadFile("testdata/metric_names.txt")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for n := range strings.FieldsSeq(string(contract)) {
		names[n] = true
	}
	families, err := scrape.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	for name := range families {
		if !names[name] {
			t.Errorf("exposed metric %s is missing from testdata/metric_names.txt", name)
		}
	}
	for name := range names {
		// A capacity figure appears with the first successful capacity run.
		// A share-group family appears with a probe of consumer.kind share
		// (the docs' exposition, cmd/kafka_bench_exporter, has one), a
		// transaction family with producer.transactional.id (likewise),
		// the stable lag with consumer.isolation.level read_committed, a
		// catch-up family with a catch_up window.
		if _, ok := families[name]; !ok && !eventOnly[name] && !afterCapacityRun[name] && !groupEventOnly[name] && !strings.HasPrefix(name, "kafka_bench_share_") && !strings.HasPrefix(name, "kafka_bench_catchup_") && !strings.HasPrefix(name, "kafka_bench_transaction") && name != "kafka_bench_consumer_lag_stable_records" {
			t.Errorf("testdata/metric_names.txt lists %s, which the exporter does not expose", name)
		}
	}
	for name := range eventOnly {
		if !names[name] {
			t.Errorf("%s is expected after an event but missing from testdata/metric_names.txt", name)
		}
	}
}

// groupEventOnly are the consumer-group families of a group or topic the
// exporter may not read (the integration tests see them).
var groupEventOnly = map[string]bool{"kafka_bench_group_denied_topics": true, "kafka_bench_group_not_read_info": true}

// eventOnly are the kprom families created at their first event (a
// connection error or a disconnect), which a healthy run does not have; the
// README says so.
var eventOnly = map[string]bool{
	"kafka_bench_client_connect_errors_total": true,
	"kafka_bench_client_disconnects_total":    true,
	"kafka_bench_client_read_errors_total":    true,
	"kafka_bench_client_write_errors_total":   true,
}

// checkNativeHistograms asks for protobuf, as a Prometheus with native
// histograms enabled does, and expects native and classic buckets.
func checkNativeHistograms(t *testing.T, url string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.NewFormat(expfmt.TypeProtoDelim))
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err != nil {
			t.Fatalf("no kafka_bench_produce_latency_seconds in the protobuf exposition: %v", err)
		}
		if mf.GetName() != "kafka_bench_produce_latency_seconds" {
			continue
		}
		h := mf.GetMetric()[0].GetHistogram()
		if h.Schema == nil || len(h.GetPositiveSpan()) == 0 {
			t.Errorf("no native buckets in %s: schema=%v spans=%d", mf.GetName(), h.Schema, len(h.GetPositiveSpan()))
		}
		if len(h.GetBucket()) != len(family.LatencyBuckets) {
			t.Errorf("%d classic buckets next to the native ones, want %d", len(h.GetBucket()), len(family.LatencyBuckets))
		}
		return
	}
}
