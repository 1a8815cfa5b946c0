// The latency SLOs: the fraction of records at most the threshold of their
// probe's group (_config.latencySLOs), read from native histograms when
// Prometheus ingests them, or else from the classic le bucket of the
// threshold.
local buckets = import '../lib/buckets.libsonnet';
local slo = import '../lib/slo.libsonnet';
local utils = import '../lib/utils.libsonnet';

{
  local cfg = $._config,
  local by = '%s, job, instance, probe' % cfg.clusterLabel,

  local texts = {
    produce: {
      alert: 'KafkaBenchProduceLatencySLOBurn',
      summary: 'Produce latency SLO error budget is burning',
      what: 'records produced by probe {{ $labels.probe }} on {{ $labels.instance }} over the last %s were slower than the produce-latency SLO threshold',
    },
    end_to_end: {
      alert: 'KafkaBenchEndToEndLatencySLOBurn',
      summary: 'End-to-end latency SLO error budget is burning',
      what: 'records consumed by probe {{ $labels.probe }} on {{ $labels.instance }} over the last %s arrived later than the end-to-end latency SLO threshold',
    },
  },

  // threshold is the bucket boundary of a group's threshold, as written in
  // the le label, or an error naming the setting.
  local threshold(name, i, g) =
    local where = '_config.latencySLOs.%s.groups[%d].threshold' % [name, i];
    local metric = cfg.latencySLOs[name].metric;
    if !std.isNumber(g.threshold) then error '%s: want a number of seconds, got %s' % [where, std.toString(g.threshold)]
    else if !std.member(buckets.latency, g.threshold) then
      error '%s: %s is not a bucket boundary of %s (one of %s): the classic histogram would count no good records'
            % [where, utils.num(g.threshold), metric, std.join(' ', [utils.num(b) for b in buckets.latency])]
    else utils.num(g.threshold),

  local latencySLO(name) =
    local s = cfg.latencySLOs[name];
    local t = texts[name];
    local selectors = slo.groupSelectors('_config.latencySLOs.%s.groups' % name, s.groups);
    {
      prefix: 'kafka_bench_%s_latency_slo' % name,
      objective: '%s_latency_slo_objective:ratio' % name,
      alert: t.alert,
      summary(b): t.summary + (if b.severity == 'critical' then ' fast.' else '.'),
      description(b, g):
        '{{ $value | humanizePercentage }} of %s: the error budget burns at more than %sx the sustainable rate (over %s and %s).'
        % [t.what % b.long, utils.num(b.factor), b.long, b.short],
      groups: [
        local g = s.groups[i];
        local le = threshold(name, i, g);
        local sel = selectors[i];
        local native = 'sum by (%s) (rate(%s%s[%s]))' % [by, s.metric, utils.selector(sel), cfg.sloBaseWindow];
        {
          name: g.name,
          selector: sel,
          objective: g.objective,
          good: |||
            histogram_fraction(0, %(le)s, %(native)s)
              * histogram_count(%(native)s)
            or
            sum by (%(by)s) (rate(%(metric)s_bucket%(bucket)s[%(w)s]))
          ||| % { le: le, native: native, by: by, metric: s.metric, bucket: utils.selector([utils.le(g.threshold)] + sel), w: cfg.sloBaseWindow },
          total: |||
            histogram_count(%(native)s)
            or
            sum by (%(by)s) (rate(%(metric)s_count%(sel)s[%(w)s]))
          ||| % { native: native, by: by, metric: s.metric, sel: utils.selector(sel), w: cfg.sloBaseWindow },
        }
        for i in std.range(0, std.length(s.groups) - 1)
      ],
    },

  local latencySLOs = [latencySLO('produce'), latencySLO('end_to_end')],

  latencySLORuleGroup:: {
    name: 'kafka_bench_slo.rules',
    rules: std.flattenArrays([slo.rules(cfg, s, cfg.latencyBurnRates) for s in latencySLOs]),
  },

  latencySLOAlertGroup:: {
    name: 'kafka_bench_latency_slo',
    rules: std.flattenArrays([slo.alerts(cfg, s, cfg.latencyBurnRates) for s in latencySLOs]),
  },
}
