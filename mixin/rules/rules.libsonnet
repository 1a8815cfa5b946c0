// The recording rules (recording_rules.yml), named level:metric:operations.
// Probe-level series keep the labels cluster, job, instance and probe;
// host-level series keep cluster, job and instance.
//
// The dashboards read the throughput and latency rules in place of their
// expressions when _config.dashboardsUseRecordingRules is set
// (recordedSeries); the alerts read the 5m rates and the host CPU ratio.

local num = (import '../lib/utils.libsonnet').num;

// [metric, window, record]: the per-probe rates.
local rates = [
  ['kafka_bench_produced_records_total', '1m', 'probe:kafka_bench_produced_records:rate1m'],
  ['kafka_bench_produced_bytes_total', '1m', 'probe:kafka_bench_produced_bytes:rate1m'],
  ['kafka_bench_consumed_records_total', '1m', 'probe:kafka_bench_consumed_records:rate1m'],
  ['kafka_bench_consumed_bytes_total', '1m', 'probe:kafka_bench_consumed_bytes:rate1m'],
  ['kafka_bench_produced_records_total', '5m', 'probe:kafka_bench_produced_records:rate5m'],
  ['kafka_bench_produce_failed_total', '5m', 'probe:kafka_bench_produce_failed:rate5m'],
];
// The latency histograms whose quantiles over 5m are recorded, and the
// quantiles: probe:<metric>:p99_5m.
local latency = ['kafka_bench_produce_latency_seconds', 'kafka_bench_end_to_end_latency_seconds'];
local quantiles = [[0.5, 'p50'], [0.95, 'p95'], [0.99, 'p99'], [0.999, 'p999']];

{
  local rate(m, w) = {
    record: m[2],
    expr: 'sum by (%s, job, instance, probe) (rate(%s[%s]))' % [$._config.clusterLabel, m[0], w],
  },

  // recordedSeries: the recording rule a dashboard reads for a metric's
  // rate (the shortest window recorded) or quantile.
  recordedSeries:: {
    rates: {
      [m]: { rate: [r[2] for r in rates if r[0] == m][0] }
      for m in std.set([r[0] for r in rates])
    },
    quantiles: {
      [m]: { [num(q[0])]: 'probe:%s:%s_5m' % [m, q[1]] for q in quantiles }
      for m in latency
    },
  },

  prometheusRules+:: {
    groups+: [
      {
        name: 'kafka_bench_throughput.rules',
        rules: [
          rate(r, r[1])
          for r in rates
        ] + [
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
            record: $.recordedSeries.quantiles[m][num(q[0])],
            expr: |||
              histogram_quantile(%(q)s, sum by (%(clusterLabel)s, job, instance, probe) (rate(%(m)s[5m])))
              or
              histogram_quantile(%(q)s, sum by (%(clusterLabel)s, job, instance, probe, le) (rate(%(m)s_bucket[5m])))
            ||| % ($._config { m: m, q: num(q[0]) }),
          }
          for m in latency
          for q in quantiles
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
