// The recording rules (recording_rules.yml), named level:metric:operations.
// Probe-level series keep the labels cluster, job, instance and probe;
// host-level series keep cluster, job and instance.
{
  prometheusRules+:: {
    groups+: [
      {
        name: 'kafka_bench_throughput.rules',
        rules: [
          {
            record: 'probe:kafka_bench_produced_records:rate1m',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_records_total[1m]))' % $._config,
          },
          {
            record: 'probe:kafka_bench_produced_bytes:rate1m',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_bytes_total[1m]))' % $._config,
          },
          {
            record: 'probe:kafka_bench_consumed_records:rate1m',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_consumed_records_total[1m]))' % $._config,
          },
          {
            record: 'probe:kafka_bench_consumed_bytes:rate1m',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_consumed_bytes_total[1m]))' % $._config,
          },
          {
            record: 'probe:kafka_bench_produced_records:rate5m',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_records_total[5m]))' % $._config,
          },
          {
            record: 'probe:kafka_bench_produced_records:rate30m',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_records_total[30m]))' % $._config,
          },
          {
            record: 'probe:kafka_bench_produce_failed:rate5m',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produce_failed_total[5m]))' % $._config,
          },
          {
            record: 'probe:kafka_bench_produce_errors:ratio_rate5m',
            expr: |||
              probe:kafka_bench_produce_failed:rate5m
              /
              (
                probe:kafka_bench_produce_failed:rate5m
                + (probe:kafka_bench_produced_records:rate5m or probe:kafka_bench_produce_failed:rate5m * 0)
              )
            |||,
          },
        ],
      },
      {
        name: 'kafka_bench_latency.rules',
        rules: [
          {
            record: 'probe:kafka_bench_produce_latency_seconds:p50_5m',
            expr: |||
              histogram_quantile(0.5, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produce_latency_seconds[5m])))
              or
              histogram_quantile(0.5, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_produce_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
          {
            record: 'probe:kafka_bench_produce_latency_seconds:p95_5m',
            expr: |||
              histogram_quantile(0.95, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produce_latency_seconds[5m])))
              or
              histogram_quantile(0.95, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_produce_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
          {
            record: 'probe:kafka_bench_produce_latency_seconds:p99_5m',
            expr: |||
              histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produce_latency_seconds[5m])))
              or
              histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_produce_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
          {
            record: 'probe:kafka_bench_produce_latency_seconds:p999_5m',
            expr: |||
              histogram_quantile(0.999, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produce_latency_seconds[5m])))
              or
              histogram_quantile(0.999, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_produce_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
          {
            record: 'probe:kafka_bench_end_to_end_latency_seconds:p50_5m',
            expr: |||
              histogram_quantile(0.5, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds[5m])))
              or
              histogram_quantile(0.5, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
          {
            record: 'probe:kafka_bench_end_to_end_latency_seconds:p95_5m',
            expr: |||
              histogram_quantile(0.95, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds[5m])))
              or
              histogram_quantile(0.95, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
          {
            record: 'probe:kafka_bench_end_to_end_latency_seconds:p99_5m',
            expr: |||
              histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds[5m])))
              or
              histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
          {
            record: 'probe:kafka_bench_end_to_end_latency_seconds:p999_5m',
            expr: |||
              histogram_quantile(0.999, sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds[5m])))
              or
              histogram_quantile(0.999, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket[5m])))
            ||| % $._config,
          },
        ],
      },
      $.latencySLORuleGroup,
      $.availabilitySLORuleGroup,
      {
        name: 'kafka_bench_host.rules',
        rules: [
          {
            record: 'instance:kafka_bench_host_cpu_busy:ratio_rate5m',
            expr: |||
              1 - (
                sum by (%(clusterLabel)s, job, instance) (rate(kafka_bench_host_cpu_seconds_total{mode="idle"}[5m]))
                /
                sum by (%(clusterLabel)s, job, instance) (kafka_bench_host_cpus)
              )
            ||| % $._config,
          },
        ],
      },
    ],
  },
}
