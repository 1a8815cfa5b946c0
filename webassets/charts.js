// Chart helpers shared by the bench report and the landing page (uPlot).
(function () {
  'use strict';
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
    '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#393b79'];
  const KB = window.KB = { charts: [] };

  KB.color = function (i) { return palette[i % palette.length]; };

  // chart draws a uPlot chart in a new <figure class="chart"> under parent;
  // every chart is kept in KB.charts.
  KB.chart = function (parent, title, opts, data) {
    const fig = document.createElement('figure');
    fig.className = 'chart';
    parent.appendChild(fig);
    const width = opts.width || Math.max(320, Math.min(parent.clientWidth || 960, 1100));
    // Room for values such as 150,000 on the y axes.
    (opts.axes || []).forEach(function (a, i) { if (i > 0 && a.size === undefined) a.size = 64; });
    const u = new uPlot(Object.assign({ title: title, height: 300 }, opts, { width: width }), data, fig);
    KB.charts.push(u);
    return u;
  };

  // category is a scale and an axis for values shown at 0, 1, 2 …
  KB.category = function (labels) {
    return {
      scale: { time: false, range: function () { return [-0.5, labels.length - 0.5]; } },
      axis: {
        splits: function () { return labels.map(function (_, i) { return i; }); },
        values: function (u, splits) { return splits.map(function (i) { return labels[i] === undefined ? '' : labels[i]; }); },
      },
    };
  };

  // num is v when it is a finite number, else null (a gap in a chart).
  KB.num = function (v) { return typeof v === 'number' && isFinite(v) ? v : null; };

  KB.el = function (tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
})();
