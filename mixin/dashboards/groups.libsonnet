// The Consumer groups dashboard: every consumer group's lag as the groups
// block exports it (kafka_bench_group_*): the groups furthest behind, one
// group chosen by $group, and the collector that polls them.
local g = import '../lib/grafana.libsonnet';

{
  grafanaDashboards+:: {
    local q = (import '../lib/queries.libsonnet')($._config, $.recordedSeries),
    // o: every group's series, by group; one: the series of $group; c: the
    // collector's series (no group).
    local o = q.scope('$cluster', null, ['group']),
    local one = q.scope('$cluster', 'group="$group"', ['group']),
    local c = o.by([]),
    local cl = $._config.clusterLabel,
    // The collector's families exist whenever it polls, groups or none.
    local polled(matchers) = 'kafka_bench_group_poll_success{%s}' % std.join(', ', matchers),
    // top: the 10 groups of each exporter furthest behind in seconds;
    // among(e): e of those groups alone.
    local top = 'topk by (%s) (10, %s)' % [c.grouping(), o.agg('max', 'kafka_bench_group_lag_seconds')],
    local among(e) = '%s and on (%s) %s' % [e, o.grouping(), top],

    'kafka-bench-groups.json': g.dashboard(
      'kafka-bench-groups',
      'Kafka Bench / Consumer groups',
      "kafka_bench_exporter's consumer groups (the groups block): the groups furthest behind, the lag, members and status of one group, and the collector that polls them.",
      variables=[
        g.datasourceVariable,
        g.queryVariable('cluster', 'Cluster', 'label_values(%s, %s)' % [polled([$._config.jobSelector]), cl]),
        g.queryVariable('job', 'Job', 'label_values(%s, job)' % polled(['%s=~"$cluster"' % cl, $._config.jobSelector])),
        g.queryVariable('instance', 'Instance', 'label_values(%s, instance)' % polled(['%s=~"$cluster"' % cl, $._config.jobSelector, 'job=~"$job"'])),
        g.queryVariable('group', 'Group', 'label_values(%s, group)' % o.series('kafka_bench_group_info'), multi=false),
      ],
      annotations=q.annotations(o),
      rows=[
        g.row('Furthest behind', [
          g.valueTable('Groups furthest behind', 'The 10 groups of each exporter with the largest lag in seconds (kafka_bench_group_lag_seconds, the largest over their topics and partitions), their lag in records (kafka_bench_group_lag_records, summed) and status (kafka_bench_group_status: ok, lagging, stalled or stopped; see How it measures, Consumer groups).', [
            [top, 'Lag', 's'],
            [among(o.agg('sum', 'kafka_bench_group_lag_records')), 'Lag (records)', 'short'],
            [among(o.agg('max', 'kafka_bench_group_status', ['group', 'status']) + ' == 1'), null, null],
            [among(o.agg('max', 'kafka_bench_group_members')), 'Members', 'short'],
          ], [cl, 'instance', 'group', 'status']) + g.size(14),
          g.stat('Groups by status', 'Groups in each status at the last poll (kafka_bench_group_status). KafkaBenchGroupStalled and KafkaBenchGroupStopped fire on stalled and stopped groups, KafkaBenchGroupLagHigh on a lag in seconds above its threshold.', 'short', [
            [c.agg('sum', 'kafka_bench_group_status', ['status']), q.legend('{{status}}')],
          ]) + g.size(10),
          g.timeseries('Lag (seconds) of the groups furthest behind', 'The lag in seconds of the 10 groups of each exporter furthest behind at each moment (kafka_bench_group_lag_seconds, the largest over their topics and partitions): how long ago the first record a group has not consumed was written.', 's', [
            [top, q.legend('{{group}}')],
          ]) + g.size(24),
        ]),
        g.row('Group $group', [
          g.table('Group $group', 'The group as its coordinator describes it (kafka_bench_group_info): type (classic, consumer, share, streams), protocol type, protocol (the assignor) and state.', one.series('kafka_bench_group_info'), ['job', 'instance', 'group', 'type', 'protocol_type', 'protocol', 'state']) + g.size(24, 4),
          g.timeseries('Lag (seconds) by topic and partition', 'How long ago the first record the group has not consumed was written (kafka_bench_group_lag_seconds), 0 when caught up, per topic or partition as groups.granularity exports it.', 's', [
            [one.agg('max', 'kafka_bench_group_lag_seconds', ['group', 'topic', 'partition']), q.legend('{{group}} {{topic}} {{partition}}')],
          ]),
          g.timeseries('Lag (records) by topic and partition', 'High watermark minus the committed offset (kafka_bench_group_lag_records; a share group: the broker\'s own lag), 0 when caught up, per topic or partition as groups.granularity exports it.', 'short', [
            [one.agg('sum', 'kafka_bench_group_lag_records', ['group', 'topic', 'partition']), q.legend('{{group}} {{topic}} {{partition}}')],
          ]),
          g.timeseries('Members', 'Members of the group at each poll (kafka_bench_group_members). No members while behind: the group is stopped.', 'short', [
            [one.agg('max', 'kafka_bench_group_members'), q.legend('{{group}}')],
          ]) + g.size(8),
          g.timeseries('Unassigned partitions', 'Partitions of the group\'s topics (those it committed offsets for or subscribes to) that no member owns (kafka_bench_group_unassigned_partitions).', 'short', [
            [one.agg('max', 'kafka_bench_group_unassigned_partitions'), q.legend('{{group}}')],
          ]) + g.size(8),
          g.timeseries('Status', 'The group\'s status at each poll (kafka_bench_group_status, 1 for the current one): ok, lagging (behind and not catching up while its offsets move), stalled (behind, members, and no committed offset moved for groups.stall_window) or stopped (behind and no members).', 'short', [
            [one.agg('max', 'kafka_bench_group_status', ['group', 'status']), q.legend('{{group}} {{status}}')],
          ]) + g.size(8) + g.stacked,
          g.timeseries('Time since the committed offsets last moved', 'Time since the poll that last saw one of the group\'s committed offsets move (kafka_bench_group_offsets_moved_timestamp_seconds; after an exporter restart, since its first poll). It grows while the group commits nothing.', 's', [
            ['time() - ' + one.agg('max', 'kafka_bench_group_offsets_moved_timestamp_seconds'), q.legend('{{group}}')],
          ]),
          g.timeseries('Offset resets', 'Committed offsets of the group seen going backwards from one poll to the next, per interval (kafka_bench_group_offset_resets_total): an offset reset, records read again.', 'short', [
            [one.increase('kafka_bench_group_offset_resets_total'), q.legend('{{group}}')],
          ]),
        ]),
        g.row('Collector', [
          g.timeseries('Poll duration', 'How long the last poll of the consumer groups took (kafka_bench_group_poll_duration_seconds); a poll runs every groups.interval (30 s), in the background: a scrape never waits on it.', 's', [
            [c.agg('max', 'kafka_bench_group_poll_duration_seconds'), q.legend('{{instance}}')],
          ]) + g.size(8),
          g.stat('Last poll read every group', '1 when the last poll read every group it listed, 0 when a broker was unreachable or a group or its offsets could not be read (kafka_bench_group_poll_success; the log says which).', 'none', [
            [c.agg('min', 'kafka_bench_group_poll_success'), q.legend('{{instance}}')],
          ]) + g.size(8) + g.valueMappings({ '0': ['FAILED', 'red'], '1': ['OK', 'green'] }),
          g.timeseries('Age of the last successful poll', 'Time since the last poll that read every group (kafka_bench_group_poll_last_success_timestamp_seconds): the group families may be that old.', 's', [
            ['time() - ' + c.agg('max', 'kafka_bench_group_poll_last_success_timestamp_seconds'), q.legend('{{instance}}')],
          ]) + g.size(8),
          g.timeseries('Groups by type', 'Groups exported at the last poll, by type: classic, consumer (KIP-848), share (KIP-932), streams (KIP-1071) (kafka_bench_groups).', 'short', [
            [c.agg('sum', 'kafka_bench_groups', ['type']), q.legend('{{instance}} {{type}}')],
          ]) + g.size(8) + g.stacked,
          g.timeseries('Series dropped and topics denied', 'Per-group series left out at the last poll to stay within groups.max_series (kafka_bench_group_series_dropped; the groups least behind are dropped, whole), and topics of the groups the exporter may not describe, whose partitions have no lag (kafka_bench_group_topics_denied).', 'short', [
            [c.agg('max', 'kafka_bench_group_series_dropped'), q.legend('{{instance}} series dropped')],
            [c.agg('max', 'kafka_bench_group_topics_denied'), q.legend('{{instance}} topics denied')],
          ]) + g.size(8),
          g.table('Group types skipped', 'Group types this exporter does not read on the cluster, with the reason: a broker that does not advertise the API that describes them (kafka_bench_group_type_skipped_info).', c.series('kafka_bench_group_type_skipped_info'), ['job', 'instance', 'type', 'reason']) + g.size(8),
        ]),
      ],
    ),
  },
}
