// PromQL of the mixin's dashboards, formatted from _config: every selector
// holds _config.jobSelector and reads the cluster label as
// _config.clusterLabel, every aggregation keeps that label and instance
// (two clusters' exporters are never added together).
//
//   local q = (import '../lib/queries.libsonnet')($._config, $.recordedSeries);
//   local o = q.scope('$cluster', 'probe=~"$probe"', ['probe']);
//   o.rate('kafka_bench_produced_records_total')
//     // sum by (cluster, instance, probe) (rate(kafka_bench_produced_records_total{cluster=~"$cluster",
//     //   job=~".*kafka.?bench.*", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))
//   o.quantile(0.99, 'kafka_bench_produce_latency_seconds')  // native histograms, else the classic buckets
//   o.legend('{{probe}} p99')                                // '{{cluster}} {{probe}} p99'
//
// A scope is the selector of a group of panels (a cluster variable or null,
// the probe matcher or null, the labels kept beside the cluster label and
// instance); o.unprobed is the same without the probe matcher, o.by(['x'])
// the same keeping other labels. Its functions:
//   series(metric, extra, offset)     metric{selector, extra...} [offset x]
//   grouping(labels)                  'cluster, instance, labels...'
//   agg(op, metric, labels, offset)   op by (...) (series)
//   rate / increase(metric, labels, range, offset)
//                                     sum by (...) (rate(series[range]))
//   quantile(q, metric, labels, fn, range, offset)
//                                     histogram_quantile over the native
//                                     histogram, or else the classic buckets
//   heatmap(metric)                   increase per bucket, native or classic
// With _config.dashboardsUseRecordingRules, rate and quantile read the
// recording rule of recorded (rules/rules.libsonnet) that holds the same
// series over $__rate_interval's place, when there is one.
local g = import 'grafana.libsonnet';
local num = (import 'utils.libsonnet').num;

