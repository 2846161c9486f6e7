// Success against one swept parameter (sweep-plot.ts): grey lines, one per setting of the other swept
// parameters and told apart by dash; each point in its configuration's colour, the recommended
// default ringed as on the Pareto chart; hovering names the nearest point.
var SWEEP_HEIGHT = 240;
var SWEEP_LINE = '#8c959f';

function mountSweep(sweep) {
  var host = document.getElementById(sweep.domId);
  var plot = host.querySelector('.plot');
  var info = host.querySelector('.step-info');
  var points = [].concat.apply([], sweep.series.map(function (s) { return s.points; }));
  // uPlot wants one ascending x array: a series has null where it has no point (a setting refused).
  var xs = points.map(function (p) { return p.x; }).filter(function (x, i, all) { return all.indexOf(x) === i; }).sort(function (a, b) { return a - b; });
  var ys = sweep.series.map(function (s) {
    return xs.map(function (x) {
      var p = s.points.filter(function (q) { return q.x === x; })[0];
      return p ? p.success : null;
    });
  });
  var categories = sweep.categories;
  var show = function (u) {
    var p = nearestPoint(points, 'x', u);
    info.textContent = p ? p.label + ': success ' + p.successText + (p.recommended ? ', recommended' : '') : 'Hover a point for its configuration.';
  };
  var xAxis = categories
    ? { label: sweep.parameter, font: AXIS_FONT, labelFont: AXIS_FONT, labelSize: 20, splits: function () { return xs; }, values: function (u, ticks) { return ticks.map(function (i) { return categories[i]; }); } }
    : { label: sweep.parameter, font: AXIS_FONT, labelFont: AXIS_FONT, labelSize: 20, incrs: xs.every(Number.isInteger) ? WHOLE_INCREMENTS : undefined, values: function (u, ticks, axis, space, incr) { return ticks.map(function (v) { return v.toFixed(tickDecimals(incr)); }); } };
  var opts = {
    width: plot.clientWidth,
    height: SWEEP_HEIGHT,
    legend: { show: false },
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    scales: {
      x: { time: false, range: function () { return categories ? [-0.5, categories.length - 0.5] : paretoRange(xs); } },
      y: { range: function () { return paretoRange(points.map(function (p) { return p.success; }).concat([1]), 0, 1); } },
    },
    axes: [xAxis, SUCCESS_AXIS],
    series: [{}].concat(sweep.series.map(function (s) {
      return { label: s.label, stroke: SWEEP_LINE, width: 1.5, dash: s.dash, spanGaps: true, points: { show: false } };
    })),
    hooks: {
      draw: [function (u) {
        u.ctx.save();
        u.ctx.setLineDash([]);
        points.forEach(function (p) {
          drawDot(u.ctx, u.valToPos(p.x, 'x', true), u.valToPos(p.success, 'y', true), 5, p.color, p.color, p.recommended);
        });
        u.ctx.restore();
      }],
      setCursor: [show],
    },
  };
  var u = new uPlot(opts, [xs].concat(ys), plot);
  show(u);
  return function () { u.setSize({ width: plot.clientWidth, height: SWEEP_HEIGHT }); };
}
