package promsink_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
	"github.com/kafka-bench/kafka_bench_exporter/probes/tracker"
)

// sinkFor is the metrics' hooks of a default probe named name, as the
// engine sees them, and the registry.
func sinkFor(t *testing.T, name string) (*event.Hooks, *prometheus.Registry) {
	t.Helper()
	cfg := config.NewProbe(name)
	cfg.Resolve()
	reg := prometheus.NewRegistry()
	return event.New(promsink.NewMetrics(reg).ForProbe(cfg)), reg
}

// Each event of the hot path lands in its family, the latencies under the
// partition's leader.
func TestEventsReachTheirFamilies(t *testing.T) {
	hs, reg := sinkFor(t, "p")
	now := time.Now()
	hs.Leaders([]int32{1, -1})
	hs.Sent(time.Millisecond)
	hs.Produced(event.Produced{Now: now, Latency: 3 * time.Millisecond, Bytes: 100, ID: event.RecordID{Partition: 0}})
	hs.Produced(event.Produced{Now: now, Latency: 3 * time.Millisecond, Bytes: 100, ID: event.RecordID{Partition: 1}})
	hs.Failed(event.ReasonTimeout, 2)
	hs.Consumed(event.Consumed{Now: now, EndToEnd: 4 * time.Millisecond, Bytes: 100, Own: true, InRebalance: true})
	hs.Consumed(event.Consumed{Now: now, Bytes: 7, Foreign: true})
	hs.Polled(2)
	hs.Anomaly(event.Duplicated, 1)
	hs.Anomaly(event.Lost, 5)
	hs.Commit(2*time.Millisecond, false)
	hs.Commit(0, true)
	hs.Fetched(0, 2, 9)
	hs.Topic(2, 3)
	f := scrape.MustGather(t, reg)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kafka_bench_produced_records_total", nil, 2},
		{"kafka_bench_produced_bytes_total", nil, 200},
		{"kafka_bench_produce_failed_total", []string{"reason", event.ReasonTimeout}, 2},
		{"kafka_bench_consumed_records_total", nil, 2},
		{"kafka_bench_consumed_bytes_total", nil, 107},
		{"kafka_bench_records_foreign_total", nil, 1},
		{"kafka_bench_records_duplicated_total", nil, 1},
		{"kafka_bench_records_lost_total", nil, 5},
		{"kafka_bench_commit_failed_total", nil, 1},
		{"kafka_bench_consumer_fetched_records_total", []string{"broker", "1", "fetch_broker", "2"}, 9},
		{"kafka_bench_probe_info", []string{"partitions", "2", "replication_factor", "3"}, 1},
	} {
		if got, ok := f.Value(c.name, append([]string{"probe", "p"}, c.labels...)...); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for _, c := range []struct {
		name   string
		labels []string
	}{
		{"kafka_bench_send_delay_seconds", nil},
		{"kafka_bench_produce_latency_seconds", []string{"broker", "1"}},
		{"kafka_bench_produce_latency_seconds", []string{"broker", "unknown"}},
		{"kafka_bench_end_to_end_latency_seconds", []string{"broker", "1"}},
		{"kafka_bench_consumer_rebalance_end_to_end_latency_seconds", nil},
		{"kafka_bench_commit_latency_seconds", nil},
	} {
		ms := f.Find(c.name, append([]string{"probe", "p"}, c.labels...)...)
		if len(ms) != 1 || ms[0].GetHistogram().GetSampleCount() != 1 {
			t.Errorf("%s%v: %d series, want one of 1 observation", c.name, c.labels, len(ms))
		}
	}
}

// A lag that is not known drops its series, as a stale value would
// mislead; a stopped probe leaves no series behind.
func TestLagDroppedWhenUnknownAndSeriesGoneOnStop(t *testing.T) {
	hs, reg := sinkFor(t, "p")
	known := event.Gauge{Value: 3, Known: true}
	hs.Lag(event.Lag{Records: known, Seconds: known, GroupRecords: known, GroupSeconds: known})
	if _, ok := scrape.MustGather(t, reg).Value("kafka_bench_consumer_lag_seconds", "probe", "p"); !ok {
		t.Fatal("lag in seconds absent once known")
	}
	hs.Lag(event.Lag{Records: known, GroupRecords: known})
	f := scrape.MustGather(t, reg)
	if _, ok := f.Value("kafka_bench_consumer_lag_seconds", "probe", "p"); ok {
		t.Error("lag in seconds kept once unknown")
	}
	if v, ok := f.Value("kafka_bench_consumer_group_lag_records", "probe", "p"); !ok || v != 3 {
		t.Errorf("group lag %v (present %v), want 3", v, ok)
	}
	hs.Stopped()
	for name, mf := range scrape.MustGather(t, reg) {
		if len(mf.GetMetric()) > 0 {
			t.Errorf("%s: %d series left after the probe stopped", name, len(mf.GetMetric()))
		}
	}
}

// A share probe's acknowledgements of unknown outcome are counted by
// resolution, both series there from the first scrape.
func TestShareUnknownResolutions(t *testing.T) {
	cfg := config.NewProbe("s")
	cfg.Consumer.Kind = config.ConsumerKindShare
	cfg.Resolve()
	reg := prometheus.NewRegistry()
	hs := event.New(promsink.NewMetrics(reg).ForProbe(cfg))
	hs.ShareUnknown(tracker.UnknownApplied, 3)
	hs.ShareUnknown(tracker.UnknownNotApplied, 2)
	hs.ShareUnknown(tracker.UnknownApplied, 1)
	f := scrape.MustGather(t, reg)
	for res, want := range map[string]float64{"applied": 4, "not_applied": 2} {
		if got, ok := f.Value("kafka_bench_share_ack_unknown_total", "probe", "s", "resolution", res); !ok || got != want {
			t.Errorf("kafka_bench_share_ack_unknown_total{resolution=%q} = %v (present %v), want %v", res, got, ok, want)
		}
	}
}
