// Draws the token curves from the embedded JSON. Scenario text only ever reaches the page through
// textContent, never innerHTML, so ids and titles from recordings can't become markup.
(function () {
  'use strict';
  var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", sans-serif';
  var HEIGHT = 320;
  var STEP_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];
  var MARKER_COLORS = { overflow: '#c62828', failure: '#9a6700' };
  var number = new Intl.NumberFormat('en-US');
  var data = JSON.parse(document.getElementById('ctxbench-data').textContent);

  function compact(n) {
    if (n >= 1e6) return +(n / 1e6).toFixed(2) + 'M';
    if (n >= 1e3) return +(n / 1e3).toFixed(1) + 'k';
    return String(n);
  }

  // A window far above the curve would flatten it onto the axis: lines beyond 3x the data's peak
  // are named under the chart instead of drawn.
  function yMaxOf(chart) {
    var dataMax = 0;
    chart.series.forEach(function (s) {
      s.y.forEach(function (v) { if (v !== null && v > dataMax) dataMax = v; });
    });
    chart.markers.forEach(function (m) { if (m.y > dataMax) dataMax = m.y; });
    var top = dataMax;
    chart.lines.forEach(function (l) { if (l.value <= 3 * dataMax && l.value > top) top = l.value; });
    return (top || 1) * 1.08;
  }

  // Window and threshold lines, then markers, on top of the series (uPlot's "draw" hook).
  function drawOverlay(chart, u) {
    var ctx = u.ctx;
    var box = u.bbox;
    var px = uPlot.pxRatio;
    ctx.save();
    ctx.font = 11 * px + 'px ' + FONT;
    // Labels sit at the left end: token curves start low, so that corner is rarely covered.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'bottom';
    chart.lines.forEach(function (line) {
      var y = Math.round(u.valToPos(line.value, 'y', true)) + 0.5;
      ctx.strokeStyle = line.color;
      ctx.lineWidth = (line.kind === 'window' ? 2 : 1) * px;
      ctx.setLineDash(line.kind === 'window' ? [] : [6 * px, 4 * px]);
      ctx.beginPath();
      ctx.moveTo(box.left, y);
      ctx.lineTo(box.left + box.width, y);
      ctx.stroke();
      ctx.fillStyle = line.color;
      ctx.fillText(line.label, box.left + 4 * px, y - 2 * px);
    });
    ctx.setLineDash([]);
    chart.markers.forEach(function (m) {
      if (!u.series[m.series + 1].show) return;
      var x = u.valToPos(m.x, 'x', true);
      var y = u.valToPos(m.y, 'y', true);
      var r = 5 * px;
      ctx.lineWidth = 2 * px;
      if (m.kind === 'restart') {
        ctx.beginPath();
        ctx.moveTo(x, y - r - px);
        ctx.lineTo(x + r + px, y);
        ctx.lineTo(x, y + r + px);
        ctx.lineTo(x - r - px, y);
        ctx.closePath();
        ctx.fillStyle = '#fff';
        ctx.fill();
        ctx.strokeStyle = chart.series[m.series].color;
        ctx.stroke();
      } else {
        ctx.beginPath();
        ctx.arc(x, y, r + 3 * px, 0, 2 * Math.PI);
        ctx.fillStyle = 'rgba(255,255,255,0.85)';
        ctx.fill();
        ctx.beginPath();
        ctx.moveTo(x - r, y - r);
        ctx.lineTo(x + r, y + r);
        ctx.moveTo(x + r, y - r);
        ctx.lineTo(x - r, y + r);
        ctx.lineWidth = 2.5 * px;
        ctx.strokeStyle = MARKER_COLORS[m.kind];
        ctx.stroke();
      }
    });
    ctx.restore();
  }

  // What each strategy sent and did at the hovered step.
  function showStep(chart, info, idx) {
    info.replaceChildren();
    if (idx === null || idx === undefined) {
      info.textContent = 'Hover the chart to see each strategy’s session and events at a step.';
      return;
    }
    var step = chart.x[idx];
    var head = document.createElement('div');
    head.textContent = 'Step ' + step;
    info.appendChild(head);
    chart.series.forEach(function (s) {
      if (s.kind !== 'strategy') return;
      var parts = [];
      if (s.y[idx] === null) parts.push('no request');
      else parts.push(number.format(s.y[idx]) + ' tokens', 'session ' + s.session[idx]);
      var events = s.events.filter(function (e) { return e.step === step; }).map(function (e) {
        return e.kind + (e.count > 1 ? ' ×' + e.count : '') + ': ' + e.detail;
      });
      var masked = s.masked.filter(function (m) { return m[0] === step; })[0];
      if (masked) events.unshift('masked: ' + masked[1] + (masked[1] === 1 ? ' tool output' : ' tool outputs'));
      var line = document.createElement('div');
      line.textContent = s.label + ': ' + parts.join(' · ') + events.map(function (e) { return '\n    ' + e; }).join('');
      info.appendChild(line);
    });
  }

  function mount(chart) {
    var host = document.getElementById(chart.domId);
    var plot = host.querySelector('.plot');
    var info = host.querySelector('.step-info');
    var yMax = yMaxOf(chart);
    var above = chart.lines.filter(function (l) { return l.value > yMax; });
    if (above.length) {
      host.querySelector('.offscale').textContent =
        'Above the chart: ' + above.map(function (l) { return l.label; }).join('; ');
    }
    var axisFont = '12px ' + FONT;
    var opts = {
      width: plot.clientWidth,
      height: HEIGHT,
      scales: { x: { time: false }, y: { range: function () { return [0, yMax]; } } },
      axes: [
        // Steps are whole numbers: no ticks between them.
        { label: 'step', font: axisFont, labelFont: axisFont, labelSize: 20, incrs: STEP_INCREMENTS },
        { label: 'prompt tokens', font: axisFont, labelFont: axisFont, size: 56, values: function (u, ticks) { return ticks.map(compact); } },
      ],
      series: [{ label: 'step', value: function (u, v) { return v === null || v === undefined ? '—' : String(v); } }].concat(
        chart.series.map(function (s) {
          return {
            label: s.label,
            stroke: s.color,
            width: s.kind === 'recorded' ? 1.5 : 2,
            dash: s.kind === 'recorded' ? [5, 4] : undefined,
            value: function (u, v) { return v === null || v === undefined ? '—' : number.format(v); },
          };
        }),
      ),
      hooks: {
        draw: [function (u) { drawOverlay(chart, u); }],
        setCursor: [function (u) { showStep(chart, info, u.cursor.idx); }],
      },
    };
    var u = new uPlot(opts, [chart.x].concat(chart.series.map(function (s) { return s.y; })), plot);
    showStep(chart, info, null);
    return function () { u.setSize({ width: plot.clientWidth, height: HEIGHT }); };
  }

  // Sortable tables: a header's button sorts by that column's data-sort (numbers numerically, empty
  // last); the first click puts the best first, the next reverses. Ties keep the original order.
  function sortable(table, status) {
    var body = table.tBodies[0];
    var original = Array.prototype.slice.call(body.rows);
    var headers = Array.prototype.slice.call(table.querySelectorAll('thead th[data-col]'));
    headers.forEach(function (th) {
      th.querySelector('button').addEventListener('click', function () {
        var now = th.getAttribute('aria-sort');
        var dir = now === 'ascending' ? 'descending' : now === 'descending' ? 'ascending' : th.dataset.first === 'asc' ? 'ascending' : 'descending';
        headers.forEach(function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir);
        var col = Number(th.dataset.col);
        var text = th.dataset.type === 'text';
        var sign = dir === 'ascending' ? 1 : -1;
        var keyed = original.map(function (row, i) { return { row: row, i: i, key: row.cells[col].dataset.sort }; });
        keyed.sort(function (a, b) {
          if (a.key === '' || b.key === '') return (a.key === '') - (b.key === '') || a.i - b.i;
          var d = text ? a.key.localeCompare(b.key) : Number(a.key) - Number(b.key);
          return d * sign || a.i - b.i;
        });
        keyed.forEach(function (k) { body.appendChild(k.row); });
        if (status) status.textContent = 'Sorted by ' + th.textContent.trim() + ', ' + dir + '.';
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    sortable(table, document.getElementById('sort-status'));
  });

  var resizers = data.charts.map(mount);
  window.addEventListener('resize', function () { resizers.forEach(function (resize) { resize(); }); });
})();
