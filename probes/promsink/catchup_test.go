package promsink_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// The catch-up events land in the families of their window: the counters
// and info of every window exist at zero from the probe's start, a read's
// records by tier, its fetches, what it found and its gauges; a read whose
// brokers do not tell the local log start drops the remote gauge; a stopped
// probe leaves no catch-up series behind.
func TestCatchUpEventsReachTheirWindow(t *testing.T) {
	cfg, err := config.Parse([]byte(`
kafka: {brokers: ["localhost:9092"]}
probes:
  - name: p
    catch_up:
      - {from: start, max_records: 10}
      - {from: 1h}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	hs := event.New(promsink.NewMetrics(reg).ForProbe(cfg.Probes[0]))
	f := scrape.MustGather(t, reg)
	if v, ok := f.Value("kafka_bench_catchup_info", "probe", "p", "window", "start", "max_records", "10"); !ok || v != 1 {
		t.Errorf("info of window start = %v (present %v), want 1", v, ok)
	}
	if v, ok := f.Value("kafka_bench_catchup_runs_total", "probe", "p", "window", "1h", "end", event.CatchUpEndRetention); !ok || v != 0 {
		t.Errorf("runs of window 1h ended by retention = %v (present %v), want 0 from the start", v, ok)
	}

	start := time.Now()
	hs.CatchUpRead("start", event.CatchUpRemote, 3, 300)
	hs.CatchUpRead("start", event.CatchUpLocal, 1, 100)
	hs.CatchUpRead("start", event.CatchUpLocal, 0, 0)
	hs.CatchUpFetch("start", 20*time.Millisecond)
	hs.CatchUpRun(event.CatchUpRun{Window: "start", End: event.CatchUpEndRecords,
		Start: start, First: start.Add(time.Second), Last: start.Add(2 * time.Second), Ended: time.Unix(1700000000, 0),
		Records: 4, Bytes: 400, Age: time.Hour, Remote: true, RemoteKnown: true,
		Missing: 2, OutOfOrder: 1, Duplicated: 3, Unchecked: 5})
	hs.CatchUpRun(event.CatchUpRun{Window: "1h", End: event.CatchUpEndError, Ended: time.Unix(1700000001, 0)})
	f = scrape.MustGather(t, reg)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kafka_bench_catchup_read_records_total", []string{"window", "start", "tier", "remote"}, 3},
		{"kafka_bench_catchup_read_bytes_total", []string{"window", "start", "tier", "remote"}, 300},
		{"kafka_bench_catchup_read_records_total", []string{"window", "start", "tier", "local"}, 1},
		{"kafka_bench_catchup_read_records_total", []string{"window", "1h", "tier", "local"}, 0},
		{"kafka_bench_catchup_records_missing_total", []string{"window", "start"}, 2},
		{"kafka_bench_catchup_records_out_of_order_total", []string{"window", "start"}, 1},
		{"kafka_bench_catchup_records_duplicated_total", []string{"window", "start"}, 3},
		{"kafka_bench_catchup_records_unchecked_total", []string{"window", "start"}, 5},
		{"kafka_bench_catchup_runs_total", []string{"window", "start", "end", event.CatchUpEndRecords}, 1},
		{"kafka_bench_catchup_runs_total", []string{"window", "1h", "end", event.CatchUpEndError}, 1},
		{"kafka_bench_catchup_records_per_second", []string{"window", "start"}, 2},
		{"kafka_bench_catchup_bytes_per_second", []string{"window", "start"}, 200},
		{"kafka_bench_catchup_first_record_seconds", []string{"window", "start"}, 1},
		{"kafka_bench_catchup_window_age_seconds", []string{"window", "start"}, 3600},
		{"kafka_bench_catchup_remote", []string{"window", "start"}, 1},
		{"kafka_bench_catchup_last_run_timestamp_seconds", []string{"window", "1h"}, 1700000001},
	} {
		if got, ok := f.Value(c.name, append([]string{"probe", "p"}, c.labels...)...); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if ms := f.Find("kafka_bench_catchup_fetch_latency_seconds", "probe", "p", "window", "start"); len(ms) != 1 || ms[0].GetHistogram().GetSampleCount() != 1 {
		t.Errorf("fetch latency of window start: %d series, want one of 1 observation", len(ms))
	}
	for _, name := range []string{"kafka_bench_catchup_remote", "kafka_bench_catchup_records_per_second"} {
		if _, ok := f.Value(name, "probe", "p", "window", "1h"); ok {
			t.Errorf("%s of window 1h present after a read that did not tell it", name)
		}
	}

	hs.Stopped()
	for name, mf := range scrape.MustGather(t, reg) {
		if len(mf.GetMetric()) > 0 {
			t.Errorf("%s: %d series left after the probe stopped", name, len(mf.GetMetric()))
		}
	}
}
