// The Overview dashboard: throughput, latency, delivery correctness,
// consumer lag, the load generator's host, the Kafka client, the broker
// hosts and the optional probe features, per probe.
local g = import '../lib/grafana.libsonnet';

{
  grafanaDashboards+:: {
    local q = (import '../lib/queries.libsonnet')($._config, $.recordedSeries),
    // o: the selected probes' series; x: the exporter's host series (no
    // probe); h: the broker hosts' node_exporter (or host-agent) series.
    local o = q.scope('$cluster', 'probe=~"$probe"', ['probe']),
    local x = o.unprobed.by([]),
    local h = q.scope(null, null, ['job'], jobs=['job=~"$host_job"'], instance='instance=~"$host_instance"'),
    local cl = $._config.clusterLabel,
    local info(matchers) = 'kafka_bench_probe_info{%s}' % std.join(', ', matchers),
    local hostDisks = '(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)',

    'kafka-bench-overview.json': g.dashboard(
      'kafka-bench-overview',
      'Kafka Bench / Overview',
      'kafka_bench_exporter: throughput, latency, delivery correctness, consumer lag, load-generator host and Kafka client metrics per probe.',
      variables=[
        g.datasourceVariable,
        g.queryVariable('cluster', 'Cluster', 'label_values(%s, %s)' % [info([$._config.jobSelector]), cl]),
        g.queryVariable('job', 'Job', 'label_values(%s, job)' % info(['%s=~"$cluster"' % cl, $._config.jobSelector])),
        g.queryVariable('instance', 'Instance', 'label_values(%s, instance)' % info(['%s=~"$cluster"' % cl, $._config.jobSelector, 'job=~"$job"'])),
        g.queryVariable('probe', 'Probe', 'label_values(%s, probe)' % x.series('kafka_bench_probe_info')),
        g.customVariable('host_metrics', 'Host metrics', [['node_exporter', 'node'], ['kafka_bench_exporter', 'kafka_bench_host']], 'node',
                         'Where the Broker hosts row reads host metrics: Prometheus node_exporter (node_*) or kafka_bench_exporter in host-agent mode (kafka_bench_host_*).'),
        g.queryVariable('host_job', 'Host job', 'label_values(${host_metrics}_cpu_seconds_total, job)'),
        g.queryVariable('host_instance', 'Host', 'label_values(${host_metrics}_cpu_seconds_total{job=~"$host_job"}, instance)'),
        g.textVariable('host_disks', 'Host disks', hostDisks,
                       'Regex of the whole disks the Broker hosts row counts (as host.disks): partitions and device-mapper volumes would count IO twice.'),
      ],
      annotations=q.annotations(o),
      rows=[
      g.row('Throughput', [
        g.timeseries('Records/s: produced vs consumed vs target', 'Records acknowledged by the brokers (produced) and records read back by the probe\'s consumer (consumed) per second. Target is the configured rate; probes with target 0 (unlimited, saturation probes) show no target line.', 'count:rec/s', [
          [o.rate('kafka_bench_produced_records_total'), q.legend('{{probe}} produced')],
          [o.rate('kafka_bench_consumed_records_total'), q.legend('{{probe}} consumed')],
          [o.agg('sum', 'kafka_bench_probe_target_rate_records_per_second') + ' > 0', q.legend('{{probe}} target')],
        ]) + g.dashed('.* target'),
        g.timeseries('MB/s: produced vs consumed', 'Payload bytes per second produced (acknowledged) and consumed.', 'Bps', [
          [o.rate('kafka_bench_produced_bytes_total'), q.legend('{{probe}} produced')],
          [o.rate('kafka_bench_consumed_bytes_total'), q.legend('{{probe}} consumed')],
        ]),
        g.stat('Probe up', '1 when the probe can produce to and consume from Kafka (kafka_bench_probe_up).', 'none', [
          [o.agg('min', 'kafka_bench_probe_up'), q.legend('{{probe}}')],
        ]) + g.size(6, 6) + g.valueMappings({ '0': ['DOWN', 'red'], '1': ['UP', 'green'] }),
        g.table('Probe settings', 'Settings of each probe from kafka_bench_probe_info. A change is marked by the \'Probe started or settings changed\' annotation.', o.series('kafka_bench_probe_info'), ['job', 'instance', 'probe', 'topic', 'acks', 'compression', 'record_size_bytes', 'batch_size_bytes', 'linger_ms', 'partitions', 'replication_factor', 'group']) + g.size(18, 6),
      ]),
      g.row('Latency', [
        g.timeseries('Produce latency p50 / p95 / p99 / p99.9', 'Time from handing a record to the client until the broker acknowledged it (classic histogram buckets). Quantiles are interpolated within buckets (0.5 ms to 30 s).', 's', [
          [o.quantile(0.5, 'kafka_bench_produce_latency_seconds'), q.legend('{{probe}} p50')],
          [o.quantile(0.95, 'kafka_bench_produce_latency_seconds'), q.legend('{{probe}} p95')],
          [o.quantile(0.99, 'kafka_bench_produce_latency_seconds'), q.legend('{{probe}} p99')],
          [o.quantile(0.999, 'kafka_bench_produce_latency_seconds'), q.legend('{{probe}} p99.9')],
        ]),
        g.timeseries('End-to-end latency p50 / p95 / p99 / p99.9', 'Time from producing a record until the probe\'s consumer received it (classic histogram buckets). Quantiles are interpolated within buckets (0.5 ms to 30 s).', 's', [
          [o.quantile(0.5, 'kafka_bench_end_to_end_latency_seconds'), q.legend('{{probe}} p50')],
          [o.quantile(0.95, 'kafka_bench_end_to_end_latency_seconds'), q.legend('{{probe}} p95')],
          [o.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds'), q.legend('{{probe}} p99')],
          [o.quantile(0.999, 'kafka_bench_end_to_end_latency_seconds'), q.legend('{{probe}} p99.9')],
        ]),
        g.heatmap('Produce latency heatmap: $probe', 'Records per latency bucket and interval (native histograms where Prometheus ingests them, else the classic buckets); pick one cluster and probe; repeated for each selected probe.', o.heatmap('kafka_bench_produce_latency_seconds'), 'probe'),
        g.heatmap('End-to-end latency heatmap: $probe', 'Records per latency bucket and interval (native histograms where Prometheus ingests them, else the classic buckets); pick one cluster and probe; repeated for each selected probe.', o.heatmap('kafka_bench_end_to_end_latency_seconds'), 'probe'),
        g.timeseries('Send delay p99', 'How late records were handed to the client compared with the rate schedule (p99). A growing send delay means the load generator cannot keep the target rate (see produce failures with reason behind_schedule).', 's', [
          [o.quantile(0.99, 'kafka_bench_send_delay_seconds'), q.legend('{{probe}} p99')],
        ]),
        g.timeseries('Commit latency p50 / p99', 'Latency of the consumer\'s offset commits.', 's', [
          [o.quantile(0.5, 'kafka_bench_commit_latency_seconds'), q.legend('{{probe}} p50')],
          [o.quantile(0.99, 'kafka_bench_commit_latency_seconds'), q.legend('{{probe}} p99')],
        ]),
        g.timeseries('Produce latency p99 by broker (partition leader)', 'p99 per partition leader at produce time: one slow broker stands out here.', 's', [
          [o.quantile(0.99, 'kafka_bench_produce_latency_seconds', labels=['broker']), q.legend('broker {{broker}}')],
        ]),
        g.timeseries('End-to-end latency p99 by broker (partition leader)', 'p99 per partition leader at produce time: one slow broker stands out here.', 's', [
          [o.quantile(0.99, 'kafka_bench_end_to_end_latency_seconds', labels=['broker']), q.legend('broker {{broker}}')],
        ]),
      ]),
      g.row('Latency SLO (needs alerts/recording_rules.yml)', [
        g.timeseries('Produce latency SLO: share of slow records vs error budget', 'Fraction of records slower than the SLO threshold, from the recording rules in alerts/recording_rules.yml (threshold and objective are tuned there). Burn rate = ratio / error budget; the burn-rate alerts fire at 14.4x (1h & 5m), 6x (6h & 30m) and 3x (1d & 2h).', 'percentunit', [
          [o.series('probe:kafka_bench_produce_latency_slo_errors:ratio_rate5m'), q.legend('{{probe}} 5m')],
          [o.series('probe:kafka_bench_produce_latency_slo_errors:ratio_rate1h'), q.legend('{{probe}} 1h')],
          [o.series('probe:kafka_bench_produce_latency_slo_errors:ratio_rate1d'), q.legend('{{probe}} 1d')],
          ['1 - kafka_bench:produce_latency_slo_objective:ratio', q.legend('error budget (1x burn)')],
        ]) + g.dashed('error budget.*'),
        g.timeseries('End-to-end latency SLO: share of slow records vs error budget', 'Fraction of records slower than the SLO threshold, from the recording rules in alerts/recording_rules.yml (threshold and objective are tuned there). Burn rate = ratio / error budget; the burn-rate alerts fire at 14.4x (1h & 5m), 6x (6h & 30m) and 3x (1d & 2h).', 'percentunit', [
          [o.series('probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate5m'), q.legend('{{probe}} 5m')],
          [o.series('probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate1h'), q.legend('{{probe}} 1h')],
          [o.series('probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate1d'), q.legend('{{probe}} 1d')],
          ['1 - kafka_bench:end_to_end_latency_slo_objective:ratio', q.legend('error budget (1x burn)')],
        ]) + g.dashed('error budget.*'),
      ]),
      g.row('Errors and delivery correctness', [
        g.timeseries('Produce failures by reason', 'Records that could not be produced, per second, by reason (timeout, retries_exhausted, not_leader, not_enough_replicas, topic_missing, auth, message_too_large, behind_schedule, client_closed, transaction, other).', 'count:rec/s', [
          [o.rate('kafka_bench_produce_failed_total', labels=['probe', 'reason']), q.legend('{{probe}} {{reason}}')],
        ]) + g.stacked,
        g.timeseries('Commit failures', 'Failed consumer offset commits per second.', 'count:commits/s', [
          [o.rate('kafka_bench_commit_failed_total'), q.legend('{{probe}}')],
        ]),
        g.timeseries('Lost / duplicated / out-of-order / foreign records', 'Records per interval that were acknowledged but never consumed (lost), consumed more than once (duplicated), consumed out of produce order (out of order), or not produced by this probe (foreign). Anything above 0 is a finding.', 'short', [
          [o.increase('kafka_bench_records_lost_total'), q.legend('{{probe}} lost')],
          [o.increase('kafka_bench_records_duplicated_total'), q.legend('{{probe}} duplicated')],
          [o.increase('kafka_bench_records_out_of_order_total'), q.legend('{{probe}} out of order')],
          [o.increase('kafka_bench_records_foreign_total'), q.legend('{{probe}} foreign')],
        ]) + g.size(24),
        g.timeseries('Consumer lag (records)', 'Records produced but not yet read. "position": from the probe consumer\'s own position (kafka_bench_consumer_lag_records), 0 when caught up. "committed": from the group\'s committed offsets (kafka_bench_consumer_group_lag_records), what kafka_exporter and Burrow show; it trails by up to auto.commit.interval.ms.', 'short', [
          [o.agg('sum', 'kafka_bench_consumer_lag_records'), q.legend('{{probe}} position')],
          [o.agg('sum', 'kafka_bench_consumer_group_lag_records'), q.legend('{{probe}} committed')],
        ]),
        g.timeseries('Consumer lag (seconds)', 'Age of the oldest record not yet read. "position": from the probe consumer\'s own position (kafka_bench_consumer_lag_seconds), 0 when caught up. "committed": past the group\'s committed offsets (kafka_bench_consumer_group_lag_seconds); it trails by up to auto.commit.interval.ms.', 's', [
          [o.agg('max', 'kafka_bench_consumer_lag_seconds'), q.legend('{{probe}} position')],
          [o.agg('max', 'kafka_bench_consumer_group_lag_seconds'), q.legend('{{probe}} committed')],
        ]),
      ]),
      g.row('Exporter host (load generator)', [
        g.timeseries('CPU by mode', 'CPU time per mode (idle omitted) as a share of all CPUs of the host running kafka_bench_exporter. Above ~90 % busy the exporter measures itself, not Kafka (alert KafkaBenchLoadGeneratorSaturated).', 'percentunit', [
          ['%s / on (job, instance) group_left () %s' % [x.rate('kafka_bench_host_cpu_seconds_total', ['job', 'mode'], extra=['mode!="idle"']), x.agg('sum', 'kafka_bench_host_cpus', ['job'])], q.legend('{{instance}} {{mode}}')],
        ]) + g.stacked,
        g.timeseries('Memory', 'Memory used (total - available) and available on the exporter host.', 'bytes', [
          ['sum by (%s) (%s - %s)' % [x.grouping(), x.series('kafka_bench_host_memory_total_bytes'), x.series('kafka_bench_host_memory_available_bytes')], q.legend('{{instance}} used')],
          [x.agg('sum', 'kafka_bench_host_memory_available_bytes'), q.legend('{{instance}} available')],
        ]),
        g.timeseries('Disk read / write', 'Bytes read from and written to each disk per second.', 'Bps', [
          [x.rate('kafka_bench_host_disk_read_bytes_total', labels=['device']), q.legend('{{instance}} {{device}} read')],
          [x.rate('kafka_bench_host_disk_written_bytes_total', labels=['device']), q.legend('{{instance}} {{device}} write')],
        ]) + g.size(8),
        g.timeseries('Disk IOPS', 'Completed read and write operations per second.', 'iops', [
          [x.rate('kafka_bench_host_disk_reads_completed_total', labels=['device']), q.legend('{{instance}} {{device}} reads')],
          [x.rate('kafka_bench_host_disk_writes_completed_total', labels=['device']), q.legend('{{instance}} {{device}} writes')],
        ]) + g.size(8),
        g.timeseries('Disk busy time', 'Share of time each disk had I/O in progress.', 'percentunit', [
          [x.rate('kafka_bench_host_disk_io_time_seconds_total', labels=['device']), q.legend('{{instance}} {{device}}')],
        ]) + g.size(8),
        g.timeseries('Network in / out', 'Bytes received and sent per second per interface.', 'Bps', [
          [x.rate('kafka_bench_host_network_receive_bytes_total', labels=['interface']), q.legend('{{instance}} {{interface}} in')],
          [x.rate('kafka_bench_host_network_transmit_bytes_total', labels=['interface']), q.legend('{{instance}} {{interface}} out')],
        ]),
        g.timeseries('Network packets and errors', 'Packets and errors per second per interface.', 'pps', [
          [x.rate('kafka_bench_host_network_receive_packets_total', labels=['interface']), q.legend('{{instance}} {{interface}} rx packets')],
          [x.rate('kafka_bench_host_network_transmit_packets_total', labels=['interface']), q.legend('{{instance}} {{interface}} tx packets')],
          [x.rate('kafka_bench_host_network_receive_errors_total', labels=['interface']), q.legend('{{instance}} {{interface}} rx errors')],
          [x.rate('kafka_bench_host_network_transmit_errors_total', labels=['interface']), q.legend('{{instance}} {{interface}} tx errors')],
        ]),
      ]),
      g.row('Kafka client (franz-go kprom)', [
        g.timeseries('Buffered produce records', 'Records buffered in the producer client waiting to be sent (a gauge despite the _total suffix). A full buffer makes the producer wait: the records after it are sent late (send delay), or fail as behind_schedule when far behind.', 'short', [
          [o.agg('sum', 'kafka_bench_client_buffered_produce_records', labels=['probe', 'member'], extra=['role="producer"']), q.legend('{{probe}} {{member}}')],
        ]) + g.size(8),
        g.timeseries('Buffered produce bytes', 'Bytes buffered in the producer client waiting to be sent.', 'bytes', [
          [o.agg('sum', 'kafka_bench_client_buffered_produce_bytes', labels=['probe', 'member'], extra=['role="producer"']), q.legend('{{probe}} {{member}}')],
        ]) + g.size(8),
        g.timeseries('Connects and connect errors', 'Broker connections opened and failed per second by client role.', 'count:conn/s', [
          [o.rate('kafka_bench_client_connects_total', labels=['probe', 'role']), q.legend('{{probe}} {{role}} connects')],
          [o.rate('kafka_bench_client_connect_errors_total', labels=['probe', 'role']), q.legend('{{probe}} {{role}} errors')],
        ]) + g.size(8),
        g.timeseries('Request latency (e2e) p99 by broker', 'p99 time from writing a request to a broker until its response was read, per broker (node_id; seed_N = seed broker).', 's', [
          [o.quantile(0.99, 'kafka_bench_client_request_duration_e2e_seconds', labels=['probe', 'role', 'node_id']), q.legend('{{probe}} {{role}} broker {{node_id}}')],
        ]),
        g.timeseries('Client bytes written / read by broker', 'Bytes on the wire (after compression) per broker, all client roles.', 'Bps', [
          [o.rate('kafka_bench_client_write_bytes_total', labels=['probe', 'node_id']), q.legend('{{probe}} broker {{node_id}} write')],
          [o.rate('kafka_bench_client_read_bytes_total', labels=['probe', 'node_id']), q.legend('{{probe}} broker {{node_id}} read')],
        ]),
        g.timeseries('Connect time p99 by broker', 'p99 time from dialling a broker to a connection ready for requests (TCP, TLS, ApiVersions, SASL), per broker (node_id; seed_N = seed broker), for successful and failed attempts apart: slow logins (Kerberos, OAuth token fetches) and unreachable brokers show here.', 's', [
          [o.quantile(0.99, 'kafka_bench_client_connect_duration_seconds', labels=['probe', 'role', 'node_id', 'outcome']), q.legend('{{probe}} {{role}} broker {{node_id}} {{outcome}}')],
        ]),
      ]),
      g.row('Broker hosts ($host_metrics)', [
        g.timeseries('Host CPU busy', 'Share of all CPUs busy (not idle, not iowait) on each broker host, as the bench\'s per-machine CPU % column. A broker near 100 % here while produce latency rises is the bottleneck. Source: the host metrics variable (node_exporter or this exporter as host agent).', 'percentunit', [
          ['1 - %s / %s' % [h.rate('${host_metrics}_cpu_seconds_total', extra=['mode=~"idle|iowait"']), h.rate('${host_metrics}_cpu_seconds_total')], q.legend('{{instance}}')],
        ]) + g.ratio,
        g.timeseries('Host memory used', '1 - MemAvailable / MemTotal on each broker host, as the bench\'s mem % column.', 'percentunit', [
          ['1 - sum by (%s) (%s) / sum by (%s) (%s)' % [h.grouping(), h.selector(['__name__=~"${host_metrics}_memory_(MemAvailable|available)_bytes"']), h.grouping(), h.selector(['__name__=~"${host_metrics}_memory_(MemTotal|total)_bytes"'])], q.legend('{{instance}}')],
        ]) + g.ratio,
        g.timeseries('Host disk busy (busiest disk)', 'Share of time the busiest whole disk ($host_disks: partitions and device-mapper volumes left out, so no IO counts twice) had I/O in progress, as the bench\'s disk busy % column.', 'percentunit', [
          ['max by (%s) (rate(%s[$__rate_interval]))' % [h.grouping(), h.series('${host_metrics}_disk_io_time_seconds_total', ['device=~"$host_disks"'])], q.legend('{{instance}}')],
        ]) + g.size(8) + g.ratio,
        g.timeseries('Host disk read / write', 'Bytes per second read from and written to the whole disks ($host_disks) of each broker host.', 'Bps', [
          [h.rate('${host_metrics}_disk_read_bytes_total', extra=['device=~"$host_disks"']), q.legend('{{instance}} read')],
          [h.rate('${host_metrics}_disk_written_bytes_total', extra=['device=~"$host_disks"']), q.legend('{{instance}} write')],
        ]) + g.size(8),
        g.timeseries('Host network in / out', 'Bytes per second received and sent on each broker host\'s interfaces other than lo (node_exporter labels them device, this exporter interface).', 'Bps', [
          [h.rate('${host_metrics}_network_receive_bytes_total', extra=['device!="lo"', 'interface!="lo"']), q.legend('{{instance}} in')],
          [h.rate('${host_metrics}_network_transmit_bytes_total', extra=['device!="lo"', 'interface!="lo"']), q.legend('{{instance}} out')],
        ]) + g.size(8),
      ]),
      g.row('Capacity canary (probes with a capacity block)', [
        g.timeseries('Capacity at the latency SLO: now vs 1 d and 7 d earlier', 'Highest step rate of the last successful capacity run whose produce p99 stayed within capacity.latency_slo (kafka_bench_capacity_records_per_second), with the same series 1 day and 7 days earlier. KafkaBenchCapacityRegression fires below 80 % of both.', 'count:rec/s', [
          [o.agg('max', 'kafka_bench_capacity_records_per_second'), q.legend('{{probe}}')],
          [o.agg('max', 'kafka_bench_capacity_records_per_second', offset='1d'), q.legend('{{probe}} 1 d earlier')],
          [o.agg('max', 'kafka_bench_capacity_records_per_second', offset='7d'), q.legend('{{probe}} 7 d earlier')],
        ]),
        g.timeseries('Produce p99 at capacity', 'Produce latency p99 of the capacity step of the last successful capacity run (kafka_bench_capacity_p99_seconds); at most capacity.latency_slo.', 's', [
          [o.agg('max', 'kafka_bench_capacity_p99_seconds'), q.legend('{{probe}}')],
        ]),
        g.stat('Capacity limited by', 'Why the last capacity run stopped (kafka_bench_capacity_limit): latency (p99 above the SLO), rate (below 95 % of the step target), errors (produce errors), ceiling (max_rate / max_bytes_per_second reached).', 'none', [
          ['max by (%s) (%s == 1)' % [o.grouping(['probe', 'reason']), o.series('kafka_bench_capacity_limit')], q.legend('{{probe}}: {{reason}}')],
        ]) + { options+: { textMode: 'name' } },
        g.timeseries('Capacity runs by result (per hour)', 'Capacity runs in the last hour by result (kafka_bench_capacity_runs_total): ok, aborted (reload or shutdown), error (could not ramp). KafkaBenchCapacityRunFailing fires after 3 intervals without an ok run.', 'short', [
          [o.increase('kafka_bench_capacity_runs_total', labels=['probe', 'result'], range='1h'), q.legend('{{probe}} {{result}}')],
        ]),
      ]),
      g.row('Catch-up reads (probes with catch_up windows)', [
        g.timeseries('Catch-up throughput: now vs 1 d and 7 d earlier', 'Bytes per second of the last catch-up read of each window (kafka_bench_catchup_bytes_per_second), from the reader\'s start to its last record, with the same series 1 day and 7 days earlier; capped by the window\'s max_bytes_per_second. A read under 64 MiB measures the latency of its first fetches more than throughput. KafkaBenchCatchUpRegression fires below 80 % of both.', 'Bps', [
          [o.agg('max', 'kafka_bench_catchup_bytes_per_second', labels=['probe', 'window']), q.legend('{{probe}} {{window}}')],
          [o.agg('max', 'kafka_bench_catchup_bytes_per_second', labels=['probe', 'window'], offset='1d'), q.legend('{{probe}} {{window}} 1 d earlier')],
          [o.agg('max', 'kafka_bench_catchup_bytes_per_second', labels=['probe', 'window'], offset='7d'), q.legend('{{probe}} {{window}} 7 d earlier')],
        ]),
        g.timeseries('Catch-up time to first record / fetch p99', 'Time from the start of the last catch-up read to its first record (kafka_bench_catchup_first_record_seconds: the first fetch of a cold segment, or of the remote tier), and the p99 of its fetches (kafka_bench_catchup_fetch_latency_seconds).', 's', [
          [o.agg('max', 'kafka_bench_catchup_first_record_seconds', labels=['probe', 'window']), q.legend('{{probe}} {{window}} first record')],
          [o.quantile(0.99, 'kafka_bench_catchup_fetch_latency_seconds', labels=['probe', 'window']), q.legend('{{probe}} {{window}} fetch p99')],
        ]),
        g.stat('Catch-up served from', 'Where the last catch-up read of each window started (kafka_bench_catchup_remote): remote, below a partition\'s local log start (the remote tier, KIP-405), or local.', 'none', [
          [o.agg('max', 'kafka_bench_catchup_remote', labels=['probe', 'window']), q.legend('{{probe}} {{window}}')],
        ]) + g.valueMappings({ '0': ['local', 'green'], '1': ['remote', 'blue'] }),
        g.timeseries('Catch-up records missing / out of order (per hour)', 'Probe records a catch-up read found missing between records still in the log (kafka_bench_catchup_records_missing_total: not given up on, no aborted transaction) or out of order (kafka_bench_catchup_records_out_of_order_total), in the last hour. KafkaBenchCatchUpRecordsMissing fires on any missing.', 'short', [
          [o.increase('kafka_bench_catchup_records_missing_total', labels=['probe', 'window'], range='1h'), q.legend('{{probe}} {{window}} missing')],
          [o.increase('kafka_bench_catchup_records_out_of_order_total', labels=['probe', 'window'], range='1h'), q.legend('{{probe}} {{window}} out of order')],
        ]),
      ]),
      g.row('Replication (probes with a replica block)', [
        g.timeseries('Replication latency p50 / p99 / p99.9 by link', 'Time from a probe record\'s intended send time on the source cluster to its read from the replica cluster (kafka_bench_replication_latency_seconds): what the replicator adds to end-to-end latency, by link (source_alias->target_alias). A stopped replicator shows as a gap, then as a spike when it resumes; see the lag panel for the time in between.', 's', [
          [o.quantile(0.5, 'kafka_bench_replication_latency_seconds', labels=['probe', 'link']), q.legend('{{probe}} {{link}} p50')],
          [o.quantile(0.99, 'kafka_bench_replication_latency_seconds', labels=['probe', 'link']), q.legend('{{probe}} {{link}} p99')],
          [o.quantile(0.999, 'kafka_bench_replication_latency_seconds', labels=['probe', 'link']), q.legend('{{probe}} {{link}} p99.9')],
        ]),
        g.timeseries('Replication lag (seconds)', 'Time since the source cluster acknowledged the oldest probe record not yet read from the replica cluster (kafka_bench_replication_lag_seconds); 0 when caught up. It keeps rising while the replicator is stopped. KafkaBenchReplicationLatencyHigh fires above 10 s for 5 minutes.', 's', [
          [o.agg('max', 'kafka_bench_replication_lag_seconds', labels=['probe', 'link']), q.legend('{{probe}} {{link}}')],
        ]),
        g.timeseries('Replication lag (records)', 'Probe records acknowledged by the source cluster and not yet read from the replica cluster (kafka_bench_replication_lag_records).', 'short', [
          [o.agg('sum', 'kafka_bench_replication_lag_records', labels=['probe', 'link']), q.legend('{{probe}} {{link}}')],
        ]),
        g.timeseries('Lost / duplicated / out-of-order records across the link', 'Records per interval acknowledged by the source but not read from the replica within replica.loss_grace_period (lost), read more than once from the replica (duplicated: MirrorMaker 2 delivers at least once, so a restart re-sends; counted, not alerted), or read after a later record of their partition (out of order). Lost alerts: KafkaBenchReplicationLost.', 'short', [
          [o.increase('kafka_bench_replication_records_lost_total', labels=['probe', 'link']), q.legend('{{probe}} {{link}} lost')],
          [o.increase('kafka_bench_replication_records_duplicated_total', labels=['probe', 'link']), q.legend('{{probe}} {{link}} duplicated')],
          [o.increase('kafka_bench_replication_records_out_of_order_total', labels=['probe', 'link']), q.legend('{{probe}} {{link}} out of order')],
        ]),
      ]),
      g.row('Rebalances', [
        g.timeseries('Rebalances/s by protocol and cause', 'Rebalances of the probe\'s consumer group as its members saw them, per second (kafka_bench_consumer_rebalances_total), by the group protocol in use (classic or consumer) and the cause a member can observe: joined, lost, churn, partitions_added, reassigned.', 'count:rebalances/s', [
          [o.rate('kafka_bench_consumer_rebalances_total', labels=['probe', 'protocol', 'cause']), q.legend('{{probe}} {{protocol}} {{cause}}')],
        ]),
        g.timeseries('Rebalance duration p99 by protocol', 'p99 of the time from a member\'s first revoke or lost callback (or assign callback, for a member only given partitions) to its first records after the rebalance (kafka_bench_consumer_rebalance_duration_seconds), by group protocol. KafkaBenchRebalanceSlow fires above the mixin\'s rebalanceSlowThresholdSeconds (30 s) for 15 minutes.', 's', [
          [o.quantile(0.99, 'kafka_bench_consumer_rebalance_duration_seconds', labels=['probe', 'protocol']), q.legend('{{probe}} {{protocol}} p99')],
        ]),
        g.timeseries('End-to-end latency p99 of records sent during a rebalance', 'p99 end-to-end latency of the probe records whose intended send time fell within a rebalance of the group (kafka_bench_consumer_rebalance_end_to_end_latency_seconds): the pause a user of the group sees.', 's', [
          [o.quantile(0.99, 'kafka_bench_consumer_rebalance_end_to_end_latency_seconds'), q.legend('{{probe}} p99')],
        ]),
        g.timeseries('Partitions assigned / revoked / lost per second', 'Partitions assigned to (OnPartitionsAssigned), revoked from (OnPartitionsRevoked) and lost by (OnPartitionsLost: session timed out, fenced) the probe\'s consumers per second.', 'count:partitions/s', [
          [o.rate('kafka_bench_consumer_partitions_assigned_total'), q.legend('{{probe}} assigned')],
          [o.rate('kafka_bench_consumer_partitions_revoked_total'), q.legend('{{probe}} revoked')],
          [o.rate('kafka_bench_consumer_partitions_lost_total'), q.legend('{{probe}} lost')],
        ]),
        g.table('Group protocol: configured vs in use', 'The group protocol of each probe\'s consumer group from kafka_bench_consumer_group_protocol_info: configured (consumer.group.protocol) and the one the coordinator runs (protocol). configured consumer with protocol classic is a fallback; KafkaBenchGroupProtocolFallback fires after 10 minutes of it.', o.series('kafka_bench_consumer_group_protocol_info'), ['job', 'instance', 'probe', 'group', 'configured', 'protocol']) + g.size(24, 6),
      ]),
      g.row('Share groups (consumer.kind: share)', [
        g.timeseries('Share delivery and acknowledgement latency p99', 'p99 of the time from a probe record\'s intended send time to its first delivery to a member of the probe\'s share group (kafka_bench_share_delivery_latency_seconds), and of the time from sending a poll\'s acknowledgements until the broker confirmed them (kafka_bench_share_ack_latency_seconds).', 's', [
          [o.quantile(0.99, 'kafka_bench_share_delivery_latency_seconds'), q.legend('{{probe}} delivery p99')],
          [o.quantile(0.99, 'kafka_bench_share_ack_latency_seconds'), q.legend('{{probe}} ack p99')],
        ]),
        g.timeseries('Share redeliveries/s by cause', 'Probe records delivered again before an accept of them was confirmed, per second (kafka_bench_share_redeliveries_total), by cause: released (the probe released it) or lock_expired (its acquisition lock expired or its member went away). KafkaBenchShareRedeliveryHigh fires when lock_expired redeliveries exceed 1 % of deliveries for 10 minutes.', 'count:rec/s', [
          [o.rate('kafka_bench_share_redeliveries_total', labels=['probe', 'cause']), q.legend('{{probe}} {{cause}}')],
        ]),
        g.timeseries('Share records archived by reason', 'Probe records the broker archived without accepting them per interval (kafka_bench_share_records_archived_total), by reason: rejected (by the probe) or delivery_limit (at the delivery attempt limit). KafkaBenchShareRecordsArchived fires on any delivery_limit archive.', 'short', [
          [o.increase('kafka_bench_share_records_archived_total', labels=['probe', 'reason']), q.legend('{{probe}} {{reason}}')],
        ]),
        g.timeseries('Share acknowledgements failed/s by outcome', 'Acknowledgements of probe records the broker did not confirm (a lock already expired, a session ended) per second (kafka_bench_share_ack_failed_total), by outcome: accept, release, reject.', 'count:acks/s', [
          [o.rate('kafka_bench_share_ack_failed_total', labels=['probe', 'outcome']), q.legend('{{probe}} {{outcome}}')],
        ]),
        g.timeseries('Share group lag (records)', 'Records of the probe topic not yet acknowledged by the probe\'s share group (kafka_bench_share_group_lag_records: the broker\'s share-partition lag, summed over partitions).', 'short', [
          [o.agg('max', 'kafka_bench_share_group_lag_records'), q.legend('{{probe}}')],
        ]),
        g.timeseries('Share group members', 'Members of the probe\'s share group as the group coordinator describes it (kafka_bench_share_group_members).', 'short', [
          [o.agg('max', 'kafka_bench_share_group_members'), q.legend('{{probe}}')],
        ]),
      ]),
      g.row('Transactions (producer.transactional.id)', [
        g.timeseries('Transactions/s by outcome', 'Transactions of the probe\'s producer per second (kafka_bench_transactions_total), by outcome: committed, aborted (on purpose, transaction.abort.ratio) or failed (the end was refused or its outcome is unknown). KafkaBenchTransactionsFailing fires when over 5 % fail for 10 minutes.', 'ops', [
          [o.rate('kafka_bench_transactions_total', labels=['probe', 'outcome']), q.legend('{{probe}} {{outcome}}')],
        ]),
        g.timeseries('Transaction end latency p99 by end', 'p99 of the time to end a transaction (EndTxn, after its records were acknowledged: kafka_bench_transaction_end_latency_seconds), by end: commit or abort.', 's', [
          [o.quantile(0.99, 'kafka_bench_transaction_end_latency_seconds', labels=['probe', 'end']), q.legend('{{probe}} {{end}} p99')],
        ]),
        g.timeseries('Aborted records read by read_committed (must be 0)', 'Records of aborted transactions that a read_committed probe consumer read per interval (kafka_bench_transaction_aborted_records_read_total): must stay 0. KafkaBenchAbortedRecordsRead fires on any.', 'short', [
          [o.increase('kafka_bench_transaction_aborted_records_read_total'), q.legend('{{probe}}')],
        ]),
        g.timeseries('Records in aborted transactions/s', 'Probe records written in transactions that were aborted, per second (kafka_bench_transaction_aborted_records_total): a read_committed consumer expects none of them, and none counts as lost.', 'count:rec/s', [
          [o.rate('kafka_bench_transaction_aborted_records_total'), q.legend('{{probe}}')],
        ]),
        g.timeseries('Consumer lag: to the end and to the last stable offset', 'A read_committed probe consumer\'s lag to the end offsets (kafka_bench_consumer_lag_records) beside its lag to the last stable offsets (kafka_bench_consumer_lag_stable_records): the gap is the records open transactions hold back, which the consumer cannot read until they end.', 'short', [
          ['sum by (%s) (%s and on (%s) %s)' % [o.grouping(), o.series('kafka_bench_consumer_lag_records'), o.grouping(), o.series('kafka_bench_consumer_lag_stable_records')], q.legend('{{probe}} to the end')],
          [o.agg('sum', 'kafka_bench_consumer_lag_stable_records'), q.legend('{{probe}} to the last stable offset')],
        ]),
      ]),
      g.row('Fetching (consumer.client.rack)', [
        g.timeseries('Records fetched/s by leader and serving broker', 'Records the probe\'s consumer fetched per second (kafka_bench_consumer_fetched_records_total), by the partition\'s leader (broker) and the broker that served the fetch (fetch_broker). With consumer.client.rack and the brokers\' RackAwareReplicaSelector (KIP-392) a follower in the consumer\'s rack serves it: fetch_broker differs from broker.', 'count:rec/s', [
          [o.rate('kafka_bench_consumer_fetched_records_total', labels=['probe', 'broker', 'fetch_broker']), q.legend('{{probe}} leader {{broker}} from {{fetch_broker}}')],
        ]),
      ]),
      ],
    ),
  },
}
