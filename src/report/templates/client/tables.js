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
