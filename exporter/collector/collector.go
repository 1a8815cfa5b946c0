// Package collector exports host metrics read at scrape time, node_exporter
// style: each Collector (today the host one, host.go, reading through
// package hostinfo) has its own file, and a Set runs them all and reports
// per-collector duration and success.
package collector

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const namespace = "kafka_bench"

// Collector emits the metrics of one source. Update may emit some metrics
// before returning an error; they are still exported.
type Collector interface {
	Update(ch chan<- prometheus.Metric) error
}

// ErrDisabled is what a switched-off collector returns from Update: the set
// then exports nothing for it, not even a success of 1.
var ErrDisabled = errors.New("collector disabled")

type set struct {
	logger      *slog.Logger
	collectors  map[string]Collector
	durationDsc *prometheus.Desc
	successDsc  *prometheus.Desc
}

// NewSet wraps named collectors into one prometheus.Collector that runs each
// concurrently at scrape time and reports
// kafka_bench_scrape_collector_duration_seconds{collector} and
// kafka_bench_scrape_collector_success{collector}. A failing collector is
// logged at warn and does not stop the others.
//
// Like node_exporter, only the two scrape descriptors are described: the
// collectors' own metrics are checked at gather time, so do not register the
// set with a pedantic registry.
func NewSet(logger *slog.Logger, collectors map[string]Collector) prometheus.Collector {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &set{
		logger:     logger,
		collectors: collectors,
		durationDsc: prometheus.NewDesc(
			prometheus.BuildFQName(namespace, "scrape", "collector_duration_seconds"),
			"Time a host metrics collector took during the last scrape.",
			[]string{"collector"}, nil),
		successDsc: prometheus.NewDesc(
			prometheus.BuildFQName(namespace, "scrape", "collector_success"),
			"Whether a host metrics collector succeeded during the last scrape (1) or failed (0).",
			[]string{"collector"}, nil),
	}
}

func (s *set) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.durationDsc
	ch <- s.successDsc
}

func (s *set) Collect(ch chan<- prometheus.Metric) {
	var wg sync.WaitGroup
	for name, c := range s.collectors {
		wg.Go(func() { s.run(name, c, ch) })
	}
	wg.Wait()
}

func (s *set) run(name string, c Collector, ch chan<- prometheus.Metric) {
	start := time.Now()
	err := c.Update(ch)
	if errors.Is(err, ErrDisabled) {
		return
	}
	d := time.Since(start)
	success := 1.0
	if err != nil {
		success = 0
		s.logger.Warn("collector failed", "collector", name, "duration_seconds", d.Seconds(), "err", err)
	} else {
		s.logger.Debug("collector succeeded", "collector", name, "duration_seconds", d.Seconds())
	}
	ch <- prometheus.MustNewConstMetric(s.durationDsc, prometheus.GaugeValue, d.Seconds(), name)
	ch <- prometheus.MustNewConstMetric(s.successDsc, prometheus.GaugeValue, success, name)
}
