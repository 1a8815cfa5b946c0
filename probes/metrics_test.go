package probes

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kadm"
)

// touch updates every per-record series of probe p as the producer and the
// consumer do, and one series that is not per record (commit latency).
func touch(m *Metrics, p string) {
	pm := m.forProbe(p, 10)
	pm.produced.Inc()
	pm.producedBytes.Add(100)
	pm.sendDelay.Observe(0.001)
	pm.consumed.Add(1)
	pm.consumedBytes.Add(100)
	pm.commitLatency.Observe(0.002)
	ll := &leaderLatency{probe: p, metrics: m}
	ll.set(kadm.PartitionDetails{0: {Partition: 0, Leader: 1}})
	ll.produce(0).Observe(0.003)
	ll.e2e(0).Observe(0.004)
}

// histogramOf is the histogram of vec's child with labels.
func histogramOf(t *testing.T, vec *prometheus.HistogramVec, labels ...string) *dto.Histogram {
	t.Helper()
	var pb dto.Metric
	if err := vec.WithLabelValues(labels...).(prometheus.Histogram).Write(&pb); err != nil {
		t.Fatal(err)
	}
	return pb.GetHistogram()
}

func histogramCount(t *testing.T, vec *prometheus.HistogramVec, labels ...string) uint64 {
	t.Helper()
	return histogramOf(t, vec, labels...).GetSampleCount()
}

// Watched metrics keep what the probe updates; UnreadMetrics keep nothing
// of the per-record series and everything else.
func TestUnreadMetricsDropOnlyPerRecordSeries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       *Metrics
		perRec  float64
		perRecN uint64
	}{
		{"watched", NewMetrics(prometheus.NewRegistry()), 1, 1},
		{"unread", UnreadMetrics(), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			touch(tc.m, "p")
			for name, got := range map[string]float64{
				"produced":       counterValue(tc.m.produced.WithLabelValues("p")),
				"produced bytes": counterValue(tc.m.producedBytes.WithLabelValues("p")) / 100,
				"consumed":       counterValue(tc.m.consumed.WithLabelValues("p")),
				"consumed bytes": counterValue(tc.m.consumedBytes.WithLabelValues("p")) / 100,
			} {
				if got != tc.perRec {
					t.Errorf("%s = %v, want %v", name, got, tc.perRec)
				}
			}
			for name, got := range map[string]uint64{
				"send delay":      histogramCount(t, tc.m.sendDelay, "p"),
				"produce latency": histogramCount(t, tc.m.produceLatency, "p", "1"),
				"e2e latency":     histogramCount(t, tc.m.e2eLatency, "p", "1"),
			} {
				if got != tc.perRecN {
					t.Errorf("%s count = %d, want %d", name, got, tc.perRecN)
				}
			}
			if got := histogramCount(t, tc.m.commitLatency, "p"); got != 1 {
				t.Errorf("commit latency count = %d, want 1 (not a per-record series)", got)
			}
		})
	}
}
