// The bench report: a table in the seeds' shape, sweep charts, latency
// spectra and host charts, all drawn from the JSON result in #report-data.
// It renders whatever the result holds: fields it does not know become
// extra columns, and lists of objects (per-machine rows, rounds) tables.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const results = data.results || [];
  const keys = data.param_keys || [];
  const root = document.getElementById('report');
  const el = KB.el;
  const num = KB.num;

  function get(o, path) {
    return path.reduce(function (a, k) { return a === undefined || a === null ? undefined : a[k]; }, o);
  }
  function param(r, k) { return r.params ? r.params[k] : undefined; }
  function fixed(d) { return function (v) { return typeof v === 'number' ? v.toFixed(d) : String(v); }; }
  function section(title) {
    const s = el('section');
    s.appendChild(el('h2', title));
    root.appendChild(s);
    return s;
  }

  // The Markdown table's columns (bench/report.go tableColumns).
  const columns = keys.map(function (k) { return { label: k, path: ['params', k] }; }).concat([
    { label: 'records', path: ['produce', 'records'], fmt: fixed(0) },
    { label: 'consumed', path: ['consume', 'records'], fmt: fixed(0) },
    { label: 'TPS (records/s)', path: ['produce', 'records_per_sec'], fmt: fixed(0) },
    { label: 'MB/s', path: ['produce', 'mb_per_sec'], fmt: fixed(2) },
    { label: 'avg (ms)', path: ['produce', 'latency_ms', 'avg'], fmt: fixed(3) },
    { label: 'max (ms)', path: ['produce', 'latency_ms', 'max'], fmt: fixed(3) },
    { label: 'p50 (ms)', path: ['produce', 'latency_ms', 'p50'], fmt: fixed(3) },
    { label: 'p95 (ms)', path: ['produce', 'latency_ms', 'p95'], fmt: fixed(3) },
    { label: 'p99 (ms)', path: ['produce', 'latency_ms', 'p99'], fmt: fixed(3) },
    { label: 'p99.9 (ms)', path: ['produce', 'latency_ms', 'p99_9'], fmt: fixed(3) },
    { label: 'e2e p50 (ms)', path: ['consume', 'end_to_end_ms', 'p50'], fmt: fixed(3) },
    { label: 'e2e p99 (ms)', path: ['consume', 'end_to_end_ms', 'p99'], fmt: fixed(3) },
    { label: 'e2e p99.9 (ms)', path: ['consume', 'end_to_end_ms', 'p99_9'], fmt: fixed(3) },
    { label: 'consumer TPS (records/s)', path: ['consume', 'records_per_sec'], fmt: fixed(0) },
    { label: 'consumer MB/s', path: ['consume', 'mb_per_sec'], fmt: fixed(2) },
    { label: 'CPU %', path: ['host', 'cpu_percent'], fmt: fixed(1) },
    { label: 'mem %', path: ['host', 'memory_percent'], fmt: fixed(1) },
    { label: 'net in (MB/s)', path: ['host', 'net_in_mb_per_sec'], fmt: fixed(2) },
    { label: 'net out (MB/s)', path: ['host', 'net_out_mb_per_sec'], fmt: fixed(2) },
    { label: 'status', path: ['status'] },
  ]);
  // Fields the table leaves out on purpose (the JSON file has them).
  const omitted = ['scenario', 'topic', 'error', 'params', 'produce.bytes', 'produce.failed', 'produce.seconds',
    'produce.start', 'produce.end', 'produce.latency_ms.percentiles', 'produce.latency_ms.histogram',
    'produce.latency_ms.sum_ns', 'consume.start', 'consume.end', 'consume.bytes', 'consume.seconds',
    'consume.rebalance_ms', 'consume.end_to_end_ms'];
  const shown = {};
  columns.forEach(function (c) { shown[c.path.join('.')] = true; });
  function known(path) {
    const p = path.join('.');
    return shown[p] || omitted.some(function (o) { return p === o || p.indexOf(o + '.') === 0; });
  }

  // Unknown scalars (and lists of scalars) become extra columns; lists of
  // objects become tables of their own.
  const extra = [];
  const lists = [];
  function walk(o, path) {
    Object.keys(o).forEach(function (k) {
      const v = o[k];
      const p = path.concat([k]);
      if (known(p)) return;
      const name = p.join('.');
      if (Array.isArray(v)) {
        if (v.some(function (x) { return x !== null && typeof x === 'object'; })) {
          if (lists.indexOf(name) < 0) lists.push(name);
        } else if (!extra.some(function (c) { return c.label === name; })) {
          extra.push({ label: name, path: p, fmt: function (a) { return a.join(', '); } });
        }
      } else if (v !== null && typeof v === 'object') {
        walk(v, p);
      } else if (!extra.some(function (c) { return c.label === name; })) {
        extra.push({ label: name, path: p });
      }
    });
  }
  results.forEach(function (r) { walk(r, []); });

  function table(cols, rows, rowClass) {
    const t = el('table', null, 'results');
    const head = el('tr');
    cols.forEach(function (c) { head.appendChild(el('th', c.label)); });
    t.appendChild(head);
    rows.forEach(function (r, i) {
      const tr = el('tr', null, rowClass ? rowClass(r, i) : '');
      cols.forEach(function (c) {
        const v = c.value ? c.value(r, i) : get(r, c.path);
        const text = v === undefined || v === null || v === '' ? '-' : (c.fmt ? c.fmt(v) : String(v));
        tr.appendChild(el('td', text, typeof v === 'number' ? 'n' : ''));
      });
      t.appendChild(tr);
    });
    const wrap = el('div', null, 'scroll');
    wrap.appendChild(t);
    return wrap;
  }

  function resultsTable() {
    const s = section('Results');
    const cols = [{ label: '#', value: function (r, i) { return i + 1; } }].concat(columns, extra);
    s.appendChild(table(cols, results, function (r) { return r.status === 'failed' ? 'failed' : ''; }));
    results.forEach(function (r, i) {
      if (r.status === 'failed') s.appendChild(el('p', 'FAILED #' + (i + 1) + ' ' + r.scenario + ': ' + (r.error || ''), 'failed'));
    });
    lists.forEach(function (name) {
      const path = name.split('.');
      const rows = [];
      const fields = [];
      results.forEach(function (r, i) {
        (get(r, path) || []).forEach(function (x) {
          if (x === null || typeof x !== 'object') return;
          Object.keys(x).forEach(function (f) { if (fields.indexOf(f) < 0) fields.push(f); });
          rows.push({ n: i + 1, scenario: r.scenario, item: x });
        });
      });
      s.appendChild(el('h3', name));
      const cols = [{ label: '#', path: ['n'] }, { label: 'scenario', path: ['scenario'] }].concat(fields.map(function (f) {
        return { label: f, value: function (row) { const v = row.item[f]; return v !== null && typeof v === 'object' ? JSON.stringify(v) : v; } };
      }));
      s.appendChild(table(cols, rows));
    });
  }

  function sortValues(vals) {
    const numeric = vals.every(function (v) { return v !== '' && isFinite(Number(v)); });
    vals.sort(numeric ? function (a, b) { return Number(a) - Number(b); } : function (a, b) { return a < b ? -1 : a > b ? 1 : 0; });
  }

  const sweepMetrics = [
    { title: 'produce throughput (records/s)', lines: [{ name: '', path: ['produce', 'records_per_sec'] }] },
    { title: 'produce throughput (MB/s)', lines: [{ name: '', path: ['produce', 'mb_per_sec'] }] },
    { title: 'produce latency (ms)', lines: [
      { name: 'p50', path: ['produce', 'latency_ms', 'p50'], dash: [] },
      { name: 'p99', path: ['produce', 'latency_ms', 'p99'], dash: [8, 4] },
      { name: 'p99.9', path: ['produce', 'latency_ms', 'p99_9'], dash: [2, 3] }] },
    { title: 'end-to-end latency (ms)', lines: [
      { name: 'p50', path: ['consume', 'end_to_end_ms', 'p50'], dash: [] },
      { name: 'p99', path: ['consume', 'end_to_end_ms', 'p99'], dash: [8, 4] },
      { name: 'p99.9', path: ['consume', 'end_to_end_ms', 'p99_9'], dash: [2, 3] }] },
  ];

  // Failed scenarios stay in the table; their partial numbers would
  // mislead in a chart.
  const passed = results.filter(function (r) { return r.status !== 'failed'; });

  // One row of charts per swept parameter: the metric against the
  // parameter's values, one line per combination of the other parameters.
  function sweepCharts() {
    let s = null;
    keys.forEach(function (k) {
      const vals = [];
      passed.forEach(function (r) { const v = param(r, k); if (v !== undefined && vals.indexOf(v) < 0) vals.push(v); });
      if (vals.length < 2) return;
      sortValues(vals);
      const others = keys.filter(function (o) { return o !== k; });
      const groups = [];
      const byGroup = {};
      passed.forEach(function (r) {
        const g = others.map(function (o) { return o + '=' + param(r, o); }).join(', ') || 'all';
        if (!byGroup[g]) { byGroup[g] = {}; groups.push(g); }
        byGroup[g][param(r, k)] = r;
      });
      if (!s) s = section('Sweeps');
      s.appendChild(el('h3', k));
      const grid = el('div', null, 'grid');
      s.appendChild(grid);
      const cat = KB.category(vals);
      sweepMetrics.forEach(function (m) {
        const series = [{ label: k }];
        const cols = [vals.map(function (_, i) { return i; })];
        groups.forEach(function (g, gi) {
          m.lines.forEach(function (line) {
            const ys = vals.map(function (v) { return num(get(byGroup[g][v], line.path)); });
            if (ys.every(function (y) { return y === null; })) return;
            series.push({ label: (g + ' ' + line.name).trim(), stroke: KB.color(gi), width: 2, dash: line.dash,
              spanGaps: true, points: { show: true, size: 6 } });
            cols.push(ys);
          });
        });
        if (series.length < 2) return;
        KB.chart(grid, m.title + ' vs ' + k, {
          width: 540, height: 280,
          scales: { x: cat.scale },
          series: series,
          axes: [Object.assign({ label: k }, cat.axis), {}],
        }, cols);
      });
    });
  }

  // x of a percentile on the log "nines" scale: 90 % → 1, 99 % → 2 …
  function nines(p) { return -Math.log10(1 - p / 100); }
  function ninesLabel(x) { return x === 0 ? '0%' : (100 - 100 / Math.pow(10, x)).toFixed(Math.max(0, x - 2)) + '%'; }

  // Percentile spectrum: every scenario on one chart per side, so tails
  // compare at a glance. The maximum (100 %) sits at 1/(1-p) = records.
  function spectrumCharts() {
    const sides = [
      { title: 'produce latency by percentile (ms)', path: ['produce', 'latency_ms', 'percentiles'], count: ['produce', 'records'] },
      { title: 'end-to-end latency by percentile (ms)', path: ['consume', 'end_to_end_ms', 'percentiles'], count: ['consume', 'records'] },
    ];
    let s = null;
    sides.forEach(function (side) {
      const lines = [];
      results.forEach(function (r, i) {
        if (r.status === 'failed') return;
        const pts = get(r, side.path);
        if (!Array.isArray(pts) || pts.length === 0) return;
        const m = {};
        let last = 0;
        pts.forEach(function (pt) {
          let x = pt.percentile >= 100 ? Math.max(Math.log10(get(r, side.count) || 1), last + 0.05) : nines(pt.percentile);
          x = Math.round(x * 1e6) / 1e6;
          last = x;
          m[x] = pt.ms > 0 ? pt.ms : null;
        });
        lines.push({ label: '#' + (i + 1) + ' ' + r.scenario, color: KB.color(i), points: m });
      });
      if (lines.length === 0) return;
      if (!s) {
        s = section('Latency percentile spectrum');
        s.appendChild(el('p', 'HdrHistogram percentile distribution of every scenario; x is the percentile on a log "nines" scale, y the latency on a log scale.', 'note'));
      }
      const xs = [];
      lines.forEach(function (l) { Object.keys(l.points).forEach(function (x) { x = Number(x); if (xs.indexOf(x) < 0) xs.push(x); }); });
      xs.sort(function (a, b) { return a - b; });
      const maxNines = Math.ceil(xs[xs.length - 1]);
      const cols = [xs].concat(lines.map(function (l) { return xs.map(function (x) { return l.points[x] === undefined ? null : l.points[x]; }); }));
      KB.chart(s, side.title, {
        height: 360,
        scales: { x: { time: false, range: function () { return [0, maxNines]; } }, y: { distr: 3, log: 10 } },
        series: [{ label: 'percentile', value: function (u, v) { return v === null ? '-' : (100 - 100 / Math.pow(10, v)).toFixed(4) + '%'; } }]
          .concat(lines.map(function (l) { return { label: l.label, stroke: l.color, width: 2, spanGaps: true, points: { show: false } }; })),
        axes: [{ label: 'percentile', splits: function () { const a = []; for (let i = 0; i <= maxNines; i++) a.push(i); return a; },
          values: function (u, splits) { return splits.map(ninesLabel); } }, { label: 'ms' }],
      }, cols);
    });
  }

  // Host charts: the load generator's CPU, memory and network per scenario,
  // and per machine where the result lists machines (objects with
  // cpu_percent).
  function hostCharts() {
    const labels = results.map(function (_, i) { return '#' + (i + 1); });
    const cat = KB.category(labels);
    const charts = [
      { title: 'load generator CPU and memory (%)', lines: [['CPU %', ['host', 'cpu_percent']], ['mem %', ['host', 'memory_percent']]] },
      { title: 'load generator network (MB/s)', lines: [['in', ['host', 'net_in_mb_per_sec']], ['out', ['host', 'net_out_mb_per_sec']]] },
    ];
    const machines = {};
    const machineNames = [];
    lists.forEach(function (name) {
      results.forEach(function (r, i) {
        (get(r, name.split('.')) || []).forEach(function (x, j) {
          if (!x || typeof x !== 'object' || num(x.cpu_percent) === null) return;
          const m = name + ': ' + (x.name || x.host || x.role || j);
          if (!machines[m]) { machines[m] = labels.map(function () { return null; }); machineNames.push(m); }
          machines[m][i] = x.cpu_percent;
        });
      });
    });
    let s = null;
    function ensure() {
      if (!s) {
        s = section('Hosts');
        s.appendChild(el('p', 'Scenarios by number (#) as in the results table.', 'note'));
        s.appendChild(el('div', null, 'grid'));
      }
      return s.lastChild;
    }
    const opts = function (ylabel) {
      return { width: 540, height: 280, scales: { x: cat.scale }, axes: [Object.assign({ label: 'scenario' }, cat.axis), { label: ylabel }] };
    };
    charts.forEach(function (c) {
      const series = [{ label: 'scenario' }];
      const cols = [labels.map(function (_, i) { return i; })];
      c.lines.forEach(function (line, li) {
        const ys = results.map(function (r) { return num(get(r, line[1])); });
        if (ys.every(function (y) { return y === null; })) return;
        series.push({ label: line[0], stroke: KB.color(li), width: 2, spanGaps: true, points: { show: true, size: 7 } });
        cols.push(ys);
      });
      if (series.length > 1) KB.chart(ensure(), c.title, Object.assign(opts(c.title.indexOf('%') >= 0 ? '%' : 'MB/s'), { series: series }), cols);
    });
    if (machineNames.length > 0) {
      KB.chart(ensure(), 'CPU per machine (%)', Object.assign(opts('%'), {
        series: [{ label: 'scenario' }].concat(machineNames.map(function (m, i) {
          return { label: m, stroke: KB.color(i), width: 2, spanGaps: true, points: { show: true, size: 7 } };
        })),
      }), [labels.map(function (_, i) { return i; })].concat(machineNames.map(function (m) { return machines[m]; })));
    }
  }

  resultsTable();
  sweepCharts();
  spectrumCharts();
  hostCharts();
})();
