// Cost vs success: every run configuration as a point, the Pareto front as a line, the recommended
// default ringed; hovering names the nearest point.
var PARETO_HEIGHT = 360;
/** The success axis, shared with the sweep charts: percent ticks with the decimals their spacing needs. */
var SUCCESS_AXIS = { label: 'success', font: AXIS_FONT, labelFont: AXIS_FONT, size: 56, values: function (u, ticks, axis, space, incr) { return ticks.map(function (v) { return (v * 100).toFixed(tickDecimals(incr * 100)) + '%'; }); } };

// Ticks $0.50 apart read $17.5, $18.0, and $0.002 apart $0.104, $0.106: as many decimals as the
// step between them needs.
function paretoTicks(pareto, ticks, incr) {
  if (pareto.axis !== 'dollars') return compactTicks(ticks, incr);
  var digits = tickDecimals(incr);
  return ticks.map(function (v) { return '$' + v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }); });
}

/** The values' span padded by 8% each side, kept within [floor, ceiling] where given (success is 0% to 100%). */
function paretoRange(values, floor, ceiling) {
  var min = Math.min.apply(null, values);
  var max = Math.max.apply(null, values);
  var pad = (max - min) * 0.08 || Math.abs(max) * 0.08 || 1;
  return [floor === undefined ? min - pad : Math.max(floor, min - pad), ceiling === undefined ? max + pad : Math.min(ceiling, max + pad)];
}

function drawParetoOverlay(pareto, u) {
  var ctx = u.ctx;
  var px = uPlot.pxRatio;
  var box = u.bbox;
  var at = function (p) { return { x: u.valToPos(p.cost, 'x', true), y: u.valToPos(p.success, 'y', true) }; };
  ctx.save();
  ctx.setLineDash([]);
  pareto.points.forEach(function (p) {
    var c = at(p);
    drawDot(ctx, c.x, c.y, p.front ? 6 : 4.5, p.front ? p.color : '#fff', p.color, p.recommended);
  });
  // Front labels, the recommended one first; a label that would overprint another is left out
  // (the table under the chart names every point).
  ctx.font = 11 * px + 'px ' + FONT;
  ctx.textBaseline = 'middle';
  ctx.fillStyle = '#1f2328';
  // Points are obstacles too, so a label never covers another configuration.
  var placed = pareto.points.map(function (p) {
    var c = at(p);
    var r = 7 * px;
    return { x0: c.x - r, y0: c.y - r, x1: c.x + r, y1: c.y + r };
  });
  var free = function (r) {
    return r.x0 >= box.left && r.x1 <= box.left + box.width && r.y0 >= box.top && r.y1 <= box.top + box.height &&
      placed.every(function (q) { return r.x1 < q.x0 || r.x0 > q.x1 || r.y1 < q.y0 || r.y0 > q.y1; });
  };
  pareto.points
    .filter(function (p) { return p.front; })
    .sort(function (a, b) { return b.recommended - a.recommended; })
    .forEach(function (p) {
      var c = at(p);
      var text = p.label + (p.recommended ? ' (recommended)' : '');
      var w = ctx.measureText(text).width;
      var h = 14 * px;
      var gap = 14 * px;
      var spots = [
        { x0: c.x + gap, y0: c.y - h / 2 },
        { x0: c.x - gap - w, y0: c.y - h / 2 },
        { x0: c.x - w / 2, y0: c.y - gap - h },
        { x0: c.x - w / 2, y0: c.y + gap },
        { x0: c.x - w / 2, y0: c.y + gap + h },
        { x0: c.x - w / 2, y0: c.y + gap + 2 * h },
      ].map(function (s) {
        // Kept inside the plot, so a point near an edge still gets its label.
        var x0 = Math.min(Math.max(s.x0, box.left), box.left + box.width - w);
        return { x0: x0, y0: s.y0, x1: x0 + w, y1: s.y0 + h };
      });
      // The recommended configuration is always named, overprinting if it must.
      var spot = spots.filter(free)[0] || (p.recommended ? spots[3] : null);
      if (!spot) return;
      placed.push(spot);
      ctx.textAlign = 'left';
      ctx.fillText(text, spot.x0, (spot.y0 + spot.y1) / 2);
    });
  ctx.restore();
}

