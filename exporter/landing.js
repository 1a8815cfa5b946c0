// The landing page's live sparklines: every few seconds, the last 15 minutes
// of each probe from live.json (the exporter's in-memory ring).
(function () {
  'use strict';
  const root = document.getElementById('live');
  // Every title names its unit.
  const metrics = [
    { key: 'records_per_sec', title: 'produced (records/s)', digits: 0 },
    { key: 'produce_p99_ms', title: 'produce p99 (ms)', digits: 2 },
    { key: 'end_to_end_p99_ms', title: 'e2e p99 (ms)', digits: 2 },
    { key: 'lag_records', title: 'lag (records)', digits: 0 },
    { key: 'lag_seconds', title: 'lag (s)', digits: 2 },
    { key: 'up', title: 'probe_up (0/1)', digits: 0, range: [0, 1.1] },
  ];
  const blocks = {}; // probe name → { div, charts: { key: uPlot } }
  let interval = 5;
  let windowSeconds = 900;

  function latest(ys) {
    for (let i = ys.length - 1; i >= 0; i--) if (ys[i] !== null) return ys[i];
    return null;
  }
  // title: the latest value and, for scale, the window's highest.
  function title(m, ys) {
    const v = latest(ys);
    let t = m.title + ': ' + (v === null ? '-' : v.toFixed(m.digits));
    const vals = ys.filter(function (y) { return y !== null; });
    if (!m.range && vals.length > 1) t += ', max ' + Math.max.apply(null, vals).toFixed(m.digits);
    return t;
  }

  // y from just below 0 to above the highest value: a series that holds at
  // 0 (lag of a caught-up consumer) is still drawn inside the chart.
  function fromZero(u, min, max) {
    const hi = max > 0 ? max * 1.1 : 1;
    return [-hi * 0.05, hi];
  }

  function draw(p, now) {
    let b = blocks[p.name];
    if (!b) {
      const div = KB.el('div', null, 'probe');
      div.appendChild(KB.el('h3', p.name));
      const sparks = KB.el('div', null, 'sparks');
      div.appendChild(sparks);
      root.appendChild(div);
      b = blocks[p.name] = { div: div, sparks: sparks, charts: {} };
    }
    metrics.forEach(function (m, i) {
      const ys = (p[m.key] || []).map(KB.num);
      const data = [p.t, ys];
      const u = b.charts[m.key];
      // From the first sample (a new exporter) or 15 minutes back, to now.
      const from = p.t.length ? Math.max(now - windowSeconds, Math.min(p.t[0], now - interval)) : now - windowSeconds;
      const xRange = function () { return [from, now]; };
      if (!u) {
        const color = KB.color(i);
        b.charts[m.key] = KB.chart(b.sparks, title(m, ys), {
          width: 320, height: 110,
          legend: { show: false },
          cursor: { show: false },
          scales: { x: { time: true, range: xRange }, y: { range: m.range ? function () { return m.range; } : fromZero } },
          series: [{}, { stroke: color, fill: color + '33', width: 1.5, points: { show: false } }],
          axes: [{ show: false }, { show: false }],
        }, data);
      } else {
        u.scales.x.range = xRange;
        u.setData(data);
        u.root.querySelector('.u-title').textContent = title(m, ys);
      }
    });
  }

  function refresh() {
    fetch('live.json', { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (!r.ok) throw new Error('live.json: HTTP ' + r.status);
        return r.json();
      })
      .then(function (d) {
        interval = d.interval_seconds || interval;
        windowSeconds = d.window_seconds || windowSeconds;
        const now = Date.now() / 1000;
        const names = {};
        d.probes.forEach(function (p) { names[p.name] = true; draw(p, now); });
        Object.keys(blocks).forEach(function (n) {
          if (!names[n]) { root.removeChild(blocks[n].div); delete blocks[n]; }
        });
        const note = root.querySelector('.live-note');
        if (note) note.textContent = d.probes.length ? '' : 'No probes are running.';
      })
      .catch(function (err) {
        const note = root.querySelector('.live-note');
        if (note) note.textContent = 'Live data unavailable: ' + err.message;
      })
      .then(function () { setTimeout(refresh, interval * 1000); });
  }
  refresh();
})();
