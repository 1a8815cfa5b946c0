package bench

import (
	"context"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

// findMaxRate runs the scenario's capacity ramp once, on the scenario's own
// topic, with the daemon's capacity runner (find_max_rate).
func (r *Runner) findMaxRate(ctx context.Context, b *Bench, p config.Probe, res Result) Result {
	c := *p.Capacity
	c.Topic = p.Topic
	p.Capacity = &c
	host := startHostWatch(ctx, r.ReadHost)
	cr := probes.NewCapacity(p, probes.CapacityOptions{Kafka: b.Kafka, Logger: r.Logger}).RunOnce(ctx)
	hs, err := host.stop(context.Background())
	if err != nil {
		r.Logger.Warn("host counters unavailable", "scenario", displayName(res.Scenario), "err", err)
	}
	res.Host, res.Capacity = hs, &cr
	switch cr.Result {
	case probes.CapacityAborted:
		res.Err = errInterrupted.Error()
	case probes.CapacityError:
		res.Err = cr.Err.Error()
	}
	return res
}
