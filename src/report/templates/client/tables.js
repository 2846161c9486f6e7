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

// Scenario-group buttons: each shows its summary table and hides the others.
function groupTabs(container) {
  var buttons = Array.prototype.slice.call(container.querySelectorAll('button[data-target]'));
  buttons.forEach(function (button) {
    button.addEventListener('click', function () {
      buttons.forEach(function (b) {
        var selected = b === button;
        b.setAttribute('aria-pressed', String(selected));
        document.getElementById(b.dataset.target).hidden = !selected;
      });
    });
  });
}

// The scenario filter: a matrix row or a token curve shows when its scenario matches every field
// (id or title containing the text, its group, its recorded outcome, a run that did not complete).
function scenarioFilter(form) {
  var targets = Array.prototype.slice.call(document.querySelectorAll('[data-scenario]'));
  var rows = targets.filter(function (t) { return t.tagName === 'TR'; });
  var field = function (name) { return form.elements.namedItem(name); };
  function apply() {
    var text = field('q').value.trim().toLowerCase();
    var group = field('group') ? field('group').value : '';
    var outcome = field('outcome') ? field('outcome').value : '';
    var failed = field('failed').checked;
    targets.forEach(function (t) {
      t.hidden = !(
        t.dataset.search.toLowerCase().indexOf(text) >= 0 &&
        (!group || t.dataset.group === group) &&
        (!outcome || t.dataset.outcome === outcome) &&
        (!failed || t.dataset.failed === 'true')
      );
    });
    var shown = rows.filter(function (r) { return !r.hidden; }).length;
    field('shown').value = shown === rows.length ? '' : shown + ' of ' + rows.length + ' shown';
  }
  form.addEventListener('input', apply);
  form.addEventListener('submit', function (event) { event.preventDefault(); });
}
