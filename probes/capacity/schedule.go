package capacity

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// Gate lets one capacity run at a time proceed on an exporter, so
// that two probes' ramps never load the cluster (or the exporter's CPU)
// together.
type Gate struct{ ch chan struct{} }

// NewGate returns an open gate.
func NewGate() *Gate { return &Gate{ch: make(chan struct{}, 1)} }

// acquire waits for the gate, and says so when another probe's run (a
// long one holds its best step for the quota window) delays this one.
func (g *Gate) acquire(ctx context.Context, logger *slog.Logger) bool {
	if g == nil {
		return true
	}
	select {
	case g.ch <- struct{}{}:
		return true
	default:
	}
	logger.Info("capacity run waits for another probe's capacity run to end")
	select {
	case g.ch <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (g *Gate) release() {
	if g != nil {
		<-g.ch
	}
}

// Schedule runs the capacity canary until ctx ends: the first run within
// the first tenth of the interval (so a restart does not wait an interval),
// then one interval ± CapacityJitter after each run ends, so runs of one
// probe never overlap and several exporters drift apart. That holds for a
// run that outlasts the interval too (one that holds its best step for the
// quota window): the next one waits an interval after it.
func (c *Canary) Schedule(ctx context.Context) {
	if c.m != nil {
		defer c.m.OnCapacityStopped()
	}
	interval := time.Duration(c.cfg.Interval)
	wait := time.Duration(rand.Float64() * config.CapacityJitter * float64(interval))
	for {
		c.logger.Info("next capacity run", "in", wait.Round(time.Second), "at", time.Now().Add(wait).Format(time.RFC3339))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if !c.opts.Gate.acquire(ctx, c.logger) {
			return
		}
		c.RunOnce(ctx)
		c.opts.Gate.release()
		wait = time.Duration(float64(interval) * (1 + config.CapacityJitter*(2*rand.Float64()-1)))
	}
}
