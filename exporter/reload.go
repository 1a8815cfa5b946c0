package exporter

import (
	"context"
	"reflect"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
)

// reloadState is the outcome of the last configuration load, as Prometheus
// exports its own (prometheus_config_last_reload_*).
type reloadState struct {
	mu         sync.Mutex // serialises Reload: load and apply as one step
	successful prometheus.Gauge
	timestamp  prometheus.Gauge
}

func newReloadState(reg prometheus.Registerer) *reloadState {
	r := &reloadState{
		successful: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kafka_bench_config_last_reload_successful",
			Help: "1 if the last configuration load (start, SIGHUP or POST /-/reload) succeeded, 0 if it was rejected and the previous configuration still runs.",
		}),
		timestamp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kafka_bench_config_last_reload_success_timestamp_seconds",
			Help: "Unix time of the last successful configuration load.",
		}),
	}
	reg.MustRegister(r.successful, r.timestamp)
	return r
}

// applied records a configuration that is now running.
func (r *reloadState) applied() {
	r.successful.Set(1)
	r.timestamp.SetToCurrentTime()
}

// Reload loads a new configuration with load and applies it. A load error
// (an invalid file) changes nothing: the running probes go on with the old
// configuration, the error is logged and returned, and
// kafka_bench_config_last_reload_successful drops to 0. After Stop nothing
// is loaded or applied: ErrStopped is logged and returned, and the gauge
// keeps its value (the file is not at fault).
func (e *Exporter) Reload(ctx context.Context, load func() (*config.Resolved, error)) error {
	e.reload.mu.Lock()
	defer e.reload.mu.Unlock()
	if e.isStopped() {
		e.logger.Warn("configuration reload refused", "err", ErrStopped)
		return ErrStopped
	}
	res, err := load()
	if err == nil {
		// A configuration whose clients franz-go would refuse must not
		// stop the probes that run now.
		err = kclient.Check(res)
	}
	if err != nil {
		e.reload.successful.Set(0)
		e.logger.Error("configuration reload rejected; the running configuration stays", "err", err)
		return err
	}
	if err := e.Apply(ctx, res); err != nil {
		e.logger.Warn("configuration reload refused", "err", err)
		return err
	}
	e.logger.Info("configuration reloaded", "probes", len(res.Probes))
	return nil
}

// warnSections logs the risky settings of each new or changed kafka
// section of cfg (the kafka block, each probe's replica block), a replica
// block's with its probe's name.
func (e *Exporter) warnSections(old, cfg *config.Config) {
	var before []config.Section
	if old != nil {
		before = old.Sections()
	}
	for _, s := range cfg.Sections() {
		if slices.ContainsFunc(before, func(o config.Section) bool { return reflect.DeepEqual(o, s) }) {
			continue
		}
		logger := e.logger
		if s.Probe != "" {
			logger = logger.With("probe", s.Probe)
		}
		for _, w := range s.Warnings() {
			logger.Warn(w)
		}
	}
}
