{
  // withClusterLabel(d, label) is dashboard d with its queries, legends and
  // variable queries reading the cluster label as label instead of cluster.
  withClusterLabel(d, label)::
    if label == 'cluster' then d
    else
      local replacements = [
        ['cluster=~"', label + '=~"'],
        ['cluster="', label + '="'],
        ['(cluster,', '(' + label + ','],
        ['(cluster)', '(' + label + ')'],
        [', cluster,', ', ' + label + ','],
        [', cluster)', ', ' + label + ')'],
        ['{{cluster}}', '{{' + label + '}}'],
      ];
      local fix(s) = std.foldl(function(acc, r) std.strReplace(acc, r[0], r[1]), replacements, s);
      local walk(v) =
        if std.isObject(v) then { [k]: if std.member(['expr', 'legendFormat', 'query', 'definition', 'regex'], k) && std.isString(v[k]) then fix(v[k]) else walk(v[k]) for k in std.objectFields(v) }
        else if std.isArray(v) then [walk(x) for x in v]
        else v;
      walk(d),

  // importable(d) is dashboard d for import through Grafana's UI or
  // grafana.com: __inputs asks for a Prometheus data source on import, which
  // becomes the current value of the ${datasource} variable every query
  // reads, and __requires names the Grafana version and the plugins used.
  importable(d)::
    local panels = std.flattenArrays([[p] + std.get(p, 'panels', []) for p in d.panels]);
    local types = std.set([p.type for p in panels if p.type != 'row']);
    local panelNames = { heatmap: 'Heatmap', stat: 'Stat', table: 'Table', timeseries: 'Time series', text: 'Text', gauge: 'Gauge', bargauge: 'Bar gauge', piechart: 'Pie chart', barchart: 'Bar chart' };
    {
      __inputs: [{
        name: 'DS_PROMETHEUS',
        label: 'Prometheus',
        description: 'The Prometheus that scrapes kafka_bench_exporter',
        type: 'datasource',
        pluginId: 'prometheus',
        pluginName: 'Prometheus',
      }],
      __requires: [
        { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.0.0' },
        { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
      ] + [
        { type: 'panel', id: t, name: std.get(panelNames, t, t), version: '' }
        for t in types
      ],
    } + d {
      templating+: {
        list: [
          if v.name == 'datasource' && v.type == 'datasource' then v { current: { selected: true, text: 'Prometheus', value: '${DS_PROMETHEUS}' } } else v
          for v in super.list
        ],
      },
    },
}
