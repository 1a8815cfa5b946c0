package exporter

import "github.com/kafka-bench/kafka_bench_exporter/probes/promsink"

// ProbeMetrics are the probe metrics on the exporter's registry, for probes
// run outside Apply (bench mode), so that /metrics shows them as well.
func (e *Exporter) ProbeMetrics() *promsink.Metrics { return e.metrics }
