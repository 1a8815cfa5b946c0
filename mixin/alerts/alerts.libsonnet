// The alerting rules (alerts.yml). Thresholds other than the SLOs' are
// literals in the expressions: 95 % of target, 80 % of 1d/7d ago, 1 % produce
// errors, 60 s lag, 90 % CPU, 10 s replication latency; the rebalance and
// share-group redelivery thresholds are _config's (config.libsonnet).
{
  prometheusAlerts+:: {
    groups+: [
      {
        name: 'kafka_bench_exporter_health',
        rules: [
          {
            alert: 'KafkaBenchExporterDown',
            expr: 'up{%(jobSelector)s} == 0' % $._config,
            'for': '5m',
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'kafka_bench_exporter cannot be scraped.',
              description: 'Prometheus has failed to scrape kafka_bench_exporter {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}, job {{ $labels.job }}) for more than 5 minutes; no probe results are being collected.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchexporterdown',
            },
          },
          {
            alert: 'KafkaBenchExporterAbsent',
            expr: 'absent(up{%(jobSelector)s})' % $._config,
            'for': '10m',
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'No kafka_bench_exporter target is scraped.',
              description: 'Prometheus has had no kafka_bench_exporter scrape target for more than 10 minutes (service discovery, relabelling or the job name changed); no other Kafka bench alert can fire.',
              runbook_url: $._config.runbookURL + 'kafkabenchexporterabsent',
            },
          },
          {
            alert: 'KafkaBenchConfigReloadFailing',
            expr: 'kafka_bench_config_last_reload_successful == 0',
            'for': '5m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'kafka_bench_exporter rejected its configuration.',
              description: 'The last configuration load of {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}) failed more than 5 minutes ago and the previous configuration still runs; see the exporter log.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchconfigreloadfailing',
            },
          },
          {
            alert: 'KafkaBenchCollectorFailing',
            expr: 'kafka_bench_scrape_collector_success == 0',
            'for': '15m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A kafka_bench_exporter collector fails.',
              description: 'Collector {{ $labels.collector }} of {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}) has failed for more than 15 minutes; its metrics are missing or stale.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchcollectorfailing',
            },
          },
          {
            alert: 'KafkaBenchConfigPollFailing',
            expr: 'kafka_bench_config_poll_success == 0',
            'for': '15m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'kafka_bench_exporter cannot describe the broker or topic configuration.',
              description: 'The configuration poll of {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}) has failed for more than 15 minutes; broker and topic configuration changes are not seen.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchconfigpollfailing',
            },
          },
          {
            alert: 'KafkaBenchProbeClientFailing',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe, client, reason) (increase(kafka_bench_probe_client_failed_total[5m])) > 0' % $._config,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A Kafka bench probe cannot start its Kafka client.',
              description: 'The {{ $labels.client }} client of probe {{ $labels.probe }} on {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}) keeps failing to start ({{ $labels.reason }}) for more than 10 minutes; the probe measures nothing meanwhile.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchprobeclientfailing',
            },
          },
        ],
      },
      {
        name: 'kafka_bench_availability',
        rules: [
          {
            alert: 'KafkaBenchProbeDown',
            expr: 'kafka_bench_probe_up == 0',
            'for': '5m',
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'A Kafka bench probe is down.',
              description: 'Probe {{ $labels.probe }} on {{ $labels.instance }} has reported kafka_bench_probe_up == 0 for more than 5 minutes; it cannot produce to or consume from Kafka.',
              runbook_url: $._config.runbookURL + 'kafkabenchprobedown',
            },
          },
        ],
      },
      {
        name: 'kafka_bench_throughput',
        rules: [
          {
            alert: 'KafkaBenchThroughputBelowTarget',
            expr: |||
              (
                probe:kafka_bench_produced_records:rate5m
                or on (%(clusterLabel)s, job, instance, probe)
                0 * max by (%(clusterLabel)s, job, instance, probe) (kafka_bench_probe_target_rate_records_per_second)
              )
              < on (%(clusterLabel)s, job, instance, probe)
              0.95 * (max by (%(clusterLabel)s, job, instance, probe) (kafka_bench_probe_target_rate_records_per_second) > 0)
            ||| % $._config,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A Kafka bench probe produces below its target rate.',
              description: 'Probe {{ $labels.probe }} on {{ $labels.instance }} has produced only {{ $value | humanize }} records/s over the last 5 minutes, less than 95 % of its target rate, for more than 10 minutes.',
              runbook_url: $._config.runbookURL + 'kafkabenchthroughputbelowtarget',
            },
          },
          {
            alert: 'KafkaBenchThroughputRegression',
            expr: |||
              sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_records_total[30m]))
                < 0.8 * sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_records_total[30m] offset 1d))
              and
              sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_records_total[30m]))
                < 0.8 * sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_produced_records_total[30m] offset 7d))
              and on (%(clusterLabel)s, job, instance, probe)
              (kafka_bench_probe_target_rate_records_per_second == 0)
              and on (%(clusterLabel)s, job, instance, probe)
              (kafka_bench_probe_up == 1)
            ||| % $._config,
            'for': '30m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'Kafka produce throughput regressed against 1 day and 7 days ago.',
              description: 'Saturation probe {{ $labels.probe }} on {{ $labels.instance }} produced {{ $value | humanize }} records/s over the last 30 minutes, less than 80 % of its rate at the same time 1 day and 7 days ago.',
              runbook_url: $._config.runbookURL + 'kafkabenchthroughputregression',
            },
          },
        ],
      },
      $.latencySLOAlertGroup,
      $.availabilitySLOAlertGroup,
      {
        name: 'kafka_bench_correctness',
        rules: [
          {
            alert: 'KafkaBenchRecordsLost',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (increase(kafka_bench_records_lost_total[5m])) > 0' % $._config,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'Kafka lost records that were acknowledged as produced.',
              description: 'Probe {{ $labels.probe }} on {{ $labels.instance }} detected {{ $value | humanize }} lost records in the last 5 minutes (acknowledged by the brokers but never consumed).',
              runbook_url: $._config.runbookURL + 'kafkabenchrecordslost',
            },
          },
          {
            alert: 'KafkaBenchRecordsDuplicated',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (increase(kafka_bench_records_duplicated_total[5m])) > 0' % $._config,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'Kafka delivered duplicate records.',
              description: 'Probe {{ $labels.probe }} on {{ $labels.instance }} consumed {{ $value | humanize }} duplicate records in the last 5 minutes.',
              runbook_url: $._config.runbookURL + 'kafkabenchrecordsduplicated',
            },
          },
          {
            alert: 'KafkaBenchProduceErrors',
            expr: 'probe:kafka_bench_produce_errors:ratio_rate5m > 0.01',
            'for': '5m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'Kafka produce requests are failing.',
              description: '{{ $value | humanizePercentage }} of the records probe {{ $labels.probe }} on {{ $labels.instance }} tried to produce over the last 5 minutes failed (threshold 1 %); see kafka_bench_produce_failed_total by reason.',
              runbook_url: $._config.runbookURL + 'kafkabenchproduceerrors',
            },
          },
          {
            alert: 'KafkaBenchConsumerLagGrowing',
            expr: |||
              kafka_bench_consumer_lag_seconds > 60
              and
              deriv(kafka_bench_consumer_lag_seconds[10m]) > 0
            |||,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'The Kafka bench consumer is falling behind.',
              description: 'The consumer of probe {{ $labels.probe }} on {{ $labels.instance }} is {{ $value | humanizeDuration }} behind and its lag has kept growing for more than 10 minutes.',
              runbook_url: $._config.runbookURL + 'kafkabenchconsumerlaggrowing',
            },
          },
          {
            alert: 'KafkaBenchAbortedRecordsRead',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (increase(kafka_bench_transaction_aborted_records_read_total[5m])) > 0' % $._config,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'A read_committed consumer read records of aborted transactions.',
              description: 'The read_committed consumer of probe {{ $labels.probe }} on {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}) read {{ $value | humanize }} records of transactions its producer aborted in the last 5 minutes.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchabortedrecordsread',
            },
          },
          {
            alert: 'KafkaBenchTransactionsFailing',
            expr: |||
              sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_transactions_total{outcome="failed"}[5m]))
              /
              sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_transactions_total[5m]))
              > %(transactionFailureRatioThreshold)g
            ||| % $._config,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: "A probe's transactions fail to commit or abort.",
              description: 'Of the transactions of probe {{ $labels.probe }} on {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}), {{ $value | humanizePercentage }} failed to end over 5 minutes (threshold %(transactionFailureRatioThreshold)g) for more than 10 minutes.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchtransactionsfailing',
            },
          },
        ],
      },
      {
        name: 'kafka_bench_load_generator',
        rules: [
          {
            alert: 'KafkaBenchLoadGeneratorSaturated',
            expr: |||
              instance:kafka_bench_host_cpu_busy:ratio_rate5m > 0.9
              and on (%(clusterLabel)s, job, instance) count by (%(clusterLabel)s, job, instance) (kafka_bench_probe_info)
            ||| % $._config,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'The kafka_bench_exporter host is CPU-saturated; benchmark results are unreliable.',
              description: 'The host running kafka_bench_exporter {{ $labels.instance }} has been {{ $value | humanizePercentage }} CPU busy for more than 10 minutes (threshold 90 %); throughput and latency now measure the load generator, not Kafka.',
              runbook_url: $._config.runbookURL + 'kafkabenchloadgeneratorsaturated',
            },
          },
        ],
      },
      {
        name: 'kafka_bench_capacity',
        rules: [
          {
            alert: 'KafkaBenchCapacityRegression',
            expr: |||
              kafka_bench_capacity_records_per_second
                < 0.8 * max_over_time(kafka_bench_capacity_records_per_second[2h] offset 23h)
              and
              kafka_bench_capacity_records_per_second
                < 0.8 * max_over_time(kafka_bench_capacity_records_per_second[2h] offset 6d23h)
            |||,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'Kafka capacity within the latency SLO regressed against 1 day and 7 days ago.',
              description: 'The last capacity run of probe {{ $labels.probe }} on {{ $labels.instance }} sustained only {{ $value | humanize }} records/s within its latency SLO, less than 80 % of the best capacity at the same time 1 day and 7 days ago.',
              runbook_url: $._config.runbookURL + 'kafkabenchcapacityregression',
            },
          },
          {
            alert: 'KafkaBenchCapacityRunFailing',
            expr: |||
              time() - kafka_bench_capacity_last_run_timestamp_seconds
                > 3 * kafka_bench_capacity_interval_seconds
            |||,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'The Kafka capacity canary has not completed a run for 3 intervals.',
              description: 'Probe {{ $labels.probe }} on {{ $labels.instance }} has had no successful capacity run for {{ $value | humanizeDuration }}, more than 3 capacity intervals; see kafka_bench_capacity_runs_total by result and the exporter log.',
              runbook_url: $._config.runbookURL + 'kafkabenchcapacityrunfailing',
            },
          },
        ],
      },
      {
        name: 'kafka_bench_catchup',
        rules: [
          {
            alert: 'KafkaBenchCatchUpRegression',
            expr: |||
              kafka_bench_catchup_bytes_per_second
                < 0.8 * max_over_time(kafka_bench_catchup_bytes_per_second[2h] offset 23h)
              and
              kafka_bench_catchup_bytes_per_second
                < 0.8 * max_over_time(kafka_bench_catchup_bytes_per_second[2h] offset 6d23h)
            |||,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'Reading a backlog of the probe topic regressed against 1 day and 7 days ago.',
              description: 'The last catch-up read of window {{ $labels.window }} of probe {{ $labels.probe }} on {{ $labels.instance }} read {{ $value | humanize1024 }}B/s, less than 80 % of the best read at the same time 1 day and 7 days ago.',
              runbook_url: $._config.runbookURL + 'kafkabenchcatchupregression',
            },
          },
          {
            alert: 'KafkaBenchCatchUpRecordsMissing',
            expr: |||
              increase(kafka_bench_catchup_records_missing_total[1h]) > 0
            |||,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'A catch-up read found probe records missing from the log.',
              description: 'Catch-up reads of window {{ $labels.window }} of probe {{ $labels.probe }} on {{ $labels.instance }} found {{ $value | humanize }} records missing in the last hour: records the producer did not give up on, absent between records still in the log.',
              runbook_url: $._config.runbookURL + 'kafkabenchcatchuprecordsmissing',
            },
          },
        ],
      },
      {
        name: 'kafka_bench_replication',
        rules: [
          {
            alert: 'KafkaBenchReplicationLatencyHigh',
            expr: |||
              (
                histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe, link) (rate(kafka_bench_replication_latency_seconds[5m])))
                or
                histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe, link, le) (rate(kafka_bench_replication_latency_seconds_bucket[5m])))
              ) > 10
              or
              max by (%(clusterLabel)s, job, instance, probe, link) (kafka_bench_replication_lag_seconds) > 10
            ||| % $._config,
            'for': '5m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'Replication to the target cluster is slow.',
              description: 'Records of probe {{ $labels.probe }} on {{ $labels.instance }} take {{ $value | humanizeDuration }} to cross the link {{ $labels.link }} (p99 over 5 minutes, or the age of the oldest record not replicated yet; threshold 10 s).',
              runbook_url: $._config.runbookURL + 'kafkabenchreplicationlatencyhigh',
            },
          },
          {
            alert: 'KafkaBenchReplicationLost',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe, link) (increase(kafka_bench_replication_records_lost_total[5m])) > 0' % $._config,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'Records acknowledged by the source cluster did not reach the target cluster.',
              description: 'Probe {{ $labels.probe }} on {{ $labels.instance }} counted {{ $value | humanize }} records lost across the link {{ $labels.link }} in the last 5 minutes (acknowledged by the source, not read from the replica within replica.loss_grace_period).',
              runbook_url: $._config.runbookURL + 'kafkabenchreplicationlost',
            },
          },
        ],
      },
      {
        name: 'kafka_bench_consumer_groups',
        rules: [
          {
            alert: 'KafkaBenchRebalanceSlow',
            expr: |||
              (
                histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe, protocol) (rate(kafka_bench_consumer_rebalance_duration_seconds[5m])))
                or
                histogram_quantile(0.99, sum by (%(clusterLabel)s, job, instance, probe, protocol, le) (rate(kafka_bench_consumer_rebalance_duration_seconds_bucket[5m])))
              ) > %(rebalanceSlowThresholdSeconds)s
            ||| % $._config,
            'for': '15m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: "Rebalances of a probe's consumer group are slow.",
              description: 'Rebalances of the consumer group of probe {{ $labels.probe }} on {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}, protocol {{ $labels.protocol }}) take {{ $value | humanizeDuration }} (p99 over 5 minutes, from a member giving up partitions to its first records after the rebalance; threshold %(rebalanceSlowThresholdSeconds)s s) for more than 15 minutes.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchrebalanceslow',
            },
          },
          {
            alert: 'KafkaBenchGroupProtocolFallback',
            expr: 'max by (%(clusterLabel)s, job, instance, probe, group) (kafka_bench_consumer_group_protocol_info{configured="consumer", protocol="classic"}) == 1' % $._config,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A consumer group configured for the KIP-848 protocol runs the classic protocol.',
              description: 'The consumer group {{ $labels.group }} of probe {{ $labels.probe }} on {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}) is configured with consumer.group.protocol consumer, but its coordinator has described it as a classic group for more than 10 minutes.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchgroupprotocolfallback',
            },
          },
          {
            // The first matcher that selects a group sets its threshold:
            // each entry leaves out the groups of the entries before it.
            alert: 'KafkaBenchGroupLagHigh',
            local by = '%(clusterLabel)s, job, instance, group' % $._config,
            local lag(sel) = 'max by (%s) (kafka_bench_group_lag_seconds{%s})' % [by, sel],
            local ts = $._config.groupLagSecondsThresholds,
            expr: std.join('\nor\n', [
              '(%s%s) > %s' % [
                lag(ts[i].selector),
                std.join('', [' unless on (%s) %s' % [by, lag(ts[j].selector)] for j in std.range(0, i - 1)]),
                ts[i].seconds,
              ]
              for i in std.range(0, std.length(ts) - 1)
            ]),
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A consumer group is far behind in seconds.',
              description: 'The first record consumer group {{ $labels.group }} has not consumed (cluster {{ $labels.%(clusterLabel)s }}, seen by {{ $labels.instance }}) was written {{ $value | humanizeDuration }} ago, above its threshold (groupLagSecondsThresholds of the mixin), for more than 10 minutes.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchgrouplaghigh',
            },
          },
          {
            alert: 'KafkaBenchGroupStalled',
            expr: 'max by (%(clusterLabel)s, job, instance, group) (kafka_bench_group_status{status="stalled"}) == 1' % $._config,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A consumer group with members and lag does not move its committed offsets.',
              description: 'Consumer group {{ $labels.group }} (cluster {{ $labels.%(clusterLabel)s }}, seen by {{ $labels.instance }}) has lag and members, and none of its committed offsets moved over the exporter\'s groups.stall_window, for more than 10 minutes.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchgroupstalled',
            },
          },
          {
            alert: 'KafkaBenchGroupStopped',
            expr: 'max by (%(clusterLabel)s, job, instance, group) (kafka_bench_group_status{status="stopped"}) == 1' % $._config,
            'for': '15m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A consumer group has lag and no members.',
              description: 'Consumer group {{ $labels.group }} (cluster {{ $labels.%(clusterLabel)s }}, seen by {{ $labels.instance }}) has lag and no members for more than 15 minutes: its consumers are gone.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchgroupstopped',
            },
          },
          {
            alert: 'KafkaBenchShareRecordsArchived',
            expr: 'sum by (%(clusterLabel)s, job, instance, probe) (increase(kafka_bench_share_records_archived_total{reason="delivery_limit"}[15m])) > 0' % $._config,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'A share group archived probe records at the delivery attempt limit.',
              description: 'The share group of probe {{ $labels.probe }} on {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}) archived {{ $value | humanize }} probe records at the delivery attempt limit in the last 15 minutes: they were delivered, never accepted and will not be delivered again.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchsharerecordsarchived',
            },
          },
          {
            alert: 'KafkaBenchShareRedeliveryHigh',
            expr: |||
              sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_share_redeliveries_total{cause="lock_expired"}[5m]))
              /
              sum by (%(clusterLabel)s, job, instance, probe) (rate(kafka_bench_share_deliveries_total[5m]))
              > %(shareRedeliveryRatioThreshold)s
            ||| % $._config,
            'for': '10m',
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: "Records come back to a share group's members after their acquisition lock expired.",
              description: 'Of the probe records delivered to the share group of probe {{ $labels.probe }} on {{ $labels.instance }} (cluster {{ $labels.%(clusterLabel)s }}), {{ $value | humanizePercentage }} came back without a release (the acquisition lock expired or the member went away) over 5 minutes, above %(shareRedeliveryRatioThreshold)s, for more than 10 minutes.' % $._config,
              runbook_url: $._config.runbookURL + 'kafkabenchshareredeliveryhigh',
            },
          },
        ],
      },
    ],
  },
}
