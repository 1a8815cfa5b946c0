package run

import (
	"context"
	"log/slog"

	"github.com/kafka-bench/kafka_bench_exporter/bench/hostwatch"
	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/bench/spec"
	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/probes/capacity"
)

// findMaxRate runs the scenario's capacity ramp once, on the scenario's own
// topic, with the daemon's capacity runner (find_max_rate).
func (r *Runner) findMaxRate(ctx context.Context, b *spec.Bench, p config.Probe, payload [][]byte, res result.Result, hosts []*hostwatch.Source, logger *slog.Logger) result.Result {
	c := *p.Capacity
	c.Topic = p.Topic
	p.Capacity = &c
	host := hostwatch.Start(ctx, hosts, r.HostInterval)
	cr := capacity.New(p, capacity.Options{Kafka: b.Kafka, Payload: payload, Logger: r.Logger, Credentials: r.Credentials}).RunOnce(ctx)
	res.Hosts = host.Stop(context.Background())
	res.Host, res.Capacity = hostwatch.OwnStats(res.Hosts[0]), &cr
	switch cr.Result {
	case capacity.ResultAborted:
		res.Err = ErrInterrupted.Error()
	case capacity.ResultError:
		res.Err = cr.Err.Error()
	}
	if herr := r.unreachable(res.Hosts, logger); herr != nil && res.Err == "" {
		res.Err = herr.Error()
	}
	return res
}
