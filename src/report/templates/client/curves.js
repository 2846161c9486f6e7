// Token curves: one uPlot chart per scenario, with window and threshold lines, markers for what the
// strategies did, and a panel saying what each did at the hovered step (read from the timelines).
var CURVE_HEIGHT = 320;
var RECORDED_DASH = [5, 4];

// A window far above the curve would flatten it onto the axis: lines beyond 3x the data's peak
// are named under the chart instead of drawn.
function curveYMax(chart) {
  var dataMax = 0;
  chart.series.forEach(function (s) {
    s.y.forEach(function (v) { if (v !== null && v > dataMax) dataMax = v; });
  });
  chart.markers.forEach(function (m) { if (m.y > dataMax) dataMax = m.y; });
  var top = dataMax;
  chart.lines.forEach(function (l) { if (l.value <= 3 * dataMax && l.value > top) top = l.value; });
  return (top || 1) * 1.08;
}

// Window and threshold lines, then markers, on top of the series (uPlot's "draw" hook). The lines'
// labels are text over the plot (placeLineLabels).
function drawCurveOverlay(chart, u) {
  var ctx = u.ctx;
  var box = u.bbox;
  var px = uPlot.pxRatio;
  ctx.save();
  chart.lines.forEach(function (line) {
    var y = Math.round(u.valToPos(line.value, 'y', true)) + 0.5;
    ctx.strokeStyle = line.color;
    ctx.lineWidth = (line.kind === 'window' ? 2 : 1) * px;
    ctx.setLineDash(line.kind === 'window' ? [] : [6 * px, 4 * px]);
    ctx.beginPath();
    ctx.moveTo(box.left, y);
    ctx.lineTo(box.left + box.width, y);
    ctx.stroke();
  });
  ctx.setLineDash([]);
  chart.markers.forEach(function (m) {
    if (!u.series[m.series + 1].show) return;
    drawGlyph(ctx, m.kind, u.valToPos(m.x, 'x', true), u.valToPos(m.y, 'y', true), 5 * px, chart.series[m.series].color);
  });
  ctx.restore();
}

/**
 * Each line's label, inside the plot and over no other label: above its line at the left, else at
 * the right, else below it; one too long for the plot is cut (its title holds it all). A label with
 * no room left is named under the chart instead, so labels of close thresholds never overprint.
 */
function placeLineLabels(chart, u, layer, note) {
  layer.replaceChildren();
  var width = u.over.clientWidth;
  var height = u.over.clientHeight;
  var placed = [];
  var unlabelled = [];
  var free = function (r) {
    return r.x0 >= 0 && r.x1 <= width && r.y0 >= 0 && r.y1 <= height &&
      placed.every(function (q) { return r.x1 <= q.x0 || r.x0 >= q.x1 || r.y1 <= q.y0 || r.y0 >= q.y1; });
  };
  chart.lines
    .map(function (line) { return { line: line, y: u.valToPos(line.value, 'y') }; })
    .filter(function (l) { return l.y >= 0 && l.y <= height; }) // lines above the chart are named under it already
    .sort(function (a, b) { return (a.line.kind === 'window' ? -1 : 0) - (b.line.kind === 'window' ? -1 : 0) || a.y - b.y; })
    .forEach(function (l) {
      var label = el('div', 'line-label', l.line.label);
      label.title = l.line.label;
      label.style.color = l.line.color;
      label.style.maxWidth = Math.max(0, width - 8) + 'px';
      layer.appendChild(label);
      var w = label.offsetWidth;
      var h = label.offsetHeight;
      var spot = [[4, l.y - h - 1], [width - w - 4, l.y - h - 1], [4, l.y + 1], [width - w - 4, l.y + 1]]
        .map(function (p) { return { x0: p[0], y0: p[1], x1: p[0] + w, y1: p[1] + h }; })
        .filter(free)[0];
      if (!spot) {
        layer.removeChild(label);
        unlabelled.push(l.line.label);
        return;
      }
      placed.push(spot);
      label.style.left = spot.x0 + 'px';
      label.style.top = spot.y0 + 'px';
    });
  note.textContent = unlabelled.length ? 'Lines without room for a label: ' + unlabelled.join('; ') : '';
}

/** The agent's request at a step (its session and prompt tokens, as the curve has them) and the step's events, from a run's timeline. */
function stepOfRun(run, step) {
  var request = null;
  // As on the curve: the last agent request or re-read of the step, the one that was answered.
  run.steps.forEach(function (s) { if (s[0] === step && (s.length === 3 || s[3] === 'reread')) request = s; });
  var events = run.events.filter(function (e) { return e.step === step; });
  return { request: request, events: events };
}

