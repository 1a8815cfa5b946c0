// The availability SLOs (_config.availabilitySLOs): produce success, end-to-
// end delivery within a window, and loss, each as good and total rates per
// probe with multi-window, multi-burn-rate alerts.
local buckets = import '../lib/buckets.libsonnet';
local slo = import '../lib/slo.libsonnet';
local utils = import '../lib/utils.libsonnet';

{
  local cfg = $._config,
  local by = '%s, job, instance, probe' % cfg.clusterLabel,
  local w = cfg.sloBaseWindow,

  // rate(metric) per probe of a group.
  local rate(metric, sel) = 'sum by (%s) (rate(%s%s[%s]))' % [by, metric, utils.selector(sel), w],
  // a, or 0 for every probe that has b: a series that does not exist yet
  // (no record failed, none lost) counts as 0.
  local orZero(a, b) = '%s\n  or on (%s) 0 * %s' % [a, by, b],

  local produced(sel) = rate('kafka_bench_produced_records_total', sel),
  local failed(sel) = rate('kafka_bench_produce_failed_total', sel),
  local lost(sel) = rate('kafka_bench_records_lost_total', sel),
  local e2e = 'kafka_bench_end_to_end_latency_seconds',

  // window is the bucket boundary of a delivery group's window, or an
  // error naming the setting.
  local window(i, g) =
    local where = '_config.availabilitySLOs.delivery.groups[%d].window' % i;
    if !std.objectHas(g, 'window') || !std.isNumber(g.window) then error '%s: want a number of seconds, got %s' % [where, std.toString(std.get(g, 'window'))]
    else if !std.member(buckets.latency, g.window) then
      error '%s: %s is not a bucket boundary of %s (one of %s): the classic histogram would count no delivered records'
            % [where, utils.num(g.window), e2e, std.join(' ', [utils.num(b) for b in buckets.latency])]
    else utils.num(g.window),

  local define(name, t, good, total) =
    local s = cfg.availabilitySLOs[name];
    local selectors = slo.groupSelectors('_config.availabilitySLOs.%s.groups' % name, s.groups);
    {
      prefix: 'kafka_bench_%s_slo' % name,
      objective: '%s_slo_objective:ratio' % name,
      alert: t.alert,
      summary(b): t.summary + (if b.severity == 'critical' then ' fast.' else '.'),
      description(b, g):
        '{{ $value | humanizePercentage }} of %s: the error budget burns at more than %sx the sustainable rate (over %s and %s).'
        % [t.what(b.long, g), utils.num(b.factor), b.long, b.short],
      groups: [
        local g = s.groups[i];
        {
          name: g.name,
          config: g,
          selector: selectors[i],
          objective: g.objective,
          good: good(i, g, selectors[i]),
          total: total(selectors[i]),
        }
        for i in std.range(0, std.length(s.groups) - 1)
      ],
    },

  local availabilitySLOs = [
    define(
      'produce_success',
      {
        alert: 'KafkaBenchProduceSuccessSLOBurn',
        summary: 'Produce success SLO error budget is burning',
        what(long, g): 'the records probe {{ $labels.probe }} on {{ $labels.instance }} tried to produce over the last %s failed' % long,
      },
      function(i, g, sel) orZero(produced(sel), failed(sel)) + '\n',
      function(sel) '(%s)\n+ on (%s)\n(%s)\n' % [orZero(produced(sel), failed(sel)), by, orZero(failed(sel), produced(sel))],
    ),
    define(
      'delivery',
      {
        alert: 'KafkaBenchDeliverySLOBurn',
        summary: 'End-to-end delivery SLO error budget is burning',
        what(long, g): 'the records probe {{ $labels.probe }} on {{ $labels.instance }} produced over the last %s were not read within %s s' % [long, utils.num(g.config.window)],
      },
      // Records read within the window. An empty native histogram (nothing
      // read) has no fraction (NaN): it is dropped, and the classic bucket
      // or, without one, 0 counts instead.
      function(i, g, sel)
        local native = 'sum by (%s) (rate(%s%s[%s]))' % [by, e2e, utils.selector(sel), w];
        |||
          (histogram_fraction(0, %(le)s, %(native)s) * histogram_count(%(native)s)) >= 0
          or
          sum by (%(by)s) (rate(%(e2e)s_bucket%(bucket)s[%(w)s]))
          or on (%(by)s)
          0 * %(produced)s
        ||| % { le: window(i, g), native: native, by: by, e2e: e2e, bucket: utils.selector([utils.le(std.parseJson(window(i, g)))] + sel), w: w, produced: produced(sel) },
      function(sel) produced(sel) + '\n',
    ),
    define(
      'loss',
      {
        alert: 'KafkaBenchLossSLOBurn',
        summary: 'Loss SLO error budget is burning',
        what(long, g): 'the records acknowledged to probe {{ $labels.probe }} on {{ $labels.instance }} over the last %s were lost' % long,
      },
      function(i, g, sel) '%s\n- on (%s)\n(%s)\n' % [produced(sel), by, orZero(lost(sel), produced(sel))],
      function(sel) produced(sel) + '\n',
    ),
  ],

  availabilitySLORuleGroup:: {
    name: 'kafka_bench_availability_slo.rules',
    rules: std.flattenArrays([slo.rules(cfg, s, cfg.availabilityBurnRates) for s in availabilitySLOs]),
  },

  availabilitySLOAlertGroup:: {
    name: 'kafka_bench_availability_slo',
    rules: std.flattenArrays([slo.alerts(cfg, s, cfg.availabilityBurnRates) for s in availabilitySLOs]),
  },
}
