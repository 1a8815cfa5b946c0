package promsink

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/probes/event"
	"github.com/kafka-bench/kafka_bench_exporter/probes/promsink/family"
)

// CapacityMetrics defines the capacity canary's metrics once; each probe
// with a capacity block takes its children. It is the canaries' sink.
type CapacityMetrics struct {
	records  *prometheus.GaugeVec
	bytes    *prometheus.GaugeVec
	p99      *prometheus.GaugeVec
	lastRun  *prometheus.GaugeVec
	interval *prometheus.GaugeVec
	runs     *prometheus.CounterVec
	limit    *prometheus.GaugeVec
}

var _ event.CapacitySink = (*CapacityMetrics)(nil)

// NewCapacityMetrics creates and registers the capacity metrics on reg.
func NewCapacityMetrics(reg prometheus.Registerer) *CapacityMetrics {
	m := &CapacityMetrics{
		records:  family.Gauge("kafka_bench_capacity_records_per_second", "Capacity found by the last successful capacity run: the highest step rate whose produce p99 stayed within the latency SLO."),
		bytes:    family.Gauge("kafka_bench_capacity_bytes_per_second", "Capacity of the last successful capacity run in record value bytes per second."),
		p99:      family.Gauge("kafka_bench_capacity_p99_seconds", "Produce latency p99 at the capacity step of the last successful capacity run."),
		lastRun:  family.Gauge("kafka_bench_capacity_last_run_timestamp_seconds", "Unix time the last successful capacity run ended; the schedule's start until the first one."),
		interval: family.Gauge("kafka_bench_capacity_interval_seconds", "Configured time from the end of one capacity run to the start of the next (± 10 % jitter)."),
		runs:     family.Counter("kafka_bench_capacity_runs_total", "Capacity runs by result: ok, aborted (reload or shutdown), error (could not ramp, or the cluster took no records during a step: the previous capacity, limit and last-run time stay).", "result"),
		limit:    family.Gauge("kafka_bench_capacity_limit", "1 for the reason the last capacity run stopped (latency, rate, errors, ceiling), else 0.", "reason"),
	}
	family.Register(reg, m.families()...)
	return m
}

func (m *CapacityMetrics) families() []family.Vec {
	return []family.Vec{m.records, m.bytes, m.p99, m.lastRun, m.interval, m.runs, m.limit}
}

// series are one probe's children.
type series struct {
	m    *CapacityMetrics
	name string
}

// ForCapacity creates the series a probe has before its first run: counters
// at 0, no limit yet, the last-run time at the schedule's start. The
// capacity gauges appear with the first successful run, so that no alert
// reads a capacity of 0 that was never measured.
func (m *CapacityMetrics) ForCapacity(name string, interval time.Duration) event.CapacityHook {
	for _, r := range event.CapacityResults {
		m.runs.WithLabelValues(name, r)
	}
	for _, l := range event.CapacityLimits {
		m.limit.WithLabelValues(name, l)
	}
	m.interval.WithLabelValues(name).Set(interval.Seconds())
	m.lastRun.WithLabelValues(name).SetToCurrentTime()
	return &series{m: m, name: name}
}

// OnCapacityRun counts the run and, when it found a capacity, sets it.
func (s *series) OnCapacityRun(res event.CapacityRun) {
	s.m.runs.WithLabelValues(s.name, res.Result).Inc()
	if res.Limit != "" {
		for _, l := range event.CapacityLimits {
			v := 0.0
			if l == res.Limit {
				v = 1
			}
			s.m.limit.WithLabelValues(s.name, l).Set(v)
		}
	}
	if res.Result != event.CapacityOK {
		return
	}
	s.m.records.WithLabelValues(s.name).Set(res.RecordsPerSecond)
	s.m.bytes.WithLabelValues(s.name).Set(res.BytesPerSecond)
	s.m.p99.WithLabelValues(s.name).Set(res.P99.Seconds())
	s.m.lastRun.WithLabelValues(s.name).Set(float64(res.End.UnixNano()) / 1e9)
}

// OnCapacityStopped removes a stopped probe's series.
func (s *series) OnCapacityStopped() {
	family.DeleteProbe(s.name, s.m.families()...)
}
