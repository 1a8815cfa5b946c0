// Service-level objectives as recording rules and multi-window,
// multi-burn-rate alerts (Google SRE workbook, ch. 5), for SLIs that count
// good and total events per probe.
//
// An SLO is an object:
//   prefix:     the recorded series' prefix, e.g. 'kafka_bench_produce_latency_slo'
//               (series probe:<prefix>_good:rate<base>, _total:rate<base>,
//               _errors:ratio_rate<window> and kafka_bench:<objective>)
//   objective:  the name of the objective series without level, e.g.
//               'produce_latency_slo_objective:ratio'
//   groups:     [{ name, selector: [matchers], objective, good: expr, total: expr }]
//               the good and total rates of each group of probes, over the base window
//   alert, summary(b), description(b, g): the burn-rate alert's name and
//               texts, for a burn rate b of the group g
local utils = import 'utils.libsonnet';

{
  local by(cfg) = '%s, job, instance, probe' % cfg.clusterLabel,

  // The matchers of group i of groups (each with a probeMatcher): its own
  // matcher and the negation of every earlier group's.
  groupSelectors(where, groups)::
    local names = [g.name for g in groups];
    assert std.length(std.set(names)) == std.length(names) : '%s: group names must be unique, got %s' % [where, std.join(', ', names)];
    [
      local g = groups[i];
      assert std.isString(g.probeMatcher) : '%s[%d].probeMatcher: want a regular expression, got %s' % [where, i, std.toString(g.probeMatcher)];
      assert g.probeMatcher != '' || i == std.length(groups) - 1 : '%s[%d].probeMatcher: empty (every probe) is only allowed on the last group' % [where, i];
      assert std.isNumber(g.objective) && g.objective > 0 && g.objective < 1 : '%s[%d].objective: want a ratio between 0 and 1 (exclusive), got %s' % [where, i, utils.num(g.objective)];
      (if g.probeMatcher == '' then [] else ['probe=~"%s"' % g.probeMatcher])
      + ['probe!~"%s"' % groups[j].probeMatcher for j in std.range(0, i - 1)]
      for i in std.range(0, std.length(groups) - 1)
    ],

  // The windows of the error ratios: the base window and every window of
  // the burn rates, shortest first.
  windows(cfg, burnRates)::
    local ws = std.set([cfg.sloBaseWindow] + [b.long for b in burnRates] + [b.short for b in burnRates], utils.seconds);
    assert std.all([utils.seconds(w) >= utils.seconds(cfg.sloBaseWindow) for w in ws]) :
           'sloBaseWindow %s: must not be longer than any burn-rate window (%s)' % [cfg.sloBaseWindow, std.join(', ', ws)];
    ws,

  local multi(slo) = std.length(slo.groups) > 1,

  // objectiveSeries is the objective of group g, with a group label when
  // the SLO has several groups.
  local objectiveSeries(slo, g) =
    'kafka_bench:' + slo.objective + (if multi(slo) then '{slo_group="%s"}' % g.name else ''),

  rules(cfg, slo, burnRates)::
    local base = cfg.sloBaseWindow;
    local good = 'probe:%s_good:rate%s' % [slo.prefix, base];
    local total = 'probe:%s_total:rate%s' % [slo.prefix, base];
    std.flattenArrays([
      [{ record: good, expr: g.good }, { record: total, expr: g.total }]
      for g in slo.groups
    ])
    + [
      { record: 'kafka_bench:' + slo.objective, expr: 'vector(%s)' % utils.num(g.objective) }
      + (if multi(slo) then { labels: { slo_group: g.name } } else {})
      for g in slo.groups
    ]
    + [
      {
        record: 'probe:%s_errors:ratio_rate%s' % [slo.prefix, w],
        expr:
          if w == base then '1 - %s / %s' % [good, total]
          else '1 - sum_over_time(%s[%s]) / sum_over_time(%s[%s])' % [good, w, total, w],
      }
      for w in self.windows(cfg, burnRates)
    ],

  alerts(cfg, slo, burnRates)::
    local base = cfg.sloBaseWindow;
    [
      local sel = utils.selector(g.selector);
      local errors(w) = 'probe:%s_errors:ratio_rate%s%s' % [slo.prefix, w, sel];
      local budget = '%s * (1 - %s)' % [utils.num(b.factor), objectiveSeries(slo, g)];
      {
        alert: slo.alert,
        expr: |||
          %(long)s
            > on () group_left () (%(budget)s)
          and
          %(short)s
            > on () group_left () (%(budget)s)
          # Only while the probe is still measured: a series gone stale
          # (exporter or probe removed) resolves within %(base)s instead
          # of burning on from the long windows' old samples.
          and on (%(by)s) probe:%(prefix)s_total:rate%(baseWindow)s%(sel)s
        ||| % {
          long: errors(b.long),
          short: errors(b.short),
          budget: budget,
          base: utils.humanDuration(base),
          by: by(cfg),
          prefix: slo.prefix,
          baseWindow: base,
          sel: sel,
        },
        'for': b['for'],
        labels: { severity: b.severity, long: b.long, short: b.short },
        annotations: {
          summary: slo.summary(b),
          description: slo.description(b, g),
          runbook_url: cfg.runbookURL + std.asciiLower(slo.alert),
        },
      }
      for g in slo.groups
      for b in burnRates
    ],
}