// What each strategy sent and did at the hovered step, read from the runs' timelines (exact, where
// the curve may draw a long run's steps downsampled).
function showCurveStep(chart, data, info, step) {
  var asked = String(step);
  info.dataset.step = asked;
  if (step === null || step === undefined) {
    info.replaceChildren();
    info.textContent = 'Hover the chart to see each strategy’s session and events at a step.';
    return;
  }
  var strategies = chart.series.filter(function (s) { return s.kind === 'strategy'; });
  Promise.all(strategies.map(function (s) { return runTimeline(data, s.run); })).then(function (runs) {
    if (info.dataset.step !== asked) return; // the pointer moved on meanwhile
    info.replaceChildren();
    info.appendChild(el('div', null, 'Step ' + step));
    strategies.forEach(function (s, i) {
      var at = stepOfRun(runs[i], step);
      var parts = at.request === null ? ['no request'] : [number.format(at.request[2]) + ' tokens', 'session ' + at.request[1]];
      var lines = at.events.map(function (e) { return '\n    ' + e.kind + ': ' + e.detail; });
      info.appendChild(el('div', null, s.label + ': ' + parts.join(' · ') + lines.join('')));
    });
  });
}

/** uPlot's data: the steps any series or marker has, and each series' value there (null where it has no drawn point). */
function alignedCurve(chart) {
  var steps = {};
  chart.series.forEach(function (s) { s.x.forEach(function (x) { steps[x] = true; }); });
  chart.markers.forEach(function (m) { steps[m.x] = true; });
  var xs = Object.keys(steps).map(Number).sort(function (a, b) { return a - b; });
  var at = {};
  xs.forEach(function (x, i) { at[x] = i; });
  return [xs].concat(chart.series.map(function (s) {
    var y = xs.map(function () { return null; });
    s.x.forEach(function (x, i) { y[at[x]] = s.y[i]; });
    return y;
  }));
}

/** The legend's markers as the tables' keys: uPlot's is a box in the series' colour, which loses its dash. */
function legendKeys(u, chart) {
  var rows = u.root.querySelectorAll('.u-legend .u-series');
  // Counted from the end: a legend that is not live leaves the x series out.
  var first = rows.length - chart.series.length;
  chart.series.forEach(function (s, i) {
    var marker = rows[first + i].querySelector('.u-marker');
    marker.replaceWith(seriesKey(s.color, s.kind === 'recorded' ? RECORDED_DASH : s.dash));
  });
}

function mountCurve(chart, data) {
  var host = document.getElementById(chart.domId);
  var plot = host.querySelector('.plot');
  var info = host.querySelector('.step-info');
  var yMax = curveYMax(chart);
  var above = chart.lines.filter(function (l) { return l.value > yMax; });
  if (above.length) {
    host.querySelector('.offscale').textContent = 'Above the chart: ' + above.map(function (l) { return l.label; }).join('; ');
  }
  var unlabelled = el('div', 'offscale');
  host.insertBefore(unlabelled, info);
  var layer = el('div', 'line-labels');
  var opts = {
    width: plot.clientWidth,
    height: CURVE_HEIGHT,
    // The panel under the chart gives each run's exact numbers at the hovered step; the legend's own
    // values would read a downsampled curve's gaps as "no value".
    legend: { live: false },
    scales: { x: { time: false }, y: { range: function () { return [0, yMax]; } } },
    axes: [
      { label: 'step', font: AXIS_FONT, labelFont: AXIS_FONT, labelSize: 20, incrs: WHOLE_INCREMENTS },
      { label: 'prompt tokens', font: AXIS_FONT, labelFont: AXIS_FONT, size: 56, values: function (u, ticks, axis, space, step) { return compactTicks(ticks, step); } },
    ],
    series: [{ label: 'step' }].concat(
      chart.series.map(function (s) {
        return {
          label: s.label,
          stroke: s.color,
          width: s.kind === 'recorded' ? 1.5 : 2,
          dash: s.kind === 'recorded' ? RECORDED_DASH : s.dash,
          // A series has no point where only another one does (downsampled, or ended): its line goes on.
          spanGaps: true,
          points: { show: false },
        };
      }),
    ),
    hooks: {
      draw: [function (u) { drawCurveOverlay(chart, u); placeLineLabels(chart, u, layer, unlabelled); }],
      setCursor: [function (u) { showCurveStep(chart, data, info, u.cursor.idx === null || u.cursor.idx === undefined ? null : u.data[0][u.cursor.idx]); }],
    },
  };
  var u = new uPlot(opts, alignedCurve(chart), plot);
  legendKeys(u, chart);
  u.over.appendChild(layer);
  placeLineLabels(chart, u, layer, unlabelled);
  showCurveStep(chart, data, info, null);
  return function () { u.setSize({ width: plot.clientWidth, height: CURVE_HEIGHT }); };
}
