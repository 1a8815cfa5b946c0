// timeseries is a time series panel of the Overview's style: one query per
// target ([expr, legend]), a table legend with mean, max and last.
local timeseries(id, title, description, unit, x, y, targets) = {
  id: id,
  type: 'timeseries',
  title: title,
  description: description,
  gridPos: { h: 8, w: 12, x: x, y: y },
  datasource: { type: 'prometheus', uid: '${datasource}' },
  fieldConfig: {
    defaults: {
      unit: unit,
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
    overrides: [],
  },
  options: {
    legend: { displayMode: 'table', placement: 'bottom', showLegend: true, calcs: ['mean', 'max', 'lastNotNull'] },
    tooltip: { mode: 'multi', sort: 'desc' },
  },
  targets: [
    {
      datasource: { type: 'prometheus', uid: '${datasource}' },
      editorMode: 'code',
      expr: t[0],
      legendFormat: t[1],
      range: true,
      instant: false,
      refId: std.char(65 + i),
    }
    for i in std.range(0, std.length(targets) - 1)
    for t in [targets[i]]
  ],
};
local sel = '{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}';

{
  uid: 'kafka-bench-overview',
  title: 'Kafka Bench / Overview',
  description: 'kafka_bench_exporter: throughput, latency, delivery correctness, consumer lag, load-generator host and Kafka client metrics per probe.',
  tags: [
    'kafka',
    'kafka-bench',
  ],
  timezone: 'browser',
  editable: true,
  graphTooltip: 1,
  fiscalYearStartMonth: 0,
  liveNow: false,
  weekStart: '',
  time: {
    from: 'now-6h',
    to: 'now',
  },
  timepicker: {},
  refresh: '30s',
  schemaVersion: 39,
  version: 1,
  links: [
    {
      title: 'Kafka Bench',
      type: 'dashboards',
      tags: [
        'kafka-bench',
      ],
      asDropdown: true,
      includeVars: false,
      keepTime: true,
      icon: 'external link',
      targetBlank: false,
      tooltip: '',
      url: '',
    },
  ],
  annotations: {
    list: [
      {
        name: 'Probe started or settings changed',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        enable: true,
        hide: false,
        iconColor: 'blue',
        step: '60s',
        expr: 'kafka_bench_probe_info{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"} unless kafka_bench_probe_info{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"} offset 2m',
        titleFormat: 'Probe {{probe}} settings',
        textFormat: 'topic={{topic}} acks={{acks}} compression={{compression}} record_size_bytes={{record_size_bytes}} batch_size_bytes={{batch_size_bytes}} linger_ms={{linger_ms}} partitions={{partitions}} replication_factor={{replication_factor}} group={{group}}',
        tagKeys: 'probe',
        useValueForTime: false,
      },
      {
        name: 'Broker config change',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        enable: true,
        hide: false,
        iconColor: 'orange',
        step: '60s',
        expr: 'increase(kafka_bench_broker_config_changes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[2m]) > 0',
        titleFormat: 'Broker config change',
        textFormat: '',
        tagKeys: '',
        useValueForTime: false,
      },
      {
        name: 'Topic config change',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        enable: true,
        hide: false,
        iconColor: 'yellow',
        step: '60s',
        expr: 'increase(kafka_bench_topic_config_changes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[2m]) > 0',
        titleFormat: 'Topic config change: {{topic}}',
        textFormat: 'probe={{probe}} topic={{topic}} hash={{hash}}',
        tagKeys: 'probe',
        useValueForTime: false,
      },
      {
        name: 'Broker restart',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        enable: true,
        hide: false,
        iconColor: 'red',
        step: '60s',
        expr: 'increase(kafka_bench_broker_restarts_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[2m]) > 0',
        titleFormat: 'Broker {{broker}} restarted',
        textFormat: 'broker={{broker}}',
        tagKeys: 'broker',
        useValueForTime: false,
      },
      {
        name: 'Broker release change',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        enable: true,
        hide: false,
        iconColor: 'purple',
        step: '60s',
        expr: 'increase(kafka_bench_broker_version_changes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[2m]) > 0',
        titleFormat: 'Broker {{broker}} release changed',
        textFormat: 'broker={{broker}}',
        tagKeys: 'broker',
        useValueForTime: false,
      },
    ],
  },
  templating: {
    list: [
      {
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
      {
        name: 'cluster',
        label: 'Cluster',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(kafka_bench_probe_info, cluster)',
        query: {
          query: 'label_values(kafka_bench_probe_info, cluster)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: true,
        includeAll: true,
        options: [],
        allValue: '.*',
        current: {
          selected: true,
          text: [
            'All',
          ],
          value: [
            '$__all',
          ],
        },
      },
      {
        name: 'job',
        label: 'Job',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(kafka_bench_probe_info{cluster=~"$cluster"}, job)',
        query: {
          query: 'label_values(kafka_bench_probe_info{cluster=~"$cluster"}, job)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: true,
        includeAll: true,
        options: [],
        allValue: '.*',
        current: {
          selected: true,
          text: [
            'All',
          ],
          value: [
            '$__all',
          ],
        },
      },
      {
        name: 'instance',
        label: 'Instance',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(kafka_bench_probe_info{cluster=~"$cluster", job=~"$job"}, instance)',
        query: {
          query: 'label_values(kafka_bench_probe_info{cluster=~"$cluster", job=~"$job"}, instance)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: true,
        includeAll: true,
        options: [],
        allValue: '.*',
        current: {
          selected: true,
          text: [
            'All',
          ],
          value: [
            '$__all',
          ],
        },
      },
      {
        name: 'probe',
        label: 'Probe',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(kafka_bench_probe_info{cluster=~"$cluster", job=~"$job", instance=~"$instance"}, probe)',
        query: {
          query: 'label_values(kafka_bench_probe_info{cluster=~"$cluster", job=~"$job", instance=~"$instance"}, probe)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: true,
        includeAll: true,
        options: [],
        allValue: '.*',
        current: {
          selected: true,
          text: [
            'All',
          ],
          value: [
            '$__all',
          ],
        },
      },
      {
        name: 'host_metrics',
        label: 'Host metrics',
        type: 'custom',
        description: 'Where the Broker hosts row reads host metrics: Prometheus node_exporter (node_*) or kafka_bench_exporter in host-agent mode (kafka_bench_host_*).',
        query: 'node_exporter : node,kafka_bench_exporter : kafka_bench_host',
        hide: 0,
        multi: false,
        includeAll: false,
        current: {
          selected: true,
          text: 'node_exporter',
          value: 'node',
        },
        options: [
          {
            selected: true,
            text: 'node_exporter',
            value: 'node',
          },
          {
            selected: false,
            text: 'kafka_bench_exporter',
            value: 'kafka_bench_host',
          },
        ],
      },
      {
        name: 'host_job',
        label: 'Host job',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(${host_metrics}_cpu_seconds_total, job)',
        query: {
          query: 'label_values(${host_metrics}_cpu_seconds_total, job)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: true,
        includeAll: true,
        options: [],
        allValue: '.*',
        current: {
          selected: true,
          text: [
            'All',
          ],
          value: [
            '$__all',
          ],
        },
      },
      {
        name: 'host_instance',
        label: 'Host',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(${host_metrics}_cpu_seconds_total{job=~"$host_job"}, instance)',
        query: {
          query: 'label_values(${host_metrics}_cpu_seconds_total{job=~"$host_job"}, instance)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: true,
        includeAll: true,
        options: [],
        allValue: '.*',
        current: {
          selected: true,
          text: [
            'All',
          ],
          value: [
            '$__all',
          ],
        },
      },
      {
        name: 'host_disks',
        label: 'Host disks',
        type: 'textbox',
        description: 'Regex of the whole disks the Broker hosts row counts (as host.disks): partitions and device-mapper volumes would count IO twice.',
        query: '(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)',
        hide: 0,
        current: {
          selected: false,
          text: '(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)',
          value: '(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)',
        },
        options: [
          {
            selected: true,
            text: '(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)',
            value: '(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)',
          },
        ],
      },
    ],
  },
  panels: [
    {
      type: 'row',
      title: 'Throughput',
      collapsed: false,
      id: 1,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 0,
      },
      panels: [],
    },
    {
      id: 2,
      type: 'timeseries',
      title: 'Records/s: produced vs consumed vs target',
      description: "Records acknowledged by the brokers (produced) and records read back by the probe's consumer (consumed) per second. Target is the configured rate; probes with target 0 (unlimited, saturation probes) show no target line.",
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 1,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:rec/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: '.* target',
            },
            properties: [
              {
                id: 'custom.lineStyle',
                value: {
                  fill: 'dash',
                  dash: [
                    10,
                    10,
                  ],
                },
              },
            ],
          },
        ],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_produced_records_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} produced',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_consumed_records_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} consumed',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (kafka_bench_probe_target_rate_records_per_second{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}) > 0',
          legendFormat: '{{cluster}} {{probe}} target',
          range: true,
          instant: false,
          refId: 'C',
        },
      ],
    },
    {
      id: 3,
      type: 'timeseries',
      title: 'MB/s: produced vs consumed',
      description: 'Payload bytes per second produced (acknowledged) and consumed.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 1,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'Bps',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_produced_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} produced',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_consumed_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} consumed',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 4,
      type: 'stat',
      title: 'Probe up',
      description: '1 when the probe can produce to and consume from Kafka (kafka_bench_probe_up).',
      gridPos: {
        h: 6,
        w: 6,
        x: 0,
        y: 9,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'none',
          color: {
            mode: 'thresholds',
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'red',
                value: null,
              },
              {
                color: 'green',
                value: 1,
              },
            ],
          },
          mappings: [
            {
              type: 'value',
              options: {
                '0': {
                  text: 'DOWN',
                  color: 'red',
                  index: 1,
                },
                '1': {
                  text: 'UP',
                  color: 'green',
                  index: 0,
                },
              },
            },
          ],
        },
        overrides: [],
      },
      options: {
        reduceOptions: {
          calcs: [
            'lastNotNull',
          ],
          fields: '',
          values: false,
        },
        colorMode: 'background',
        graphMode: 'none',
        justifyMode: 'auto',
        orientation: 'auto',
        textMode: 'value_and_name',
        text: {},
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'min by (cluster, instance, probe) (kafka_bench_probe_up{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}}',
          range: false,
          instant: true,
          refId: 'A',
        },
      ],
    },
    {
      id: 5,
      type: 'table',
      title: 'Probe settings',
      description: "Settings of each probe from kafka_bench_probe_info. A change is marked by the 'Probe started or settings changed' annotation.",
      gridPos: {
        h: 6,
        w: 18,
        x: 6,
        y: 9,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'none',
          custom: {
            align: 'auto',
            cellOptions: {
              type: 'auto',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
        },
        overrides: [],
      },
      options: {
        showHeader: true,
        cellHeight: 'sm',
        footer: {
          show: false,
          reducer: [
            'sum',
          ],
          fields: '',
        },
      },
      transformations: [
        {
          id: 'organize',
          options: {
            excludeByName: {
              Time: true,
              Value: true,
              __name__: true,
            },
            indexByName: {
              job: 0,
              instance: 1,
              probe: 2,
              topic: 3,
              acks: 4,
              compression: 5,
              record_size_bytes: 6,
              batch_size_bytes: 7,
              linger_ms: 8,
              partitions: 9,
              replication_factor: 10,
              group: 11,
            },
            renameByName: {},
          },
        },
      ],
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'kafka_bench_probe_info{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '__auto',
          range: false,
          instant: true,
          refId: 'A',
          format: 'table',
        },
      ],
    },
    {
      type: 'row',
      title: 'Latency',
      collapsed: false,
      id: 6,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 15,
      },
      panels: [],
    },
    {
      id: 7,
      type: 'timeseries',
      title: 'Produce latency p50 / p95 / p99 / p99.9',
      description: 'Time from handing a record to the client until the broker acknowledged it (classic histogram buckets). Quantiles are interpolated within buckets (0.5 ms to 30 s).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 16,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.5, sum by (cluster, instance, probe) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.5, sum by (cluster, instance, le, probe) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p50',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.95, sum by (cluster, instance, probe) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.95, sum by (cluster, instance, le, probe) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p95',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p99',
          range: true,
          instant: false,
          refId: 'C',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.999, sum by (cluster, instance, probe) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.999, sum by (cluster, instance, le, probe) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p99.9',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      id: 8,
      type: 'timeseries',
      title: 'End-to-end latency p50 / p95 / p99 / p99.9',
      description: "Time from producing a record until the probe's consumer received it (classic histogram buckets). Quantiles are interpolated within buckets (0.5 ms to 30 s).",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 16,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.5, sum by (cluster, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.5, sum by (cluster, instance, le, probe) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p50',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.95, sum by (cluster, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.95, sum by (cluster, instance, le, probe) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p95',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p99',
          range: true,
          instant: false,
          refId: 'C',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.999, sum by (cluster, instance, probe) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.999, sum by (cluster, instance, le, probe) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p99.9',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      id: 9,
      type: 'heatmap',
      title: 'Produce latency heatmap: $probe',
      description: 'Records per latency bucket and interval (native histograms where Prometheus ingests them, else the classic buckets); pick one cluster and probe; repeated for each selected probe.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 24,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      repeat: 'probe',
      repeatDirection: 'h',
      maxPerRow: 2,
      fieldConfig: {
        defaults: {
          unit: 's',
          custom: {
            hideFrom: {
              legend: false,
              tooltip: false,
              viz: false,
            },
            scaleDistribution: {
              type: 'linear',
            },
          },
        },
        overrides: [],
      },
      options: {
        calculate: false,
        cellGap: 1,
        color: {
          mode: 'scheme',
          scheme: 'Oranges',
          scale: 'exponential',
          exponent: 0.5,
          steps: 64,
          fill: 'dark-orange',
          reverse: false,
        },
        exemplars: {
          color: 'rgba(255,0,255,0.7)',
        },
        filterValues: {
          le: 1e-09,
        },
        legend: {
          show: true,
        },
        rowsFrame: {
          layout: 'auto',
        },
        tooltip: {
          show: true,
          yHistogram: false,
        },
        yAxis: {
          axisPlacement: 'left',
          reverse: false,
          unit: 's',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance) (increase(kafka_bench_produce_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])) or on (cluster, instance) sum by (cluster, instance, le) (increase(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{le}}',
          range: true,
          instant: false,
          refId: 'A',
          format: 'heatmap',
        },
      ],
    },
    {
      id: 10,
      type: 'heatmap',
      title: 'End-to-end latency heatmap: $probe',
      description: 'Records per latency bucket and interval (native histograms where Prometheus ingests them, else the classic buckets); pick one cluster and probe; repeated for each selected probe.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 24,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      repeat: 'probe',
      repeatDirection: 'h',
      maxPerRow: 2,
      fieldConfig: {
        defaults: {
          unit: 's',
          custom: {
            hideFrom: {
              legend: false,
              tooltip: false,
              viz: false,
            },
            scaleDistribution: {
              type: 'linear',
            },
          },
        },
        overrides: [],
      },
      options: {
        calculate: false,
        cellGap: 1,
        color: {
          mode: 'scheme',
          scheme: 'Oranges',
          scale: 'exponential',
          exponent: 0.5,
          steps: 64,
          fill: 'dark-orange',
          reverse: false,
        },
        exemplars: {
          color: 'rgba(255,0,255,0.7)',
        },
        filterValues: {
          le: 1e-09,
        },
        legend: {
          show: true,
        },
        rowsFrame: {
          layout: 'auto',
        },
        tooltip: {
          show: true,
          yHistogram: false,
        },
        yAxis: {
          axisPlacement: 'left',
          reverse: false,
          unit: 's',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance) (increase(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])) or on (cluster, instance) sum by (cluster, instance, le) (increase(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{le}}',
          range: true,
          instant: false,
          refId: 'A',
          format: 'heatmap',
        },
      ],
    },
    {
      id: 11,
      type: 'timeseries',
      title: 'Send delay p99',
      description: 'How late records were handed to the client compared with the rate schedule (p99). A growing send delay means the load generator cannot keep the target rate (see produce failures with reason behind_schedule).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 32,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe) (rate(kafka_bench_send_delay_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe) (rate(kafka_bench_send_delay_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p99',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 12,
      type: 'timeseries',
      title: 'Commit latency p50 / p99',
      description: "Latency of the consumer's offset commits.",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 32,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.5, sum by (cluster, instance, probe) (rate(kafka_bench_commit_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.5, sum by (cluster, instance, le, probe) (rate(kafka_bench_commit_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p50',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe) (rate(kafka_bench_commit_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe) (rate(kafka_bench_commit_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p99',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 36,
      type: 'timeseries',
      title: 'Produce latency p99 by broker (partition leader)',
      description: 'p99 per partition leader at produce time: one slow broker stands out here.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 40,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, broker) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, broker) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} broker {{broker}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 37,
      type: 'timeseries',
      title: 'End-to-end latency p99 by broker (partition leader)',
      description: 'p99 per partition leader at produce time: one slow broker stands out here.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 40,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, broker) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, broker) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} broker {{broker}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      type: 'row',
      title: 'Latency SLO (needs alerts/recording_rules.yml)',
      collapsed: false,
      id: 13,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 48,
      },
      panels: [],
    },
    {
      id: 14,
      type: 'timeseries',
      title: 'Produce latency SLO: share of slow records vs error budget',
      description: 'Fraction of records slower than the SLO threshold, from the recording rules in alerts/recording_rules.yml (threshold and objective are tuned there). Burn rate = ratio / error budget; the burn-rate alerts fire at 14.4x (1h & 5m), 6x (6h & 30m) and 3x (1d & 2h).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 49,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'percentunit',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: 'error budget.*',
            },
            properties: [
              {
                id: 'custom.lineStyle',
                value: {
                  fill: 'dash',
                  dash: [
                    10,
                    10,
                  ],
                },
              },
            ],
          },
        ],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'probe:kafka_bench_produce_latency_slo_errors:ratio_rate5m{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '{{cluster}} {{probe}} 5m',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'probe:kafka_bench_produce_latency_slo_errors:ratio_rate1h{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '{{cluster}} {{probe}} 1h',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'probe:kafka_bench_produce_latency_slo_errors:ratio_rate1d{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '{{cluster}} {{probe}} 1d',
          range: true,
          instant: false,
          refId: 'C',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: '1 - kafka_bench:produce_latency_slo_objective:ratio',
          legendFormat: '{{cluster}} error budget (1x burn)',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      id: 15,
      type: 'timeseries',
      title: 'End-to-end latency SLO: share of slow records vs error budget',
      description: 'Fraction of records slower than the SLO threshold, from the recording rules in alerts/recording_rules.yml (threshold and objective are tuned there). Burn rate = ratio / error budget; the burn-rate alerts fire at 14.4x (1h & 5m), 6x (6h & 30m) and 3x (1d & 2h).',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 49,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'percentunit',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: 'error budget.*',
            },
            properties: [
              {
                id: 'custom.lineStyle',
                value: {
                  fill: 'dash',
                  dash: [
                    10,
                    10,
                  ],
                },
              },
            ],
          },
        ],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate5m{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '{{cluster}} {{probe}} 5m',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate1h{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '{{cluster}} {{probe}} 1h',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'probe:kafka_bench_end_to_end_latency_slo_errors:ratio_rate1d{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '{{cluster}} {{probe}} 1d',
          range: true,
          instant: false,
          refId: 'C',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: '1 - kafka_bench:end_to_end_latency_slo_objective:ratio',
          legendFormat: '{{cluster}} error budget (1x burn)',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      type: 'row',
      title: 'Errors and delivery correctness',
      collapsed: false,
      id: 16,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 57,
      },
      panels: [],
    },
    {
      id: 17,
      type: 'timeseries',
      title: 'Produce failures by reason',
      description: 'Records that could not be produced, per second, by reason (timeout, retries_exhausted, not_leader, not_enough_replicas, topic_missing, auth, message_too_large, behind_schedule, client_closed, transaction, other).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 58,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:rec/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 20,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'normal',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, reason) (rate(kafka_bench_produce_failed_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{reason}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 18,
      type: 'timeseries',
      title: 'Commit failures',
      description: 'Failed consumer offset commits per second.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 58,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:commits/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_commit_failed_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 19,
      type: 'timeseries',
      title: 'Lost / duplicated / out-of-order / foreign records',
      description: 'Records per interval that were acknowledged but never consumed (lost), consumed more than once (duplicated), consumed out of produce order (out of order), or not produced by this probe (foreign). Anything above 0 is a finding.',
      gridPos: {
        h: 8,
        w: 24,
        x: 0,
        y: 66,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (increase(kafka_bench_records_lost_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} lost',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (increase(kafka_bench_records_duplicated_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} duplicated',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (increase(kafka_bench_records_out_of_order_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} out of order',
          range: true,
          instant: false,
          refId: 'C',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (increase(kafka_bench_records_foreign_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} foreign',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      id: 20,
      type: 'timeseries',
      title: 'Consumer lag (records)',
      description: "Records produced but not yet read. \"position\": from the probe consumer's own position (kafka_bench_consumer_lag_records), 0 when caught up. \"committed\": from the group's committed offsets (kafka_bench_consumer_group_lag_records), what kafka_exporter and Burrow show; it trails by up to auto.commit.interval.ms.",
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 74,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (kafka_bench_consumer_lag_records{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}} position',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (kafka_bench_consumer_group_lag_records{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}} committed',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 21,
      type: 'timeseries',
      title: 'Consumer lag (seconds)',
      description: "Age of the oldest record not yet read. \"position\": from the probe consumer's own position (kafka_bench_consumer_lag_seconds), 0 when caught up. \"committed\": past the group's committed offsets (kafka_bench_consumer_group_lag_seconds); it trails by up to auto.commit.interval.ms.",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 74,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_consumer_lag_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}} position',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_consumer_group_lag_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}} committed',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      type: 'row',
      title: 'Exporter host (load generator)',
      collapsed: false,
      id: 22,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 82,
      },
      panels: [],
    },
    {
      id: 23,
      type: 'timeseries',
      title: 'CPU by mode',
      description: 'CPU time per mode (idle omitted) as a share of all CPUs of the host running kafka_bench_exporter. Above ~90 % busy the exporter measures itself, not Kafka (alert KafkaBenchLoadGeneratorSaturated).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 83,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'percentunit',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 20,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'normal',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, job, instance, mode) (rate(kafka_bench_host_cpu_seconds_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", mode!="idle"}[$__rate_interval])) / on (job, instance) group_left () sum by (cluster, job, instance) (kafka_bench_host_cpus{cluster=~"$cluster", job=~"$job", instance=~"$instance"})',
          legendFormat: '{{cluster}} {{instance}} {{mode}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 24,
      type: 'timeseries',
      title: 'Memory',
      description: 'Memory used (total - available) and available on the exporter host.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 83,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'bytes',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance) (kafka_bench_host_memory_total_bytes{cluster=~"$cluster", job=~"$job", instance=~"$instance"} - kafka_bench_host_memory_available_bytes{cluster=~"$cluster", job=~"$job", instance=~"$instance"})',
          legendFormat: '{{cluster}} {{instance}} used',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance) (kafka_bench_host_memory_available_bytes{cluster=~"$cluster", job=~"$job", instance=~"$instance"})',
          legendFormat: '{{cluster}} {{instance}} available',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 25,
      type: 'timeseries',
      title: 'Disk read / write',
      description: 'Bytes read from and written to each disk per second.',
      gridPos: {
        h: 8,
        w: 8,
        x: 0,
        y: 91,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'Bps',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, device) (rate(kafka_bench_host_disk_read_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{device}} read',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, device) (rate(kafka_bench_host_disk_written_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{device}} write',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 26,
      type: 'timeseries',
      title: 'Disk IOPS',
      description: 'Completed read and write operations per second.',
      gridPos: {
        h: 8,
        w: 8,
        x: 8,
        y: 91,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'iops',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, device) (rate(kafka_bench_host_disk_reads_completed_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{device}} reads',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, device) (rate(kafka_bench_host_disk_writes_completed_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{device}} writes',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 27,
      type: 'timeseries',
      title: 'Disk busy time',
      description: 'Share of time each disk had I/O in progress.',
      gridPos: {
        h: 8,
        w: 8,
        x: 16,
        y: 91,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'percentunit',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, device) (rate(kafka_bench_host_disk_io_time_seconds_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{device}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 28,
      type: 'timeseries',
      title: 'Network in / out',
      description: 'Bytes received and sent per second per interface.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 99,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'Bps',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, interface) (rate(kafka_bench_host_network_receive_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{interface}} in',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, interface) (rate(kafka_bench_host_network_transmit_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{interface}} out',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 29,
      type: 'timeseries',
      title: 'Network packets and errors',
      description: 'Packets and errors per second per interface.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 99,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'pps',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, interface) (rate(kafka_bench_host_network_receive_packets_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{interface}} rx packets',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, interface) (rate(kafka_bench_host_network_transmit_packets_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{interface}} tx packets',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, interface) (rate(kafka_bench_host_network_receive_errors_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{interface}} rx errors',
          range: true,
          instant: false,
          refId: 'C',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, interface) (rate(kafka_bench_host_network_transmit_errors_total{cluster=~"$cluster", job=~"$job", instance=~"$instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} {{interface}} tx errors',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      type: 'row',
      title: 'Kafka client (franz-go kprom)',
      collapsed: false,
      id: 30,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 107,
      },
      panels: [],
    },
    {
      id: 31,
      type: 'timeseries',
      title: 'Buffered produce records',
      description: 'Records buffered in the producer client waiting to be sent (a gauge despite the _total suffix). A full buffer makes the producer wait: the records after it are sent late (send delay), or fail as behind_schedule when far behind.',
      gridPos: {
        h: 8,
        w: 8,
        x: 0,
        y: 108,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, member) (kafka_bench_client_buffered_produce_records{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe", role="producer"})',
          legendFormat: '{{cluster}} {{probe}} {{member}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 32,
      type: 'timeseries',
      title: 'Buffered produce bytes',
      description: 'Bytes buffered in the producer client waiting to be sent.',
      gridPos: {
        h: 8,
        w: 8,
        x: 8,
        y: 108,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'bytes',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, member) (kafka_bench_client_buffered_produce_bytes{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe", role="producer"})',
          legendFormat: '{{cluster}} {{probe}} {{member}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 33,
      type: 'timeseries',
      title: 'Connects and connect errors',
      description: 'Broker connections opened and failed per second by client role.',
      gridPos: {
        h: 8,
        w: 8,
        x: 16,
        y: 108,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:conn/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, role) (rate(kafka_bench_client_connects_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{role}} connects',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, role) (rate(kafka_bench_client_connect_errors_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{role}} errors',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 34,
      type: 'timeseries',
      title: 'Request latency (e2e) p99 by broker',
      description: 'p99 time from writing a request to a broker until its response was read, per broker (node_id; seed_N = seed broker).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 116,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe, role, node_id) (rate(kafka_bench_client_request_duration_e2e_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe, role, node_id) (rate(kafka_bench_client_request_duration_e2e_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} {{role}} broker {{node_id}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 35,
      type: 'timeseries',
      title: 'Client bytes written / read by broker',
      description: 'Bytes on the wire (after compression) per broker, all client roles.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 116,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'Bps',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, node_id) (rate(kafka_bench_client_write_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} broker {{node_id}} write',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, node_id) (rate(kafka_bench_client_read_bytes_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} broker {{node_id}} read',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 38,
      type: 'timeseries',
      title: 'Connect time p99 by broker',
      description: 'p99 time from dialling a broker to a connection ready for requests (TCP, TLS, ApiVersions, SASL), per broker (node_id; seed_N = seed broker), for successful and failed attempts apart: slow logins (Kerberos, OAuth token fetches) and unreachable brokers show here.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 124,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe, role, node_id, outcome) (rate(kafka_bench_client_connect_duration_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe, role, node_id, outcome) (rate(kafka_bench_client_connect_duration_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} {{role}} broker {{node_id}} {{outcome}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      type: 'row',
      title: 'Broker hosts ($host_metrics)',
      collapsed: false,
      id: 1200,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 132,
      },
      panels: [],
    },
    {
      id: 1201,
      type: 'timeseries',
      title: 'Host CPU busy',
      description: "Share of all CPUs busy (not idle, not iowait) on each broker host, as the bench's per-machine CPU % column. A broker near 100 % here while produce latency rises is the bottleneck. Source: the host metrics variable (node_exporter or this exporter as host agent).",
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 133,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'percentunit',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
          max: 1,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: '1 - sum by (cluster, job, instance) (rate(${host_metrics}_cpu_seconds_total{job=~"$host_job", instance=~"$host_instance", mode=~"idle|iowait"}[$__rate_interval])) / sum by (cluster, job, instance) (rate(${host_metrics}_cpu_seconds_total{job=~"$host_job", instance=~"$host_instance"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1202,
      type: 'timeseries',
      title: 'Host memory used',
      description: "1 - MemAvailable / MemTotal on each broker host, as the bench's mem % column.",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 133,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'percentunit',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
          max: 1,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: '1 - sum by (cluster, job, instance) ({__name__=~"${host_metrics}_memory_(MemAvailable|available)_bytes", job=~"$host_job", instance=~"$host_instance"}) / sum by (cluster, job, instance) ({__name__=~"${host_metrics}_memory_(MemTotal|total)_bytes", job=~"$host_job", instance=~"$host_instance"})',
          legendFormat: '{{cluster}} {{instance}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1203,
      type: 'timeseries',
      title: 'Host disk busy (busiest disk)',
      description: "Share of time the busiest whole disk ($host_disks: partitions and device-mapper volumes left out, so no IO counts twice) had I/O in progress, as the bench's disk busy % column.",
      gridPos: {
        h: 8,
        w: 8,
        x: 0,
        y: 141,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'percentunit',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
          max: 1,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, job, instance) (rate(${host_metrics}_disk_io_time_seconds_total{job=~"$host_job", instance=~"$host_instance", device=~"$host_disks"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1204,
      type: 'timeseries',
      title: 'Host disk read / write',
      description: 'Bytes per second read from and written to the whole disks ($host_disks) of each broker host.',
      gridPos: {
        h: 8,
        w: 8,
        x: 8,
        y: 141,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'Bps',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, job, instance) (rate(${host_metrics}_disk_read_bytes_total{job=~"$host_job", instance=~"$host_instance", device=~"$host_disks"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} read',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, job, instance) (rate(${host_metrics}_disk_written_bytes_total{job=~"$host_job", instance=~"$host_instance", device=~"$host_disks"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} write',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 1205,
      type: 'timeseries',
      title: 'Host network in / out',
      description: "Bytes per second received and sent on each broker host's interfaces other than lo (node_exporter labels them device, this exporter interface).",
      gridPos: {
        h: 8,
        w: 8,
        x: 16,
        y: 141,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'Bps',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, job, instance) (rate(${host_metrics}_network_receive_bytes_total{job=~"$host_job", instance=~"$host_instance", device!="lo", interface!="lo"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} in',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, job, instance) (rate(${host_metrics}_network_transmit_bytes_total{job=~"$host_job", instance=~"$host_instance", device!="lo", interface!="lo"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{instance}} out',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      type: 'row',
      title: 'Capacity canary (probes with a capacity block)',
      collapsed: false,
      id: 1300,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 149,
      },
      panels: [],
    },
    {
      id: 1301,
      type: 'timeseries',
      title: 'Capacity at the latency SLO: now vs 1 d and 7 d earlier',
      description: 'Highest step rate of the last successful capacity run whose produce p99 stayed within capacity.latency_slo (kafka_bench_capacity_records_per_second), with the same series 1 day and 7 days earlier. KafkaBenchCapacityRegression fires below 80 % of both.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 150,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:rec/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_capacity_records_per_second{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}}',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_capacity_records_per_second{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"} offset 1d)',
          legendFormat: '{{cluster}} {{probe}} 1 d earlier',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_capacity_records_per_second{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"} offset 7d)',
          legendFormat: '{{cluster}} {{probe}} 7 d earlier',
          range: true,
          instant: false,
          refId: 'C',
        },
      ],
    },
    {
      id: 1302,
      type: 'timeseries',
      title: 'Produce p99 at capacity',
      description: 'Produce latency p99 of the capacity step of the last successful capacity run (kafka_bench_capacity_p99_seconds); at most capacity.latency_slo.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 150,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_capacity_p99_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1303,
      type: 'stat',
      title: 'Capacity limited by',
      description: 'Why the last capacity run stopped (kafka_bench_capacity_limit): latency (p99 above the SLO), rate (below 95 % of the step target), errors (produce errors), ceiling (max_rate / max_bytes_per_second reached).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 158,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'none',
          color: {
            mode: 'thresholds',
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'blue',
                value: null,
              },
            ],
          },
          mappings: [],
        },
        overrides: [],
      },
      options: {
        reduceOptions: {
          calcs: [
            'lastNotNull',
          ],
          fields: '',
          values: false,
        },
        colorMode: 'value',
        graphMode: 'none',
        justifyMode: 'auto',
        orientation: 'auto',
        textMode: 'name',
        text: {},
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe, reason) (kafka_bench_capacity_limit{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"} == 1)',
          legendFormat: '{{cluster}} {{probe}}: {{reason}}',
          range: false,
          instant: true,
          refId: 'A',
        },
      ],
    },
    {
      id: 1304,
      type: 'timeseries',
      title: 'Capacity runs by result (per hour)',
      description: 'Capacity runs in the last hour by result (kafka_bench_capacity_runs_total): ok, aborted (reload or shutdown), error (could not ramp). KafkaBenchCapacityRunFailing fires after 3 intervals without an ok run.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 158,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, result) (increase(kafka_bench_capacity_runs_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[1h]))',
          legendFormat: '{{cluster}} {{probe}} {{result}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      type: 'row',
      title: 'Replication (probes with a replica block)',
      collapsed: false,
      id: 1400,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 166,
      },
      panels: [],
    },
    {
      id: 1401,
      type: 'timeseries',
      title: 'Replication latency p50 / p99 / p99.9 by link',
      description: "Time from a probe record's intended send time on the source cluster to its read from the replica cluster (kafka_bench_replication_latency_seconds): what the replicator adds to end-to-end latency, by link (source_alias->target_alias). A stopped replicator shows as a gap, then as a spike when it resumes; see the lag panel for the time in between.",
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 167,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.5, sum by (cluster, instance, probe, link) (rate(kafka_bench_replication_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.5, sum by (cluster, instance, le, probe, link) (rate(kafka_bench_replication_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} {{link}} p50',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe, link) (rate(kafka_bench_replication_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe, link) (rate(kafka_bench_replication_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} {{link}} p99',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.999, sum by (cluster, instance, probe, link) (rate(kafka_bench_replication_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.999, sum by (cluster, instance, le, probe, link) (rate(kafka_bench_replication_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} {{link}} p99.9',
          range: true,
          instant: false,
          refId: 'C',
        },
      ],
    },
    {
      id: 1402,
      type: 'timeseries',
      title: 'Replication lag (seconds)',
      description: 'Time since the source cluster acknowledged the oldest probe record not yet read from the replica cluster (kafka_bench_replication_lag_seconds); 0 when caught up. It keeps rising while the replicator is stopped. KafkaBenchReplicationLatencyHigh fires above 10 s for 5 minutes.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 167,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe, link) (kafka_bench_replication_lag_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}} {{link}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1403,
      type: 'timeseries',
      title: 'Replication lag (records)',
      description: 'Probe records acknowledged by the source cluster and not yet read from the replica cluster (kafka_bench_replication_lag_records).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 175,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, link) (kafka_bench_replication_lag_records{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}} {{link}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1404,
      type: 'timeseries',
      title: 'Lost / duplicated / out-of-order records across the link',
      description: 'Records per interval acknowledged by the source but not read from the replica within replica.loss_grace_period (lost), read more than once from the replica (duplicated: MirrorMaker 2 delivers at least once, so a restart re-sends; counted, not alerted), or read after a later record of their partition (out of order). Lost alerts: KafkaBenchReplicationLost.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 175,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, link) (increase(kafka_bench_replication_records_lost_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{link}} lost',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, link) (increase(kafka_bench_replication_records_duplicated_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{link}} duplicated',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, link) (increase(kafka_bench_replication_records_out_of_order_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{link}} out of order',
          range: true,
          instant: false,
          refId: 'C',
        },
      ],
    },
    {
      type: 'row',
      title: 'Rebalances',
      collapsed: false,
      id: 1500,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 183,
      },
      panels: [],
    },
    {
      id: 1501,
      type: 'timeseries',
      title: 'Rebalances/s by protocol and cause',
      description: "Rebalances of the probe's consumer group as its members saw them, per second (kafka_bench_consumer_rebalances_total), by the group protocol in use (classic or consumer) and the cause a member can observe: joined, lost, churn, partitions_added, reassigned.",
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 184,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:rebalances/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, protocol, cause) (rate(kafka_bench_consumer_rebalances_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{protocol}} {{cause}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1502,
      type: 'timeseries',
      title: 'Rebalance duration p99 by protocol',
      description: "p99 of the time from a member's first revoke or lost callback (or assign callback, for a member only given partitions) to its first records after the rebalance (kafka_bench_consumer_rebalance_duration_seconds), by group protocol. KafkaBenchRebalanceSlow fires above the mixin's rebalanceSlowThresholdSeconds (30 s) for 15 minutes.",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 184,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe, protocol) (rate(kafka_bench_consumer_rebalance_duration_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe, protocol) (rate(kafka_bench_consumer_rebalance_duration_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} {{protocol}} p99',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1503,
      type: 'timeseries',
      title: 'End-to-end latency p99 of records sent during a rebalance',
      description: 'p99 end-to-end latency of the probe records whose intended send time fell within a rebalance of the group (kafka_bench_consumer_rebalance_end_to_end_latency_seconds): the pause a user of the group sees.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 192,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe) (rate(kafka_bench_consumer_rebalance_end_to_end_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe) (rate(kafka_bench_consumer_rebalance_end_to_end_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} p99',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1504,
      type: 'timeseries',
      title: 'Partitions assigned / revoked / lost per second',
      description: "Partitions assigned to (OnPartitionsAssigned), revoked from (OnPartitionsRevoked) and lost by (OnPartitionsLost: session timed out, fenced) the probe's consumers per second.",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 192,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:partitions/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_consumer_partitions_assigned_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} assigned',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_consumer_partitions_revoked_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} revoked',
          range: true,
          instant: false,
          refId: 'B',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe) (rate(kafka_bench_consumer_partitions_lost_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} lost',
          range: true,
          instant: false,
          refId: 'C',
        },
      ],
    },
    {
      id: 1505,
      type: 'table',
      title: 'Group protocol: configured vs in use',
      description: "The group protocol of each probe's consumer group from kafka_bench_consumer_group_protocol_info: configured (consumer.group.protocol) and the one the coordinator runs (protocol). configured consumer with protocol classic is a fallback; KafkaBenchGroupProtocolFallback fires after 10 minutes of it.",
      gridPos: {
        h: 6,
        w: 24,
        x: 0,
        y: 200,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'none',
          custom: {
            align: 'auto',
            cellOptions: {
              type: 'auto',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
        },
        overrides: [],
      },
      options: {
        showHeader: true,
        cellHeight: 'sm',
        footer: {
          show: false,
          reducer: [
            'sum',
          ],
          fields: '',
        },
      },
      transformations: [
        {
          id: 'organize',
          options: {
            excludeByName: {
              Time: true,
              Value: true,
              __name__: true,
            },
            indexByName: {
              job: 0,
              instance: 1,
              probe: 2,
              group: 3,
              configured: 4,
              protocol: 5,
            },
            renameByName: {},
          },
        },
      ],
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'kafka_bench_consumer_group_protocol_info{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}',
          legendFormat: '__auto',
          range: false,
          instant: true,
          refId: 'A',
          format: 'table',
        },
      ],
    },
    {
      type: 'row',
      title: 'Share groups (consumer.kind: share)',
      collapsed: false,
      id: 1600,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 206,
      },
      panels: [],
    },
    {
      id: 1601,
      type: 'timeseries',
      title: 'Share delivery and acknowledgement latency p99',
      description: "p99 of the time from a probe record's intended send time to its first delivery to a member of the probe's share group (kafka_bench_share_delivery_latency_seconds), and of the time from sending a poll's acknowledgements until the broker confirmed them (kafka_bench_share_ack_latency_seconds).",
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 207,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe) (rate(kafka_bench_share_delivery_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe) (rate(kafka_bench_share_delivery_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} delivery p99',
          range: true,
          instant: false,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance, probe) (rate(kafka_bench_share_ack_latency_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe) (rate(kafka_bench_share_ack_latency_seconds_bucket{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval])))',
          legendFormat: '{{cluster}} {{probe}} ack p99',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 1602,
      type: 'timeseries',
      title: 'Share redeliveries/s by cause',
      description: 'Probe records delivered again before an accept of them was confirmed, per second (kafka_bench_share_redeliveries_total), by cause: released (the probe released it) or lock_expired (its acquisition lock expired or its member went away). KafkaBenchShareRedeliveryHigh fires when lock_expired redeliveries exceed 1 % of deliveries for 10 minutes.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 207,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:rec/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, cause) (rate(kafka_bench_share_redeliveries_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{cause}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1603,
      type: 'timeseries',
      title: 'Share records archived by reason',
      description: 'Probe records the broker archived without accepting them per interval (kafka_bench_share_records_archived_total), by reason: rejected (by the probe) or delivery_limit (at the delivery attempt limit). KafkaBenchShareRecordsArchived fires on any delivery_limit archive.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 215,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, reason) (increase(kafka_bench_share_records_archived_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{reason}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1604,
      type: 'timeseries',
      title: 'Share acknowledgements failed/s by outcome',
      description: 'Acknowledgements of probe records the broker did not confirm (a lock already expired, a session ended) per second (kafka_bench_share_ack_failed_total), by outcome: accept, release, reject.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 215,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'count:acks/s',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance, probe, outcome) (rate(kafka_bench_share_ack_failed_total{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"}[$__rate_interval]))',
          legendFormat: '{{cluster}} {{probe}} {{outcome}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1605,
      type: 'timeseries',
      title: 'Share group lag (records)',
      description: "Records of the probe topic not yet acknowledged by the probe's share group (kafka_bench_share_group_lag_records: the broker's share-partition lag, summed over partitions).",
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 223,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_share_group_lag_records{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      id: 1606,
      type: 'timeseries',
      title: 'Share group members',
      description: "Members of the probe's share group as the group coordinator describes it (kafka_bench_share_group_members).",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 223,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 'short',
          color: {
            mode: 'palette-classic',
          },
          custom: {
            drawStyle: 'line',
            lineInterpolation: 'linear',
            lineWidth: 1,
            fillOpacity: 10,
            gradientMode: 'none',
            showPoints: 'never',
            spanNulls: false,
            axisPlacement: 'auto',
            stacking: {
              mode: 'none',
              group: 'A',
            },
          },
          thresholds: {
            mode: 'absolute',
            steps: [
              {
                color: 'green',
                value: null,
              },
            ],
          },
          min: 0,
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: [
            'mean',
            'max',
            'lastNotNull',
          ],
        },
        tooltip: {
          mode: 'multi',
          sort: 'desc',
        },
      },
      targets: [
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'max by (cluster, instance, probe) (kafka_bench_share_group_members{cluster=~"$cluster", job=~"$job", instance=~"$instance", probe=~"$probe"})',
          legendFormat: '{{cluster}} {{probe}}',
          range: true,
          instant: false,
          refId: 'A',
        },
      ],
    },
    {
      type: 'row',
      title: 'Transactions (producer.transactional.id)',
      collapsed: false,
      id: 1700,
      gridPos: { h: 1, w: 24, x: 0, y: 231 },
      panels: [],
    },
    timeseries(1701, 'Transactions/s by outcome', "Transactions of the probe's producer per second (kafka_bench_transactions_total), by outcome: committed, aborted (on purpose, transaction.abort.ratio) or failed (the end was refused or its outcome is unknown). KafkaBenchTransactionsFailing fires when over 5 % fail for 10 minutes.", 'ops', 0, 232, [
      ['sum by (cluster, instance, probe, outcome) (rate(kafka_bench_transactions_total' + sel + '[$__rate_interval]))', '{{cluster}} {{probe}} {{outcome}}'],
    ]),
    timeseries(1702, 'Transaction end latency p99 by end', 'p99 of the time to end a transaction (EndTxn, after its records were acknowledged: kafka_bench_transaction_end_latency_seconds), by end: commit or abort.', 's', 12, 232, [
      ['histogram_quantile(0.99, sum by (cluster, instance, probe, end) (rate(kafka_bench_transaction_end_latency_seconds' + sel + '[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le, probe, end) (rate(kafka_bench_transaction_end_latency_seconds_bucket' + sel + '[$__rate_interval])))', '{{cluster}} {{probe}} {{end}} p99'],
    ]),
    timeseries(1703, 'Aborted records read by read_committed (must be 0)', 'Records of aborted transactions that a read_committed probe consumer read per interval (kafka_bench_transaction_aborted_records_read_total): must stay 0. KafkaBenchAbortedRecordsRead fires on any.', 'short', 0, 240, [
      ['sum by (cluster, instance, probe) (increase(kafka_bench_transaction_aborted_records_read_total' + sel + '[$__rate_interval]))', '{{cluster}} {{probe}}'],
    ]),
    timeseries(1704, 'Records in aborted transactions/s', 'Probe records written in transactions that were aborted, per second (kafka_bench_transaction_aborted_records_total): a read_committed consumer expects none of them, and none counts as lost.', 'count:rec/s', 12, 240, [
      ['sum by (cluster, instance, probe) (rate(kafka_bench_transaction_aborted_records_total' + sel + '[$__rate_interval]))', '{{cluster}} {{probe}}'],
    ]),
    timeseries(1705, 'Consumer lag: to the end and to the last stable offset', "A read_committed probe consumer's lag to the end offsets (kafka_bench_consumer_lag_records) beside its lag to the last stable offsets (kafka_bench_consumer_lag_stable_records): the gap is the records open transactions hold back, which the consumer cannot read until they end.", 'short', 0, 248, [
      ['sum by (cluster, instance, probe) (kafka_bench_consumer_lag_records' + sel + ' and on (cluster, instance, probe) kafka_bench_consumer_lag_stable_records' + sel + ')', '{{cluster}} {{probe}} to the end'],
      ['sum by (cluster, instance, probe) (kafka_bench_consumer_lag_stable_records' + sel + ')', '{{cluster}} {{probe}} to the last stable offset'],
    ]),
    {
      type: 'row',
      title: 'Fetching (consumer.client.rack)',
      collapsed: false,
      id: 1800,
      gridPos: { h: 1, w: 24, x: 0, y: 256 },
      panels: [],
    },
    timeseries(1801, 'Records fetched/s by leader and serving broker', "Records the probe's consumer fetched per second (kafka_bench_consumer_fetched_records_total), by the partition's leader (broker) and the broker that served the fetch (fetch_broker). With consumer.client.rack and the brokers' RackAwareReplicaSelector (KIP-392) a follower in the consumer's rack serves it: fetch_broker differs from broker.", 'count:rec/s', 0, 257, [
      ['sum by (cluster, instance, probe, broker, fetch_broker) (rate(kafka_bench_consumer_fetched_records_total' + sel + '[$__rate_interval]))', '{{cluster}} {{probe}} leader {{broker}} from {{fetch_broker}}'],
    ]),
  ],
}
