package probes_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink"
)

// lagGauges are every lag family of a probe and its link.
var lagGauges = []string{"kafka_bench_consumer_lag_records", "kafka_bench_consumer_lag_seconds",
	"kafka_bench_consumer_group_lag_records", "kafka_bench_consumer_group_lag_seconds",
	"kafka_bench_replication_lag_records", "kafka_bench_replication_lag_seconds"}

func noLagSeries(t *testing.T, f scrape.Families, probe, when string) {
	t.Helper()
	for _, name := range lagGauges {
		if v, ok := f.Value(name, "probe", probe); ok {
			t.Errorf("%s: %s = %v, want no series: the lag is unknown", when, name, v)
		}
	}
}

// A lag is unknown until it was read: a probe just made (no broker asked
// yet) exports no lag series, where it used to export 0 ("caught up"), and
// a producer-only probe never has one, however long it runs.
func TestNoLagSeriesWhileUnknown(t *testing.T) {
	brokers := probetest.Kfake(t, 1)
	cfg := probetest.Config(t, fmt.Sprintf(`
probes:
  - name: fresh
    replica: {kafka: {brokers: [%s]}}
`, brokers[0]), brokers)
	reg := prometheus.NewRegistry()
	probes.New(cfg.Probes[0], probes.Options{Kafka: config.Cluster{Kafka: cfg.Kafka}, Sinks: []event.Sink{promsink.NewMetrics(reg)}})
	f := probetest.Gather(t, reg)
	probetest.Value(t, f, "kafka_bench_produced_records_total", "probe", "fresh") // the probe's series exist
	noLagSeries(t, f, "fresh", "a new probe")

	run := probetest.Start(t, `
probes:
  - name: solo
    rate: 200
    lag_interval: 100ms
    consumer: {enabled: false}
`, brokers)
	// 300 records at 200/s are 15 lag intervals.
	probetest.Eventually(t, time.Minute, "records produced", func() (bool, string) {
		n := probetest.Value(t, run.Gather(t), "kafka_bench_produced_records_total", "probe", "solo")
		return n >= 300, fmt.Sprint(n)
	})
	noLagSeries(t, run.Gather(t), "solo", "a producer-only probe")
}
