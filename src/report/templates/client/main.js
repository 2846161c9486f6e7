// Boots the page: tables, then charts (from the embedded JSON), then the timeline.
var data = JSON.parse(document.getElementById('ctxbench-data').textContent);

Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
  sortable(table, document.getElementById('sort-status'));
});
Array.prototype.forEach.call(document.querySelectorAll('.tabs'), groupTabs);
Array.prototype.forEach.call(document.querySelectorAll('form.scenario-filter'), scenarioFilter);

var resizers = [mountPareto(data.pareto)].concat(data.sweeps.map(mountSweep));
window.addEventListener('resize', function () { resizers.forEach(function (resize) { resize(); }); });

// A token curve is drawn when it comes near the screen: hundreds of charts drawn up front would keep
// a big report from opening. The first batch of callbacks covers what is on screen at load.
var firstCurves = new Promise(function (resolve) {
  var pending = {};
  data.charts.forEach(function (chart) { pending[chart.domId] = chart; });
  if (data.charts.length === 0 || typeof IntersectionObserver === 'undefined') {
    data.charts.forEach(function (chart) { resizers.push(mountCurve(chart, data)); });
    resolve();
    return;
  }
  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      var chart = pending[entry.target.id];
      if (!entry.isIntersecting || !chart) return;
      delete pending[entry.target.id];
      observer.unobserve(entry.target);
      resizers.push(mountCurve(chart, data));
    });
    resolve();
  }, { rootMargin: '400px 0px' });
  data.charts.forEach(function (chart) { observer.observe(document.getElementById(chart.domId)); });
});

// The ready state (data-ready on <html>): the controls wired and the curves on screen drawn; tests
// and bench-speed's load time wait for it. The first run's timeline, below the fold, follows.
mountTimeline(data);
firstCurves.then(function () { document.documentElement.dataset.ready = 'true'; });
