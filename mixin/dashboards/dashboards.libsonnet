// The Grafana dashboards, by file name, built with lib/grafana.libsonnet
// (panels, rows, the grid) and lib/queries.libsonnet (PromQL formatted from
// _config: the job selector, the cluster label, recording rules where
// _config.dashboardsUseRecordingRules asks for them). The template variable
// that selects clusters stays $cluster whatever the label's name.
local lib = import '../lib/dashboards.libsonnet';

(import 'overview.libsonnet')
+ (import 'compare.libsonnet')
+ (import 'groups.libsonnet')
+ {
  // The same dashboards for import through Grafana's UI or grafana.com
  // (dashboards/import/): __inputs and __requires, the data source asked for
  // on import. The provisioning copies above keep ${datasource} alone. They
  // never read recording rules: who imports a dashboard may not load them.
  grafanaDashboardsImport::
    local raw = $ + { _config+:: { dashboardsUseRecordingRules: false } };
    {
      [name]: lib.importable(raw.grafanaDashboards[name])
      for name in std.objectFields(raw.grafanaDashboards)
    },
}
