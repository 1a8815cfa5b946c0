{
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
