// The page script's shared helpers. The client files are concatenated, in a fixed order, into one
// strict IIFE (render.ts), so they share these names without globals. Scenario text only ever
// reaches the page through textContent, never innerHTML, so recordings can't become markup.
var FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", sans-serif';
var AXIS_FONT = '12px ' + FONT;
var number = new Intl.NumberFormat('en-US');

/** Axis ticks in k / M with the decimals their spacing needs: 1.25k, 1.50k rather than 1.3k, 1.5k. */
function compactTicks(ticks, step) {
  var top = Math.max.apply(null, ticks.map(Math.abs));
  var unit = top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1;
  var suffix = unit === 1e6 ? 'M' : unit === 1e3 ? 'k' : '';
  return ticks.map(function (v) { return v === 0 ? '0' : (v / unit).toFixed(tickDecimals(step / unit)) + suffix; });
}

/**
 * Decimals that write every multiple of `step` exactly: those of its fractional part, not of its size
 * (2.5 apart needs one for 7.5, 0.025 three for 2.475). Ticks are multiples of their step.
 */
function tickDecimals(step) {
  for (var d = 0; d < 6; d++) {
    var scaled = step * Math.pow(10, d);
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 6;
}

/** Tick spacings for an axis of whole numbers (steps, a whole-number parameter): no ticks between them. */
var WHOLE_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];

function percent(fraction) {
  return (fraction * 100).toFixed(1) + '%';
}

/** An element with a class and text, built without parsing markup. */
function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** A series' key as the tables draw it (svg.key in report.hbs): a line in its colour and dash. */
function seriesKey(color, dash) {
  var svg = document.getElementById('series-key').content.firstElementChild.cloneNode(true);
  svg.firstElementChild.setAttribute('stroke', color);
  svg.firstElementChild.setAttribute('stroke-dasharray', dash.join(','));
  return svg;
}

/** The glyph of a marker kind, drawn on a canvas at (x, y) with radius r (device pixels). */
function drawGlyph(ctx, kind, x, y, r, color) {
  var px = uPlot.pxRatio;
  ctx.lineWidth = 1.75 * px;
  ctx.strokeStyle = color;
  ctx.fillStyle = '#fff';
  ctx.beginPath();
  if (kind === 'overflow' || kind === 'failure') {
    ctx.arc(x, y, r + 3 * px, 0, 2 * Math.PI);
    ctx.fillStyle = 'rgba(255,255,255,0.85)';
    ctx.fill();
    ctx.beginPath();
    ctx.moveTo(x - r, y - r);
    ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r);
    ctx.lineTo(x - r, y + r);
    ctx.lineWidth = 2.5 * px;
    ctx.strokeStyle = kind === 'overflow' ? '#c62828' : '#9a6700';
    ctx.stroke();
    return;
  }
  if (kind === 'masked') {
    ctx.arc(x, y, r * 0.55, 0, 2 * Math.PI);
  } else if (kind === 'summarized') {
    ctx.arc(x, y, r * 0.8, 0, 2 * Math.PI);
    ctx.fillStyle = color;
  } else if (kind === 'removed') {
    ctx.moveTo(x - r, y - r * 0.7);
    ctx.lineTo(x + r, y - r * 0.7);
    ctx.lineTo(x, y + r);
    ctx.closePath();
  } else if (kind === 'continuation') {
    ctx.moveTo(x - r, y + r * 0.7);
    ctx.lineTo(x + r, y + r * 0.7);
    ctx.lineTo(x, y - r);
    ctx.closePath();
    ctx.fillStyle = color;
  } else if (kind === 'reread') {
    ctx.moveTo(x - r, y);
    ctx.lineTo(x + r, y);
    ctx.moveTo(x, y - r);
    ctx.lineTo(x, y + r);
    ctx.stroke();
    return;
  } else if (kind === 'offloaded') {
    ctx.rect(x - r * 0.75, y - r * 0.75, r * 1.5, r * 1.5);
  } else {
    // restart, and anything new: a diamond
    ctx.moveTo(x, y - r - px);
    ctx.lineTo(x + r + px, y);
    ctx.lineTo(x, y + r + px);
    ctx.lineTo(x - r - px, y);
    ctx.closePath();
  }
  ctx.fill();
  ctx.stroke();
}

// Timelines come gzipped in base64, one string per scenario (view.ts), after this script: read once
// the page is parsed, each inflated on first use, once.
var timelineBlobs = new Promise(function (resolve) {
  var read = function () { resolve(JSON.parse(document.getElementById('ctxbench-timelines').textContent)); };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', read);
  else read();
});
var inflated = {};
function scenarioTimelines(scenario) {
  if (!inflated[scenario]) inflated[scenario] = timelineBlobs.then(function (blobs) {
    var bytes = Uint8Array.from(atob(blobs[scenario]), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(function (text) {
      var runs = JSON.parse(text);
      runs.forEach(function (run) { run.steps = expandSteps(run.steps); });
      return runs;
    });
  });
  return inflated[scenario];
}

/** A run's requests as [step, session, prompt tokens] and, for a request not the agent's own, its purpose (timeline.ts packs them by column). */
function expandSteps(packed) {
  var step = 0;
  var tokens = 0;
  var rows = packed.step.map(function (d, i) {
    step += d;
    tokens += packed.tokens[i];
    return [step, packed.session[i], tokens];
  });
  packed.purpose.forEach(function (p) { rows[p[0]].push(p[1]); });
  return rows;
}

/** A run's timeline (a promise), by its index in the report. */
function runTimeline(data, index) {
  var ref = data.runs[index];
  return scenarioTimelines(ref[0]).then(function (runs) { return runs[ref[1]]; });
}
