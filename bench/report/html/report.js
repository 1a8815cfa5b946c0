// The bench report: a table in the seeds' shape, each round's values and the
// verdicts (with rounds), charts by parameter, latency spectra and host charts, all
// drawn from the JSON result in #report-data.
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
  function section(title, id) {
    const s = el('section');
    if (id) s.id = id;
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
  // A worker's result (bench --workers) carries each latency's encoded
  // histogram and exact sum, for "bench merge" only.
  const omitted = ['scenario', 'topic', 'error', 'params', 'produce.bytes', 'produce.failed', 'produce.seconds',
    'produce.start', 'produce.end', 'produce.latency_ms.percentiles', 'produce.latency_ms.histogram',
    'produce.latency_ms.sum_ns', 'consume.start', 'consume.end', 'consume.bytes', 'consume.seconds',
    'consume.rebalance_ms', 'consume.end_to_end_ms'];
  const shown = {};
  columns.forEach(function (c) { shown[c.path.join('.')] = true; });
  function known(path) {
    const p = path.join('.');
    if (p === 'round' && keys.indexOf('round') >= 0) return true; // a run's round, a column already
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

  const paramMetrics = [
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

  // One row of charts per varying parameter: the metric against the
  // parameter's values, one line per combination of the other parameters.
  function paramCharts() {
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
      if (!s) s = section('By parameter');
      s.appendChild(el('h3', k));
      const grid = el('div', null, 'grid');
      s.appendChild(grid);
      const cat = KB.category(vals);
      paramMetrics.forEach(function (m) {
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

  // Rounds (data.rounds: the rest of a rounds result, whose runs are the
  // results): per metric, each round's value per scenario, and the ratio to
  // the baseline with its interval as a whisker, coloured by verdict.
  const metricLabels = {
    produce_records_per_sec: 'produce records/s', produce_p99_ms: 'produce p99 (ms)',
    end_to_end_p99_ms: 'e2e p99 (ms)', consumer_records_per_sec: 'consumer records/s',
  };
  const verdictColors = { better: '#2ca02c', worse: '#d62728', 'no difference': '#7f7f7f', baseline: '#1f77b4' };
  function metricLabel(k) { return metricLabels[k] || k; }
  function metricValue(k, v) { return v === null || v === undefined ? '-' : v.toFixed(/_ms$/.test(k) ? 3 : 0); }

  // whiskers draws, for each item, a vertical line from lo to hi at x with
  // caps, in canvas pixels.
  function whiskers(items) {
    return function (u) {
      const ctx = u.ctx;
      const cap = 5 * devicePixelRatio;
      ctx.save();
      ctx.lineWidth = 2 * devicePixelRatio;
      items.forEach(function (w) {
        const x = u.valToPos(w.x, 'x', true);
        const y0 = u.valToPos(w.lo, 'y', true);
        const y1 = u.valToPos(w.hi, 'y', true);
        ctx.strokeStyle = w.color;
        ctx.beginPath();
        ctx.moveTo(x, y0); ctx.lineTo(x, y1);
        ctx.moveTo(x - cap, y0); ctx.lineTo(x + cap, y0);
        ctx.moveTo(x - cap, y1); ctx.lineTo(x + cap, y1);
        ctx.stroke();
      });
      ctx.restore();
    };
  }
  function noLine() { return null; }
  // niceLog rounds a log scale's ends out to 1, 2 or 5 × 10^k, so the axis
  // starts and ends on a label people read at once.
  function niceLog(lo, hi) {
    const steps = [1, 2, 5, 10];
    const down = function (v) {
      const p = Math.pow(10, Math.floor(Math.log10(v)));
      let r = p;
      steps.forEach(function (m) { if (m * p <= v) r = m * p; });
      return r;
    };
    const up = function (v) {
      const p = Math.pow(10, Math.floor(Math.log10(v)));
      for (let i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
      return 10 * p;
    };
    return [down(lo / 1.1), up(hi * 1.1)];
  }

  function roundsSection() {
    const rd = data.rounds;
    if (!rd) return;
    const sums = rd.summary || [];
    const s = section('Rounds and verdicts', 'rounds');
    const verdicts = sums.some(function (x) { return x.verdict || x.baseline; });
    s.appendChild(el('p', rd.rounds + ' rounds, the scenarios in a shuffled order each round (--seed=' + rd.seed + ')' +
      (verdicts ? '; ratio to the baseline "' + rd.baseline + '" with its interval (' + rd.interval_method +
        '; level: the interval\'s exact confidence). The verdict is "no difference" when the interval holds 1.' : '.') +
      ' Failed rounds are left out. Charts: each round\'s value (the black bar is the median); the ratio with its interval.', 'note'));
    const cols = [
      { label: 'scenario', path: ['scenario'] },
      { label: 'metric', value: function (x) { return metricLabel(x.metric); } },
      { label: 'per round', value: function (x) { return (x.values || []).map(function (v) { return metricValue(x.metric, v); }).join(', '); } },
      { label: 'median', value: function (x) { return metricValue(x.metric, x.median); } },
    ];
    if (verdicts) {
      cols.push({ label: 'ratio', value: function (x) { return x.baseline ? '1' : KB.num(x.ratio) === null ? '' : x.ratio.toFixed(3); } },
        { label: 'interval', value: function (x) { return KB.num(x.ci_low) === null ? '' : '[' + x.ci_low.toFixed(3) + ', ' + x.ci_high.toFixed(3) + ']'; } },
        { label: 'level', value: function (x) { return KB.num(x.confidence) === null ? '' : (100 * x.confidence).toFixed(1) + ' %'; } },
        { label: 'verdict', value: function (x) { return x.baseline ? 'baseline' : x.verdict || 'too few rounds'; } });
    }
    s.appendChild(table(cols, sums, function (x) { return x.verdict ? 'verdict-' + x.verdict.replace(/ /g, '-') : ''; }));

    const scenarios = [];
    const metrics = [];
    sums.forEach(function (x) {
      if (scenarios.indexOf(x.scenario) < 0) scenarios.push(x.scenario);
      if (metrics.indexOf(x.metric) < 0) metrics.push(x.metric);
    });
    const cat = KB.category(scenarios);
    const grid = el('div', null, 'grid');
    s.appendChild(grid);
    // The legend names the rounds and verdicts; a hover value would be one
    // of several points at a scenario.
    const opts = function (ylabel) {
      return { width: 540, height: 300, legend: { live: false }, scales: { x: cat.scale },
        axes: [Object.assign({ label: 'scenario' }, cat.axis), { label: ylabel }] };
    };
    metrics.forEach(function (k) {
      const rows = sums.filter(function (x) { return x.metric === k; });
      // Each round's value, spread a little around its scenario so equal
      // values stay visible; the median as a black bar.
      const xs = [];
      const byRound = [];
      for (let r = 0; r < rd.rounds; r++) byRound.push([]);
      const medians = [];
      rows.forEach(function (x) {
        const i = scenarios.indexOf(x.scenario);
        for (let r = 0; r < rd.rounds; r++) {
          xs.push(i + (rd.rounds > 1 ? (r / (rd.rounds - 1) - 0.5) * 0.4 : 0));
          byRound.forEach(function (col, c) { col.push(c === r ? KB.num((x.values || [])[r]) : null); });
        }
        if (KB.num(x.median) !== null) medians.push({ x: i, y: x.median });
      });
      // Latencies spread over decades from round to round: a log scale.
      const log = /_ms$/.test(k);
      if (log) byRound.forEach(function (col) { col.forEach(function (v, i) { if (v !== null && v <= 0) col[i] = null; }); });
      const series = [{ label: 'scenario' }].concat(byRound.map(function (_, r) {
        return { label: 'round ' + (r + 1), stroke: KB.color(r), fill: KB.color(r), paths: noLine, points: { show: true, size: 8, fill: KB.color(r) } };
      }));
      KB.chart(grid, metricLabel(k) + ' per round', Object.assign(opts(metricLabel(k) + (log ? ', log' : '')), {
        scales: { x: cat.scale, y: log ? { distr: 3, log: 10 } : {} },
        series: series,
        hooks: { draw: [function (u) {
          // the median: a horizontal bar across the scenario's rounds
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#000';
          ctx.lineWidth = 2 * devicePixelRatio;
          medians.forEach(function (m) {
            const y = u.valToPos(m.y, 'y', true);
            ctx.beginPath();
            ctx.moveTo(u.valToPos(m.x - 0.28, 'x', true), y);
            ctx.lineTo(u.valToPos(m.x + 0.28, 'x', true), y);
            ctx.stroke();
          });
          ctx.restore();
        }] },
      }), [xs].concat(byRound));
    });
    if (!verdicts) return;
    metrics.forEach(function (k) {
      const rows = sums.filter(function (x) { return x.metric === k && (x.baseline || KB.num(x.ratio) !== null); });
      if (rows.length === 0) return;
      const names = ['baseline', 'better', 'no difference', 'worse'];
      const xs = rows.map(function (x) { return scenarios.indexOf(x.scenario); });
      const cols = names.map(function (n) {
        return rows.map(function (x) { return (x.baseline ? 'baseline' : x.verdict) === n ? (x.baseline ? 1 : x.ratio) : null; });
      });
      const items = [];
      let lo = 1;
      let hi = 1;
      rows.forEach(function (x, j) {
        if (x.baseline || KB.num(x.ci_low) === null) return;
        items.push({ x: xs[j], lo: x.ci_low, hi: x.ci_high, color: verdictColors[x.verdict] || '#000' });
        lo = Math.min(lo, x.ci_low, x.ratio);
        hi = Math.max(hi, x.ci_high, x.ratio);
      });
      const used = names.filter(function (n, i) { return cols[i].some(function (v) { return v !== null; }); });
      KB.chart(grid, metricLabel(k) + ': ratio to the baseline', Object.assign(opts('ratio, log'), {
        scales: { x: cat.scale, y: { distr: 3, log: 10, range: function () { return niceLog(lo, hi); } } },
        series: [{ label: 'scenario' }].concat(used.map(function (n) {
          return { label: n, stroke: verdictColors[n], fill: verdictColors[n], paths: noLine, points: { show: true, size: 10, fill: verdictColors[n] } };
        })),
        hooks: { drawClear: [function (u) {
          // ratio 1: no change
          const ctx = u.ctx;
          const y = u.valToPos(1, 'y', true);
          ctx.save();
          ctx.strokeStyle = '#999';
          ctx.setLineDash([6, 4]);
          ctx.beginPath();
          ctx.moveTo(u.bbox.left, y); ctx.lineTo(u.bbox.left + u.bbox.width, y);
          ctx.stroke();
          ctx.restore();
        }], draw: [whiskers(items)] },
      }), [xs].concat(used.map(function (n) { return cols[names.indexOf(n)]; })));
    });
  }

  resultsTable();
  roundsSection();
  paramCharts();
  spectrumCharts();
  hostCharts();
})();
