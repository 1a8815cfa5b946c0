package exporter

import "github.com/kafka-bench/kafka_bench_exporter/probes/event"

// ProbeSinks are the exporter's sinks of probe events, the metrics on its
// registry and the landing page's ring, for probes run outside Apply
// (bench mode), so that /metrics and the landing page show them as well.
func (e *Exporter) ProbeSinks() []event.Sink { return []event.Sink{e.metrics, e.live} }
