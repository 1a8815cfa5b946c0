package probes_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/probes"
	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// failures is a hook that keeps the failures by reason.
type failures struct {
	mu       sync.Mutex
	byReason map[string]int
}

func (f *failures) OnFailed(reason string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byReason[reason] += n
}

func (f *failures) get(reason string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byReason[reason]
}

// A sink hears every failure the metric counts, with its reason (here
// records due while the broker's certificate is refused), so bench mode
// never reads kafka_bench_produce_failed_total back out of a registry.
func TestRecorderHearsFailures(t *testing.T) {
	c := untrustedTLSCluster(t)
	rec := &failures{byReason: map[string]int{}}
	x := probetest.StartWith(t, `
kafka:
  tls: {enabled: true}
probes:
  - name: refused
    rate: 100
    lag_interval: 500ms
`, c.ListenAddrs(), probes.Options{Logger: probetest.Logger(), Sinks: []event.Sink{probes.HookSink{H: rec}}})
	probetest.Eventually(t, 30*time.Second, "the recorder and the metric agree on the failures", func() (bool, string) {
		metric := probetest.Value(t, x.Gather(t), "kafka_bench_produce_failed_total", "probe", "refused", "reason", probes.ReasonAuth)
		heard := rec.get(probes.ReasonAuth)
		return metric > 0 && float64(heard) == metric, fmt.Sprintf("metric %v, recorder %d", metric, heard)
	})
}
