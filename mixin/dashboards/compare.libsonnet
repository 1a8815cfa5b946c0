{
  uid: 'kafka-bench-compare',
  title: 'Kafka Bench / Compare',
  description: 'Compare two kafka_bench_exporter probes side by side (A vs B), and probe A now against itself an offset earlier (before/after a broker config change).',
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
        expr: 'kafka_bench_probe_info{cluster=~"$cluster_a|$cluster_b", job=~"$job", instance=~"$instance", probe=~"$probe_a|$probe_b"} unless kafka_bench_probe_info{cluster=~"$cluster_a|$cluster_b", job=~"$job", instance=~"$instance", probe=~"$probe_a|$probe_b"} offset 2m',
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
        expr: 'increase(kafka_bench_broker_config_changes_total{cluster=~"$cluster_a|$cluster_b", job=~"$job", instance=~"$instance"}[2m]) > 0',
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
        expr: 'increase(kafka_bench_topic_config_changes_total{cluster=~"$cluster_a|$cluster_b", job=~"$job", instance=~"$instance", probe=~"$probe_a|$probe_b"}[2m]) > 0',
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
        expr: 'increase(kafka_bench_broker_restarts_total{cluster=~"$cluster_a|$cluster_b", job=~"$job", instance=~"$instance"}[2m]) > 0',
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
        expr: 'increase(kafka_bench_broker_version_changes_total{cluster=~"$cluster_a|$cluster_b", job=~"$job", instance=~"$instance"}[2m]) > 0',
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
        name: 'job',
        label: 'Job',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(kafka_bench_probe_info, job)',
        query: {
          query: 'label_values(kafka_bench_probe_info, job)',
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
        definition: 'label_values(kafka_bench_probe_info{job=~"$job"}, instance)',
        query: {
          query: 'label_values(kafka_bench_probe_info{job=~"$job"}, instance)',
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
        name: 'cluster_a',
        label: 'Cluster A',
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
        multi: false,
        includeAll: false,
        options: [],
        current: {},
      },
      {
        name: 'probe_a',
        label: 'Probe A',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(kafka_bench_probe_info{cluster=~"$cluster_a", job=~"$job", instance=~"$instance"}, probe)',
        query: {
          query: 'label_values(kafka_bench_probe_info{cluster=~"$cluster_a", job=~"$job", instance=~"$instance"}, probe)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: false,
        includeAll: false,
        options: [],
        current: {},
      },
      {
        name: 'cluster_b',
        label: 'Cluster B',
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
        multi: false,
        includeAll: false,
        options: [],
        current: {},
      },
      {
        name: 'probe_b',
        label: 'Probe B',
        type: 'query',
        datasource: {
          type: 'prometheus',
          uid: '${datasource}',
        },
        definition: 'label_values(kafka_bench_probe_info{cluster=~"$cluster_b", job=~"$job", instance=~"$instance"}, probe)',
        query: {
          query: 'label_values(kafka_bench_probe_info{cluster=~"$cluster_b", job=~"$job", instance=~"$instance"}, probe)',
          refId: 'PrometheusVariableQueryEditor-VariableQuery',
        },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        multi: false,
        includeAll: false,
        options: [],
        current: {},
      },
      {
        name: 'compare_offset',
        label: 'Compare offset',
        type: 'custom',
        query: '1h,1d,7d',
        current: {
          selected: true,
          text: '1d',
          value: '1d',
        },
        hide: 0,
        multi: false,
        includeAll: false,
        options: [
          {
            selected: false,
            text: '1h',
            value: '1h',
          },
          {
            selected: true,
            text: '1d',
            value: '1d',
          },
          {
            selected: false,
            text: '7d',
            value: '7d',
          },
        ],
      },
    ],
  },
  panels: [
    {
      type: 'row',
      title: 'Summary over the selected time range',
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
      type: 'stat',
      title: 'Produced records/s (range average)',
      description: 'Average produce rate of each probe over the whole selected time range.',
      gridPos: {
        h: 5,
        w: 8,
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_records_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__range]))',
          legendFormat: '{{cluster}} A: $probe_a',
          range: false,
          instant: true,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_records_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__range]))',
          legendFormat: '{{cluster}} B: $probe_b',
          range: false,
          instant: true,
          refId: 'B',
        },
      ],
    },
    {
      id: 3,
      type: 'stat',
      title: 'Produce latency p99 (whole range)',
      description: 'p99 produce latency of all records produced in the selected time range.',
      gridPos: {
        h: 5,
        w: 8,
        x: 8,
        y: 1,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (increase(kafka_bench_produce_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__range]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (increase(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__range])))',
          legendFormat: '{{cluster}} A: $probe_a',
          range: false,
          instant: true,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (increase(kafka_bench_produce_latency_seconds{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__range]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (increase(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__range])))',
          legendFormat: '{{cluster}} B: $probe_b',
          range: false,
          instant: true,
          refId: 'B',
        },
      ],
    },
    {
      id: 4,
      type: 'stat',
      title: 'End-to-end latency p99 (whole range)',
      description: 'p99 end-to-end latency of all records consumed in the selected time range.',
      gridPos: {
        h: 5,
        w: 8,
        x: 16,
        y: 1,
      },
      datasource: {
        type: 'prometheus',
        uid: '${datasource}',
      },
      fieldConfig: {
        defaults: {
          unit: 's',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (increase(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__range]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (increase(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__range])))',
          legendFormat: '{{cluster}} A: $probe_a',
          range: false,
          instant: true,
          refId: 'A',
        },
        {
          datasource: {
            type: 'prometheus',
            uid: '${datasource}',
          },
          editorMode: 'code',
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (increase(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__range]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (increase(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__range])))',
          legendFormat: '{{cluster}} B: $probe_b',
          range: false,
          instant: true,
          refId: 'B',
        },
      ],
    },
    {
      id: 5,
      type: 'table',
      title: 'Settings of probe A and B',
      description: 'kafka_bench_probe_info of both probes, to see what differs.',
      gridPos: {
        h: 5,
        w: 24,
        x: 0,
        y: 6,
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
          expr: 'kafka_bench_probe_info{cluster=~"$cluster_a|$cluster_b", job=~"$job", instance=~"$instance", probe=~"$probe_a|$probe_b"}',
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
      title: 'Probe A ($probe_a) vs probe B ($probe_b)',
      collapsed: false,
      id: 6,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 11,
      },
      panels: [],
    },
    {
      id: 7,
      type: 'timeseries',
      title: 'Records/s produced and consumed',
      description: 'Records acknowledged (produced) and read back (consumed) per second.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 12,
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
              options: '.*consumed',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_records_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} A: $probe_a produced',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_records_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))',
          legendFormat: '{{cluster}} B: $probe_b produced',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_consumed_records_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} A: $probe_a consumed',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_consumed_records_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))',
          legendFormat: '{{cluster}} B: $probe_b consumed',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      id: 8,
      type: 'timeseries',
      title: 'MB/s produced and consumed',
      description: 'Payload bytes per second.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 12,
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
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: '.*consumed',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_bytes_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} A: $probe_a produced',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_bytes_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))',
          legendFormat: '{{cluster}} B: $probe_b produced',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_consumed_bytes_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} A: $probe_a consumed',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_consumed_bytes_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))',
          legendFormat: '{{cluster}} B: $probe_b consumed',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      id: 9,
      type: 'timeseries',
      title: 'Produce latency p99',
      description: 'p99 time until the broker acknowledged a record.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 20,
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval])))',
          legendFormat: '{{cluster}} A: $probe_a p99',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval])))',
          legendFormat: '{{cluster}} B: $probe_b p99',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 10,
      type: 'timeseries',
      title: 'End-to-end latency p99',
      description: "p99 time from produce until the probe's consumer received the record.",
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 20,
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval])))',
          legendFormat: '{{cluster}} A: $probe_a p99',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval])))',
          legendFormat: '{{cluster}} B: $probe_b p99',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 11,
      type: 'timeseries',
      title: 'Lost / duplicated records',
      description: 'Records per interval acknowledged but never consumed (lost) or consumed more than once (duplicated).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 28,
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_lost_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} A: $probe_a lost',
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_lost_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))',
          legendFormat: '{{cluster}} B: $probe_b lost',
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_duplicated_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} A: $probe_a duplicated',
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_duplicated_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))',
          legendFormat: '{{cluster}} B: $probe_b duplicated',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
    {
      id: 12,
      type: 'timeseries',
      title: 'Produce failures',
      description: 'Records per second that could not be produced (all reasons).',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 28,
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produce_failed_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} A: $probe_a',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produce_failed_total{cluster=~"$cluster_b", job=~"$job", instance=~"$instance", probe="$probe_b"}[$__rate_interval]))',
          legendFormat: '{{cluster}} B: $probe_b',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      type: 'row',
      title: 'Before / after: probe A ($probe_a) now vs $compare_offset earlier',
      collapsed: false,
      id: 13,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 36,
      },
      panels: [],
    },
    {
      id: 14,
      type: 'timeseries',
      title: 'Records/s produced: now vs $compare_offset earlier',
      description: 'Produce rate of probe A, overlaid with the same probe shifted by the compare offset (e.g. before a broker config change).',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 37,
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
              options: '.*earlier',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_records_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} $probe_a now',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_records_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset))',
          legendFormat: '{{cluster}} $probe_a $compare_offset earlier',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 15,
      type: 'timeseries',
      title: 'MB/s produced: now vs $compare_offset earlier',
      description: 'Produced payload bytes per second of probe A, now and shifted by the compare offset.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 37,
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
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: '.*earlier',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_bytes_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} $probe_a now',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produced_bytes_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset))',
          legendFormat: '{{cluster}} $probe_a $compare_offset earlier',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 16,
      type: 'timeseries',
      title: 'Produce latency p99: now vs $compare_offset earlier',
      description: 'p99 produce latency of probe A, now and shifted by the compare offset.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 45,
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
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: '.*earlier',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval])))',
          legendFormat: '{{cluster}} $probe_a now',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_produce_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_produce_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset)))',
          legendFormat: '{{cluster}} $probe_a $compare_offset earlier',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 17,
      type: 'timeseries',
      title: 'End-to-end latency p99: now vs $compare_offset earlier',
      description: 'p99 end-to-end latency of probe A, now and shifted by the compare offset.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 45,
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
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: '.*earlier',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval])))',
          legendFormat: '{{cluster}} $probe_a now',
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
          expr: 'histogram_quantile(0.99, sum by (cluster, instance) (rate(kafka_bench_end_to_end_latency_seconds{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset))) or histogram_quantile(0.99, sum by (cluster, instance, le) (rate(kafka_bench_end_to_end_latency_seconds_bucket{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset)))',
          legendFormat: '{{cluster}} $probe_a $compare_offset earlier',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 18,
      type: 'timeseries',
      title: 'Produce failures: now vs $compare_offset earlier',
      description: 'Failed records per second of probe A, now and shifted by the compare offset.',
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 53,
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
              options: '.*earlier',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produce_failed_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} $probe_a now',
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
          expr: 'sum by (cluster, instance) (rate(kafka_bench_produce_failed_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset))',
          legendFormat: '{{cluster}} $probe_a $compare_offset earlier',
          range: true,
          instant: false,
          refId: 'B',
        },
      ],
    },
    {
      id: 19,
      type: 'timeseries',
      title: 'Lost / duplicated records: now vs $compare_offset earlier',
      description: 'Lost and duplicated records per interval of probe A, now and shifted by the compare offset.',
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 53,
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
        overrides: [
          {
            matcher: {
              id: 'byRegexp',
              options: '.*earlier',
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_lost_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} $probe_a lost now',
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_lost_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset))',
          legendFormat: '{{cluster}} $probe_a lost $compare_offset earlier',
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_duplicated_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval]))',
          legendFormat: '{{cluster}} $probe_a duplicated now',
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
          expr: 'sum by (cluster, instance) (increase(kafka_bench_records_duplicated_total{cluster=~"$cluster_a", job=~"$job", instance=~"$instance", probe="$probe_a"}[$__rate_interval] offset $compare_offset))',
          legendFormat: '{{cluster}} $probe_a duplicated $compare_offset earlier',
          range: true,
          instant: false,
          refId: 'D',
        },
      ],
    },
  ],
}
