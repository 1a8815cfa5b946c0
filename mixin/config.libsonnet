// The settings of the kafka_bench_exporter mixin. Override any of them when
// importing the mixin:
//
//   (import 'kafka-bench-mixin/mixin.libsonnet') + {
//     _config+:: { clusterLabel: 'k8s_cluster', jobSelector: 'job="kafka-bench"' },
//   }
{
  _config+:: {
    // The label matcher of the exporter's scrape job, read by
    // KafkaBenchExporterDown, KafkaBenchExporterAbsent and every dashboard
    // query of the exporter's series (and its $job variable). The default
    // matches e.g. "kafka_bench", "kafka-bench-exporter" and
    // "monitoring/kafka-bench-exporter".
    jobSelector: 'job=~".*kafka.?bench.*"',

    // The label that tells the Kafka clusters apart (the exporter's
    // --cluster label, or a target label set by relabelling). Every rule
    // and every dashboard query aggregates by it.
    clusterLabel: 'cluster',

    // The dashboards read the recording rules of rules/rules.libsonnet
    // (per-probe throughput at 1m, latency quantiles over 5m) where one
    // holds a panel's series, in place of computing it from the raw series
    // over $__rate_interval: lighter queries over long ranges, for a
    // Prometheus that loads recording_rules.yml. The import copies
    // (dashboards/import/) never read them.
    dashboardsUseRecordingRules: false,

    // The prefix of every alert's runbook_url; the anchor is the alert
    // name in lower case.
    runbookURL: 'https://github.com/kafka-bench/kafka_bench_exporter/blob/main/docs/runbooks.md#',

    // Latency SLOs: a record is good when its latency is at most the
    // threshold (seconds). Each SLO has groups of probes, chosen by a
    // regular expression on the probe name (the first group that matches
    // wins; an empty probeMatcher, allowed on the last group only, takes
    // every other probe), each with its own threshold and objective. A
    // threshold must be a classic bucket boundary of the histogram
    // (lib/buckets.libsonnet), or the good count of a Prometheus without
    // native histograms would be empty: the mixin fails to render then.
    latencySLOs: {
      produce: {
        metric: 'kafka_bench_produce_latency_seconds',
        groups: [
          { name: 'default', probeMatcher: '', threshold: 0.1, objective: 0.999 },
        ],
      },
      end_to_end: {
        metric: 'kafka_bench_end_to_end_latency_seconds',
        groups: [
          { name: 'default', probeMatcher: '', threshold: 0.25, objective: 0.999 },
        ],
      },
    },

    // The window of the SLIs' base rates; every longer window averages the
    // recorded base rates.
    sloBaseWindow: '5m',

    // Multi-window, multi-burn-rate alerts (Google SRE workbook, ch. 5): an
    // alert fires when the error ratio over both the long and the short
    // window exceeds factor × the error budget (1 - objective).
    latencyBurnRates: [
      { long: '1h', short: '5m', factor: 14.4, 'for': '2m', severity: 'critical' },
      { long: '6h', short: '30m', factor: 6, 'for': '15m', severity: 'critical' },
      { long: '1d', short: '2h', factor: 3, 'for': '1h', severity: 'warning' },
    ],

    // Availability SLOs, per group of probes (probeMatcher as above):
    //   produce_success: records acknowledged ÷ records tried (acknowledged
    //                    + failed);
    //   delivery:        records read within window seconds of their
    //                    intended send time ÷ records produced (window: a
    //                    classic bucket boundary of
    //                    kafka_bench_end_to_end_latency_seconds);
    //   loss:            records not lost ÷ records produced.
    availabilitySLOs: {
      produce_success: {
        groups: [{ name: 'default', probeMatcher: '', objective: 0.999 }],
      },
      delivery: {
        groups: [{ name: 'default', probeMatcher: '', window: 1, objective: 0.999 }],
      },
      loss: {
        groups: [{ name: 'default', probeMatcher: '', objective: 0.9999 }],
      },
    },

    // The burn-rate alerts of the availability SLOs: the SRE workbook's two
    // paging pairs.
    availabilityBurnRates: [
      { long: '1h', short: '5m', factor: 14.4, 'for': '2m', severity: 'critical' },
      { long: '6h', short: '30m', factor: 6, 'for': '15m', severity: 'critical' },
    ],

    // KafkaBenchRebalanceSlow: the p99 rebalance duration (seconds) of a
    // probe's consumer group above which it fires.
    rebalanceSlowThresholdSeconds: 30,

    // KafkaBenchShareRedeliveryHigh: the share of a share group's deliveries
    // that came back after their acquisition lock expired above which it
    // fires.
    shareRedeliveryRatioThreshold: 0.01,

    // KafkaBenchGroupLagHigh: the lag in seconds of a consumer group (the
    // groups block) above which it fires, per group matcher: the first
    // entry whose selector matches a group's series sets its threshold,
    // e.g. [{ selector: 'group=~"payments-.*"', seconds: 60 },
    // { selector: 'group=~".+"', seconds: 900 }].
    groupLagSecondsThresholds: [
      { selector: 'group=~".+"', seconds: 900 },
    ],

    // KafkaBenchTransactionsFailing: the share of a transactional probe's
    // transactions that failed to end above which it fires.
    transactionFailureRatioThreshold: 0.05,

    // Per-alert switches: an alert set to false is left out, e.g.
    // { KafkaBenchLoadGeneratorSaturated: false }. Unknown names fail.
    alerts: {},
  },
}
