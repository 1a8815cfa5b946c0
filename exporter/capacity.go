package exporter

import (
	"context"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
)

// runCapacity schedules p's capacity canary, when it has one, until ctx
// ends (the probe's reload or shutdown); the channel closes once it stopped.
// The exporter's one gate keeps runs of different probes from overlapping.
func (e *Exporter) runCapacity(ctx context.Context, k config.Cluster, r config.ResolvedProbe) <-chan struct{} {
	p := r.Probe
	done := make(chan struct{})
	if p.Capacity == nil {
		close(done)
		return done
	}
	c := capacity.New(p, capacity.Options{Kafka: k, Payload: r.Payload(), Metrics: e.capacity, Logger: e.logger, Gate: e.capacityGate,
		Credentials: e.creds})
	go func() {
		defer close(done)
		c.Schedule(ctx)
	}()
	return done
}