function(config, recorded) {
  local cl = config.clusterLabel,
  local useRules = config.dashboardsUseRecordingRules,

  // The labels every probe-level recording rule keeps.
  local ruleLabels = [cl, 'job', 'instance', 'probe'],

  // legend('{{probe}} p99') = '{{cluster}} {{probe}} p99'.
  legend(s):: '{{' + cl + '}} ' + s,

  // scope(cluster, probe, labels, jobs): the selector of the exporter's
  // series of the clusters $cluster matches, and probe (a matcher, or
  // null for series about no probe), aggregated by cluster, instance and
  // labels. jobs are the job matchers (default: _config.jobSelector and
  // the $job variable).
  scope(cluster, probe, labels=[], jobs=[config.jobSelector, 'job=~"$job"'], instance='instance=~"$instance"'):: {
    local s = self,
    labels:: labels,
    matchers:: (if cluster == null then [] else [cl + '=~"' + cluster + '"']) + jobs + [instance]
               + (if probe == null then [] else [probe]),

    unprobed:: $.scope(cluster, null, labels, jobs, instance),
    by(labels):: $.scope(cluster, probe, labels, jobs, instance),

    selector(extra=[]):: '{' + std.join(', ', s.matchers + extra) + '}',

    series(metric, extra=[], offset=null)::
      metric + s.selector(extra) + (if offset == null then '' else ' offset ' + offset),

    // grouping(['probe']) = 'cluster, instance, probe'; a job label comes
    // before instance, an le label after it.
    grouping(labels=s.labels)::
      local first = [l for l in ['job'] if std.member(labels, l)];
      local after = [l for l in ['le'] if std.member(labels, l)];
      std.join(', ', [cl] + first + ['instance'] + after + [l for l in labels if !std.member(first + after, l)]),

    agg(op, metric, labels=s.labels, offset=null, extra=[])::
      op + ' by (' + s.grouping(labels) + ') (' + s.series(metric, extra, offset) + ')',

    local window(range, offset) = '[' + range + ']' + (if offset == null then '' else ' offset ' + offset),
    local covered(labels) = std.length([l for l in [cl, 'instance'] + labels if !std.member(ruleLabels, l)]) == 0,

    // rule(metric, key, labels, range) is the recording rule that holds
    // recorded[metric][key], if dashboards read rules and it keeps labels.
    local rule(table, metric, key, labels, range) =
      if useRules && range == '$__rate_interval' && covered(labels)
         && std.objectHas(table, metric) && std.objectHas(table[metric], key)
      then table[metric][key] else null,

    rate(metric, labels=s.labels, range='$__rate_interval', offset=null, extra=[])::
      local r = if extra == [] then rule(recorded.rates, metric, 'rate', labels, range) else null;
      if r != null then 'sum by (' + s.grouping(labels) + ') (' + s.series(r, [], offset) + ')'
      else 'sum by (' + s.grouping(labels) + ') (rate(' + s.series(metric, extra) + window(range, offset) + '))',

    increase(metric, labels=s.labels, range='$__rate_interval', offset=null, extra=[])::
      'sum by (' + s.grouping(labels) + ') (increase(' + s.series(metric, extra) + window(range, offset) + '))',

    // quantile(0.99, m): the quantile of the native histogram m where
    // Prometheus ingests it, or else of the classic m_bucket series (a
    // Prometheus 2, or 3 without native histograms): the same panel for
    // every Prometheus.
    quantile(q, metric, labels=s.labels, fn='rate', range='$__rate_interval', offset=null)::
      local qs = num(q);
      local r = if fn == 'rate' then rule(recorded.quantiles, metric, qs, labels, range) else null;
      if r != null then 'max by (' + s.grouping(labels) + ') (' + s.series(r, [], offset) + ')'
      else
        local one(suffix, ls) = 'histogram_quantile(' + qs + ', sum by (' + s.grouping(ls) + ') ('
                                + fn + '(' + s.series(metric + suffix) + window(range, offset) + ')))';
        one('', labels) + ' or ' + one('_bucket', ['le'] + labels),

    // heatmap(m): the records per bucket and interval of histogram m,
    // native or classic, for a heatmap panel.
    heatmap(metric)::
      local g = s.grouping([]);
      'sum by (' + g + ') (increase(' + s.series(metric) + '[$__rate_interval])) or on (' + g + ') sum by ('
      + s.grouping(['le']) + ') (increase(' + s.series(metric + '_bucket') + '[$__rate_interval]))',
  },

  // annotations(o): the change marks of both dashboards on the series
  // scope o selects.
  annotations(o)::
    local info = o.series('kafka_bench_probe_info');
    local changed(metric, scope) = 'increase(%s[2m]) > 0' % scope.series(metric);
    [
      g.annotation('Probe started or settings changed', 'blue', '%s unless %s offset 2m' % [info, info], 'Probe {{probe}} settings',
                   'topic={{topic}} acks={{acks}} compression={{compression}} record_size_bytes={{record_size_bytes}} batch_size_bytes={{batch_size_bytes}} linger_ms={{linger_ms}} partitions={{partitions}} replication_factor={{replication_factor}} group={{group}}', 'probe'),
      g.annotation('Broker config change', 'orange', changed('kafka_bench_broker_config_changes_total', o.unprobed), 'Broker config change'),
      g.annotation('Topic config change', 'yellow', changed('kafka_bench_topic_config_changes_total', o), 'Topic config change: {{topic}}', 'probe={{probe}} topic={{topic}} hash={{hash}}', 'probe'),
      g.annotation('Broker restart', 'red', changed('kafka_bench_broker_restarts_total', o.unprobed), 'Broker {{broker}} restarted', 'broker={{broker}}', 'broker'),
      g.annotation('Broker release change', 'purple', changed('kafka_bench_broker_version_changes_total', o.unprobed), 'Broker {{broker}} release changed', 'broker={{broker}}', 'broker'),
    ],
}
