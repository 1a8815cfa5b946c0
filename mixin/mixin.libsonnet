// The kafka_bench_exporter monitoring mixin: Grafana dashboards, recording
// rules and alerts, shaped by _config (config.libsonnet).
//
//   local kafkaBench = (import 'kafka-bench-mixin/mixin.libsonnet') + {
//     _config+:: { clusterLabel: 'k8s_cluster' },
//   };
//   kafkaBench.grafanaDashboards  // file name -> dashboard
//   kafkaBench.prometheusRules    // { groups: [...] } recording rules
//   kafkaBench.prometheusAlerts   // { groups: [...] } alerting rules
(import 'config.libsonnet')
+ (import 'slos/latency.libsonnet')
+ (import 'slos/availability.libsonnet')
+ (import 'rules/rules.libsonnet')
+ (import 'alerts/alerts.libsonnet')
+ (import 'dashboards/dashboards.libsonnet')
+ {
  // The per-alert switches of _config.alerts: an alert set to false is left
  // out, and a group left without rules with it.
  prometheusAlerts+:: {
    local switches = $._config.alerts,
    local known = std.set([r.alert for g in super.groups for r in g.rules]),
    local unknown = [a for a in std.objectFields(switches) if !std.member(known, a)],
    assert std.length(unknown) == 0 :
           '_config.alerts.%s: no such alert (the alerts are %s)' % [unknown[0], std.join(', ', known)],
    local on(r) = !std.objectHas(switches, r.alert) || switches[r.alert],
    groups: [
      g { rules: std.filter(on, g.rules) }
      for g in super.groups
      if std.length(std.filter(on, g.rules)) > 0
    ],
  },
}
