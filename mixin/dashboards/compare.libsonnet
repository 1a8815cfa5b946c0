// The Compare dashboard: two probes side by side (A vs B), and probe A now
// against itself an offset earlier (before and after a broker config
// change).
local g = import '../lib/grafana.libsonnet';

{
  grafanaDashboards+:: {
    local q = (import '../lib/queries.libsonnet')($._config, $.recordedSeries),
    local a = q.scope('$cluster_a', 'probe="$probe_a"'),
    local b = q.scope('$cluster_b', 'probe="$probe_b"'),
    local ab = q.scope('$cluster_a|$cluster_b', 'probe=~"$probe_a|$probe_b"'),
    local info(matchers) = 'kafka_bench_probe_info{%s}' % std.join(', ', matchers),
    local cl = $._config.clusterLabel,

    'kafka-bench-compare.json': g.dashboard(
      'kafka-bench-compare',
      'Kafka Bench / Compare',
      'Compare two kafka_bench_exporter probes side by side (A vs B), and probe A now against itself an offset earlier (before/after a broker config change).',
      variables=[
        g.datasourceVariable,
        g.queryVariable('job', 'Job', 'label_values(%s, job)' % info([$._config.jobSelector])),
        g.queryVariable('instance', 'Instance', 'label_values(%s, instance)' % info([$._config.jobSelector, 'job=~"$job"'])),
        g.queryVariable('cluster_a', 'Cluster A', 'label_values(%s, %s)' % [info([$._config.jobSelector]), cl], multi=false),
        g.queryVariable('probe_a', 'Probe A', 'label_values(%s, probe)' % a.unprobed.series('kafka_bench_probe_info'), multi=false),
        g.queryVariable('cluster_b', 'Cluster B', 'label_values(%s, %s)' % [info([$._config.jobSelector]), cl], multi=false),
        g.queryVariable('probe_b', 'Probe B', 'label_values(%s, probe)' % b.unprobed.series('kafka_bench_probe_info'), multi=false),
        g.customVariable('compare_offset', 'Compare offset', [['1h', '1h'], ['1d', '1d'], ['7d', '7d']], '1d'),
      ],
      annotations=q.annotations(ab),
      rows=[
      g.row('Summary over the selected time range', [
        g.stat('Produced records/s (range average)', 'Average produce rate of each probe over the whole selected time range.', 'count:rec/s', [
          [a.rate('kafka_bench_produced_records_total', range='$__range'), q.legend('A: $probe_a')],
          [b.rate('kafka_bench_produced_records_total', range='$__range'), q.legend('B: $probe_b')],
        ]) + g.size(8, 5),
        g.stat('Produce latency p99 (whole range)', 'p99 produce latency of all records produced in the selected time range.', 's', [
          [a.quantile(0.99, 'kafka_bench_produce_latency_seconds', fn='increase', range='$__range'), q.legend('A: $probe_a')],
          [b.quantile(0.99, 'kafka_bench_produce_latency_seconds', fn='increase', range='$__range'), q.legend('B: $probe_b')],
        ]) + g.size(8, 5),
        g.stat('End-to-end latency p99 (whole range)', 'p99 end-to-end latency of all records consumed in the selected time range.', 's', [
          [a.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds', fn='increase', range='$__range'), q.legend('A: $probe_a')],
          [b.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds', fn='increase', range='$__range'), q.legend('B: $probe_b')],
        ]) + g.size(8, 5),
        g.table('Settings of probe A and B', 'kafka_bench_probe_info of both probes, to see what differs.', ab.series('kafka_bench_probe_info'), ['job', 'instance', 'probe', 'topic', 'acks', 'compression', 'record_size_bytes', 'batch_size_bytes', 'linger_ms', 'partitions', 'replication_factor', 'group']) + g.size(24, 5),
      ]),
      g.row('Probe A ($probe_a) vs probe B ($probe_b)', [
        g.timeseries('Records/s produced and consumed', 'Records acknowledged (produced) and read back (consumed) per second.', 'count:rec/s', [
          [a.rate('kafka_bench_produced_records_total'), q.legend('A: $probe_a produced')],
          [b.rate('kafka_bench_produced_records_total'), q.legend('B: $probe_b produced')],
          [a.rate('kafka_bench_consumed_records_total'), q.legend('A: $probe_a consumed')],
          [b.rate('kafka_bench_consumed_records_total'), q.legend('B: $probe_b consumed')],
        ]) + g.dashed('.*consumed'),
        g.timeseries('MB/s produced and consumed', 'Payload bytes per second.', 'Bps', [
          [a.rate('kafka_bench_produced_bytes_total'), q.legend('A: $probe_a produced')],
          [b.rate('kafka_bench_produced_bytes_total'), q.legend('B: $probe_b produced')],
          [a.rate('kafka_bench_consumed_bytes_total'), q.legend('A: $probe_a consumed')],
          [b.rate('kafka_bench_consumed_bytes_total'), q.legend('B: $probe_b consumed')],
        ]) + g.dashed('.*consumed'),
        g.timeseries('Produce latency p99', 'p99 time until the broker acknowledged a record.', 's', [
          [a.quantile(0.99, 'kafka_bench_produce_latency_seconds'), q.legend('A: $probe_a p99')],
          [b.quantile(0.99, 'kafka_bench_produce_latency_seconds'), q.legend('B: $probe_b p99')],
        ]),
        g.timeseries('End-to-end latency p99', 'p99 time from produce until the probe\'s consumer received the record.', 's', [
          [a.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds'), q.legend('A: $probe_a p99')],
          [b.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds'), q.legend('B: $probe_b p99')],
        ]),
        g.timeseries('Lost / duplicated records', 'Records per interval acknowledged but never consumed (lost) or consumed more than once (duplicated).', 'short', [
          [a.increase('kafka_bench_records_lost_total'), q.legend('A: $probe_a lost')],
          [b.increase('kafka_bench_records_lost_total'), q.legend('B: $probe_b lost')],
          [a.increase('kafka_bench_records_duplicated_total'), q.legend('A: $probe_a duplicated')],
          [b.increase('kafka_bench_records_duplicated_total'), q.legend('B: $probe_b duplicated')],
        ]),
        g.timeseries('Produce failures', 'Records per second that could not be produced (all reasons).', 'count:rec/s', [
          [a.rate('kafka_bench_produce_failed_total'), q.legend('A: $probe_a')],
          [b.rate('kafka_bench_produce_failed_total'), q.legend('B: $probe_b')],
        ]),
      ]),
      g.row('Before / after: probe A ($probe_a) now vs $compare_offset earlier', [
        g.timeseries('Records/s produced: now vs $compare_offset earlier', 'Produce rate of probe A, overlaid with the same probe shifted by the compare offset (e.g. before a broker config change).', 'count:rec/s', [
          [a.rate('kafka_bench_produced_records_total'), q.legend('$probe_a now')],
          [a.rate('kafka_bench_produced_records_total', offset='$compare_offset'), q.legend('$probe_a $compare_offset earlier')],
        ]) + g.dashed('.*earlier'),
        g.timeseries('MB/s produced: now vs $compare_offset earlier', 'Produced payload bytes per second of probe A, now and shifted by the compare offset.', 'Bps', [
          [a.rate('kafka_bench_produced_bytes_total'), q.legend('$probe_a now')],
          [a.rate('kafka_bench_produced_bytes_total', offset='$compare_offset'), q.legend('$probe_a $compare_offset earlier')],
        ]) + g.dashed('.*earlier'),
        g.timeseries('Produce latency p99: now vs $compare_offset earlier', 'p99 produce latency of probe A, now and shifted by the compare offset.', 's', [
          [a.quantile(0.99, 'kafka_bench_produce_latency_seconds'), q.legend('$probe_a now')],
          [a.quantile(0.99, 'kafka_bench_produce_latency_seconds', offset='$compare_offset'), q.legend('$probe_a $compare_offset earlier')],
        ]) + g.dashed('.*earlier'),
        g.timeseries('End-to-end latency p99: now vs $compare_offset earlier', 'p99 end-to-end latency of probe A, now and shifted by the compare offset.', 's', [
          [a.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds'), q.legend('$probe_a now')],
          [a.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds', offset='$compare_offset'), q.legend('$probe_a $compare_offset earlier')],
        ]) + g.dashed('.*earlier'),
        g.timeseries('Produce failures: now vs $compare_offset earlier', 'Failed records per second of probe A, now and shifted by the compare offset.', 'count:rec/s', [
          [a.rate('kafka_bench_produce_failed_total'), q.legend('$probe_a now')],
          [a.rate('kafka_bench_produce_failed_total', offset='$compare_offset'), q.legend('$probe_a $compare_offset earlier')],
        ]) + g.dashed('.*earlier'),
        g.timeseries('Lost / duplicated records: now vs $compare_offset earlier', 'Lost and duplicated records per interval of probe A, now and shifted by the compare offset.', 'short', [
          [a.increase('kafka_bench_records_lost_total'), q.legend('$probe_a lost now')],
          [a.increase('kafka_bench_records_lost_total', offset='$compare_offset'), q.legend('$probe_a lost $compare_offset earlier')],
          [a.increase('kafka_bench_records_duplicated_total'), q.legend('$probe_a duplicated now')],
          [a.increase('kafka_bench_records_duplicated_total', offset='$compare_offset'), q.legend('$probe_a duplicated $compare_offset earlier')],
        ]) + g.dashed('.*earlier'),
      ]),
      ],
    ),
  },
}