/** A dot of `radius` CSS pixels; the recommended default ringed in green. */
function drawDot(ctx, x, y, radius, fill, stroke, recommended) {
  var px = uPlot.pxRatio;
  ctx.beginPath();
  ctx.arc(x, y, radius * px, 0, 2 * Math.PI);
  ctx.fillStyle = fill;
  ctx.strokeStyle = stroke;
  ctx.lineWidth = 2 * px;
  ctx.fill();
  ctx.stroke();
  if (recommended) {
    ctx.beginPath();
    ctx.arc(x, y, 11 * px, 0, 2 * Math.PI);
    ctx.strokeStyle = '#1a7f37';
    ctx.lineWidth = 2.5 * px;
    ctx.stroke();
  }
}

/** The point nearest the cursor, within 30 px; `xKey` names the point's x field (its y is `success`). */
function nearestPoint(points, xKey, u) {
  var left = u.cursor.left;
  var top = u.cursor.top;
  if (left === undefined || left < 0) return null;
  var best = null;
  var bestDistance = Infinity;
  points.forEach(function (p) {
    var dx = u.valToPos(p[xKey], 'x') - left;
    var dy = u.valToPos(p.success, 'y') - top;
    var d = dx * dx + dy * dy;
    if (d < bestDistance) { bestDistance = d; best = p; }
  });
  return bestDistance <= 30 * 30 ? best : null;
}

function mountPareto(pareto) {
  var host = document.getElementById('pareto-chart');
  if (!host || pareto.points.length === 0) return function () {};
  var plot = host.querySelector('.plot');
  var info = host.querySelector('.step-info');
  var costs = pareto.points.map(function (p) { return p.cost; });
  var front = pareto.points.filter(function (p) { return p.front; });
  // uPlot wants one x array: the front is the only line, the points are drawn by the overlay.
  var xs = front.map(function (p) { return p.cost; });
  var ys = front.map(function (p) { return p.success; });
  // Every configuration at the hovered point: points of the same cost and success are drawn as one.
  var show = function (u) {
    var p = nearestPoint(pareto.points, 'cost', u);
    if (!p) {
      info.textContent = 'Hover a point for its configuration.';
      return;
    }
    info.replaceChildren.apply(info, pareto.points
      .filter(function (q) { return q.cost === p.cost && q.success === p.success; })
      .map(function (q) {
        return el('div', null, q.label + ': ' + q.costText + ', success ' + percent(q.success) + (q.front ? ' (on the front)' : '') + (q.recommended ? ', recommended' : ''));
      }));
  };
  var opts = {
    width: plot.clientWidth,
    height: PARETO_HEIGHT,
    legend: { show: false },
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    scales: {
      x: { time: false, range: function () { return paretoRange(costs, 0); } },
      y: { range: function () { return paretoRange(pareto.points.map(function (p) { return p.success; }).concat([1]), 0, 1); } },
    },
    axes: [
      { label: pareto.axis, font: AXIS_FONT, labelFont: AXIS_FONT, labelSize: 20, values: function (u, ticks, axis, space, incr) { return paretoTicks(pareto, ticks, incr); } },
      SUCCESS_AXIS,
    ],
    series: [{}, { label: 'Pareto front', stroke: '#1a7f37', width: 1.5, dash: [6, 4], points: { show: false } }],
    hooks: {
      draw: [function (u) { drawParetoOverlay(pareto, u); }],
      setCursor: [show],
    },
  };
  var u = new uPlot(opts, [xs, ys], plot);
  show(u);
  return function () { u.setSize({ width: plot.clientWidth, height: PARETO_HEIGHT }); };
}
