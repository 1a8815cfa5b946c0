// The Grafana dashboards, by file name. Their queries read the cluster
// label through _config.clusterLabel; the template variable that selects
// clusters stays $cluster.
local lib = import '../lib/dashboards.libsonnet';
local withLabel = lib.withClusterLabel;

{
  grafanaDashboards+:: {
    'kafka-bench-overview.json': withLabel(import 'overview.libsonnet', $._config.clusterLabel),
    'kafka-bench-compare.json': withLabel(import 'compare.libsonnet', $._config.clusterLabel),
  },

  // The same dashboards for import through Grafana's UI or grafana.com
  // (dashboards/import/): __inputs and __requires, the data source asked for
  // on import. The provisioning copies above keep ${datasource} alone.
  grafanaDashboardsImport:: {
    [name]: lib.importable($.grafanaDashboards[name])
    for name in std.objectFields($.grafanaDashboards)
  },
}
