// Grafana building blocks of the mixin's dashboards: panels, rows,
// template variables, annotations and the automatic grid. Plain Grafana
// JSON, no PromQL: the queries come from lib/queries.libsonnet.
//
//   local g = import '../lib/grafana.libsonnet';
//   g.dashboard('kafka-bench-x', 'Kafka Bench / X', 'What it shows.',
//     variables=[g.datasourceVariable, g.queryVariable('probe', 'Probe', 'label_values(...)')],
//     annotations=[...],
//     rows=[
//       g.row('Throughput', [
//         g.timeseries('Records/s', 'What the panel shows.', 'ops', [[expr, legend], ...]),
//         g.stat('Probe up', '...', 'none', [[expr, legend]]) + g.size(6, 6),
//       ]),
//     ])
//
// Panels:  timeseries, stat, table, heatmap (title, description, unit,
//          targets: [expr, legend] pairs; a table's and a heatmap's take one
//          expr), valueTable (columns of several instant queries' values,
//          joined on their labels). Each is 12 wide and 8 high unless
//          + g.size(w, h).
// Options: + g.dashed(regex) (series drawn dashed), + g.stacked,
//          + g.ratio (0 to 1 axis), + g.valueMappings({'0': ['DOWN', 'red']}).
// Layout:  rows of panels; g.dashboard places them left to right, a new
//          line when one is full (24 wide), numbers every panel and row, and
//          sets every gridPos: a dashboard never sets one by hand.
{
  local ds = { type: 'prometheus', uid: '${datasource}' },

  // size(w, h) sets a panel's width (of 24) and height.
  size(w, h=8):: { w:: w, h:: h },

  local panel(type, title, description, unit) = {
    w:: 12,
    h:: 8,
    type: type,
    title: title,
    description: description,
    datasource: ds,
    fieldConfig: { defaults: { unit: unit }, overrides: [] },
  },

  // target(expr, legend, i, kind) is query i of a panel: kind range
  // (time series), instant (stat), table or heatmap.
  local target(expr, legend, i, kind) = {
    datasource: ds,
    editorMode: 'code',
    expr: expr,
    legendFormat: legend,
    range: kind == 'range' || kind == 'heatmap',
    instant: !self.range,
    refId: std.char(65 + i),
  } + (if kind == 'table' || kind == 'heatmap' then { format: kind } else {}),

  local targets(ts, kind) = [target(ts[i][0], ts[i][1], i, kind) for i in std.range(0, std.length(ts) - 1)],

  // timeseries: lines, a table legend with mean, max and last.
  timeseries(title, description, unit, ts):: panel('timeseries', title, description, unit) {
    fieldConfig+: {
      defaults+: {
        color: { mode: 'palette-classic' },
        custom: {
          drawStyle: 'line',
          lineInterpolation: 'linear',
          lineWidth: 1,
          fillOpacity: 10,
          gradientMode: 'none',
          showPoints: 'never',
          spanNulls: false,
          axisPlacement: 'auto',
          stacking: { mode: 'none', group: 'A' },
        },
        thresholds: { mode: 'absolute', steps: [{ color: 'green', value: null }] },
        min: 0,
      },
    },
    options: {
      legend: { displayMode: 'table', placement: 'bottom', showLegend: true, calcs: ['mean', 'max', 'lastNotNull'] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    targets: targets(ts, 'range'),
  },

  // dashed(regex): the series whose name matches regex drawn dashed (a
  // target, an earlier period, an error budget).
  dashed(regex):: {
    fieldConfig+: { overrides+: [{
      matcher: { id: 'byRegexp', options: regex },
      properties: [{ id: 'custom.lineStyle', value: { dash: [10, 10], fill: 'dash' } }],
    }] },
  },

  // stacked: areas stacked on each other (the parts of a whole).
  stacked:: { fieldConfig+: { defaults+: { custom+: { fillOpacity: 20, stacking: { mode: 'normal', group: 'A' } } } } },

  // ratio: an axis from 0 to 1.
  ratio:: { fieldConfig+: { defaults+: { max: 1 } } },

  // stat: the last value of each series, with its name.
  stat(title, description, unit, ts):: panel('stat', title, description, unit) {
    fieldConfig+: {
      defaults+: {
        color: { mode: 'thresholds' },
        mappings: [],
        thresholds: { mode: 'absolute', steps: [{ color: 'blue', value: null }] },
      },
    },
    options: {
      colorMode: 'value',
      graphMode: 'none',
      justifyMode: 'auto',
      orientation: 'auto',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      text: {},
      textMode: 'value_and_name',
    },
    targets: targets(ts, 'instant'),
  },

  // valueMappings({ '1': ['UP', 'green'], '0': ['DOWN', 'red'] }): a stat
  // that shows each value as a text on a background of its colour; the
  // lowest value's colour is the base.
  valueMappings(m):: {
    local values = std.sort(std.objectFields(m), function(v) std.parseJson(v)),
    fieldConfig+: { defaults+: {
      mappings: [{
        type: 'value',
        options: { [v]: { text: m[v][0], color: m[v][1], index: std.length(values) - 1 - std.find(v, values)[0] } for v in values },
      }],
      thresholds: { mode: 'absolute', steps: [
        { color: m[values[i]][1], value: if i == 0 then null else std.parseJson(values[i]) }
        for i in std.range(0, std.length(values) - 1)
      ] },
    } },
    options+: { colorMode: 'background' },
  },

  // table(title, description, expr, columns): the labels of expr's series
  // (an info metric), one series a row, columns in the order given, the
  // others after them.
  table(title, description, expr, columns):: panel('table', title, description, 'none') {
    fieldConfig+: {
      defaults+: {
        custom: { align: 'auto', cellOptions: { type: 'auto' } },
        thresholds: { mode: 'absolute', steps: [{ color: 'green', value: null }] },
      },
    },
    options: { cellHeight: 'sm', footer: { fields: '', reducer: ['sum'], show: false }, showHeader: true },
    transformations: [{
      id: 'organize',
      options: {
        excludeByName: { Time: true, Value: true, __name__: true },
        indexByName: { [columns[i]]: i for i in std.range(0, std.length(columns) - 1) },
        renameByName: {},
      },
    }],
    targets: targets([[expr, '__auto']], 'table'),
  },

  // valueTable(title, description, ts, labels): one row per label set of
  // the instant queries ts ([expr, column, unit] triples), joined on their
  // labels: the label columns labels, in that order, then a column of each
  // query's value named column, in unit; a query whose column is null adds
  // its labels alone (an info or status series). Sorted by the first value
  // column, largest first.
  valueTable(title, description, ts, labels):: panel('table', title, description, 'none') {
    local n = std.length(ts),
    local valueName(i) = 'Value #' + std.char(65 + i),
    local values = [i for i in std.range(0, n - 1) if ts[i][1] != null],
    local shown = labels + [valueName(i) for i in values],
    fieldConfig+: {
      defaults+: {
        custom: { align: 'auto', cellOptions: { type: 'auto' } },
        thresholds: { mode: 'absolute', steps: [{ color: 'green', value: null }] },
      },
      overrides: [
        { matcher: { id: 'byName', options: ts[i][1] }, properties: [{ id: 'unit', value: ts[i][2] }] }
        for i in values
      ],
    },
    options: {
      cellHeight: 'sm',
      footer: { fields: '', reducer: ['sum'], show: false },
      showHeader: true,
      sortBy: [{ displayName: ts[values[0]][1], desc: true }],
    },
    transformations: [
      { id: 'merge', options: {} },
      { id: 'filterFieldsByName', options: { include: { names: shown } } },
      {
        id: 'organize',
        options: {
          excludeByName: {},
          indexByName: { [shown[i]]: i for i in std.range(0, std.length(shown) - 1) },
          renameByName: { [valueName(i)]: ts[i][1] for i in values },
        },
      },
    ],
    targets: targets([[t[0], '__auto'] for t in ts], 'table'),
  },

  // heatmap(title, description, expr, repeat): the count per bucket
  // (legend le) and interval of expr, one panel per value of the variable
  // repeat, two a line.
  heatmap(title, description, expr, repeat):: panel('heatmap', title, description, 's') {
    fieldConfig+: {
      defaults+: {
        custom: { hideFrom: { legend: false, tooltip: false, viz: false }, scaleDistribution: { type: 'linear' } },
      },
    },
    options: {
      calculate: false,
      cellGap: 1,
      color: { exponent: 0.5, fill: 'dark-orange', mode: 'scheme', reverse: false, scale: 'exponential', scheme: 'Oranges', steps: 64 },
      exemplars: { color: 'rgba(255,0,255,0.7)' },
      filterValues: { le: 1e-09 },
      legend: { show: true },
      rowsFrame: { layout: 'auto' },
      tooltip: { show: true, yHistogram: false },
      yAxis: { axisPlacement: 'left', reverse: false, unit: 's' },
    },
    repeat: repeat,
    repeatDirection: 'h',
    maxPerRow: 2,
    targets: targets([[expr, '{{le}}']], 'heatmap'),
  },

  // row(title, panels): a titled row, open, and the panels under it.
  row(title, panels):: { title: title, panels: panels },

  // grid(rows): the rows and their panels with ids and gridPos, in order.
  grid(rows)::
    local place(acc, p) =
      local wrap = acc.x + p.w > 24;
      local y = if wrap then acc.y + acc.lineH else acc.y;
      local x = if wrap then 0 else acc.x;
      acc {
        x: x + p.w,
        y: y,
        lineH: std.max(if wrap then 0 else acc.lineH, p.h),
        out+: [p { id: std.length(acc.out) + 1, gridPos: { h: p.h, w: p.w, x: x, y: y } }],
      };
    local addRow(acc, r) =
      local top = acc.y + acc.lineH;
      std.foldl(place, r.panels, acc {
        x: 0,
        y: top + 1,
        lineH: 0,
        out+: [{
          id: std.length(acc.out) + 1,
          type: 'row',
          title: r.title,
          collapsed: false,
          panels: [],
          gridPos: { h: 1, w: 24, x: 0, y: top },
        }],
      });
    std.foldl(addRow, rows, { x: 0, y: 0, lineH: 0, out: [] }).out,

  datasourceVariable:: {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    current: {},
    hide: 0,
    refresh: 1,
    regex: '',
    includeAll: false,
    multi: false,
    options: [],
  },

  // queryVariable(name, label, query, multi): a variable whose values are
  // the answers of query (label_values(...)); multi: several values and
  // All (.*), else one value.
  queryVariable(name, label, query, multi=true):: {
    name: name,
    label: label,
    type: 'query',
    datasource: ds,
    definition: query,
    query: { query: query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    refresh: 2,
    regex: '',
    sort: 1,
    hide: 0,
    multi: multi,
    includeAll: multi,
    options: [],
  } + if multi then {
    allValue: '.*',
    current: { selected: true, text: ['All'], value: ['$__all'] },
  } else { current: {} },

  // customVariable(name, label, options, default, description): one of
  // options ([text, value] pairs), default the selected value.
  customVariable(name, label, options, default, description=null):: {
    name: name,
    label: label,
    type: 'custom',
    query: std.join(',', [if o[0] == o[1] then o[0] else '%s : %s' % o for o in options]),
    hide: 0,
    multi: false,
    includeAll: false,
    local d = [o for o in options if o[1] == default][0],
    current: { selected: true, text: d[0], value: d[1] },
    options: [{ selected: o[1] == default, text: o[0], value: o[1] } for o in options],
  } + if description != null then { description: description } else {},

  // textVariable(name, label, default, description): a free text.
  textVariable(name, label, default, description):: {
    name: name,
    label: label,
    type: 'textbox',
    description: description,
    query: default,
    hide: 0,
    current: { selected: false, text: default, value: default },
    options: [{ selected: true, text: default, value: default }],
  },

  // annotation(name, color, expr, title, text, tagKeys): a mark at each
  // sample of expr.
  annotation(name, color, expr, title, text='', tagKeys=''):: {
    name: name,
    datasource: ds,
    enable: true,
    hide: false,
    iconColor: color,
    step: '60s',
    expr: expr,
    titleFormat: title,
    textFormat: text,
    tagKeys: tagKeys,
    useValueForTime: false,
  },

  // dashboard(uid, title, description, variables, annotations, rows).
  dashboard(uid, title, description, variables, annotations, rows):: {
    uid: uid,
    title: title,
    description: description,
    tags: ['kafka', 'kafka-bench'],
    timezone: 'browser',
    editable: true,
    graphTooltip: 1,
    fiscalYearStartMonth: 0,
    liveNow: false,
    weekStart: '',
    time: { from: 'now-6h', to: 'now' },
    timepicker: {},
    refresh: '30s',
    schemaVersion: 39,
    version: 1,
    links: [{
      title: 'Kafka Bench',
      type: 'dashboards',
      tags: ['kafka-bench'],
      asDropdown: true,
      includeVars: false,
      keepTime: true,
      icon: 'external link',
      targetBlank: false,
      tooltip: '',
      url: '',
    }],
    annotations: { list: annotations },
    templating: { list: variables },
    panels: $.grid(rows),
  },
}
