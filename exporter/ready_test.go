package exporter_test

import (
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
)

// /-/ready and kafka_bench_probe_up agree: with a lag interval far longer
// than the test, the first records must raise probe_up by themselves, not
// at the next lag tick.
func TestReadyAgreesWithProbeUp(t *testing.T) {
	emb := exportertest.Embedded(t)
	x := exportertest.Start(t, `
host: {enabled: false}
config_poll_interval: 0s
probes:
  - name: slowtick
    rate: 50
    record_size: 100
    lag_interval: 10m
`, emb.Brokers())
	x.WaitReady(t, 30*time.Second)
	f := x.Scrape(t)
	v, ok := f.Value("kafka_bench_probe_up", "probe", "slowtick")
	if !ok || v != 1 {
		t.Errorf("/-/ready answers 200 but kafka_bench_probe_up = %v (present %v), want 1", v, ok)
	}
}
