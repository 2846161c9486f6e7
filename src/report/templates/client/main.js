// Boots the page: tables, then charts (from the embedded JSON), then the timeline.
var data = JSON.parse(document.getElementById('ctxbench-data').textContent);

Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
  sortable(table, document.getElementById('sort-status'));
});
Array.prototype.forEach.call(document.querySelectorAll('.tabs'), groupTabs);

var resizers = data.charts.map(function (chart) { return mountCurve(chart, data.runs); });
resizers.push(mountPareto(data.pareto));
window.addEventListener('resize', function () { resizers.forEach(function (resize) { resize(); }); });

mountTimeline(data.runs);
