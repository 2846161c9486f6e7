// The run timeline: every step of one run, its requests, what the strategy did to which messages,
// the text it wrote, and the probes asked there. Opened from the matrix (#run-N) or the picker.
// The page gets the first few ids of an event and how many more there were (timeline.ts).
function idsText(e) {
  return e.ids.join(', ') + (e.more ? ' and ' + e.more + ' more' : '');
}

/** Steps, events and probes of a run, grouped by step number, in step order. */
function timelineRows(run) {
  var byStep = {};
  var order = [];
  function row(step) {
    if (!byStep[step]) {
      byStep[step] = { step: step, requests: [], events: [], probes: [] };
      order.push(step);
    }
    return byStep[step];
  }
  run.steps.forEach(function (s) { row(s[0]).requests.push(s); });
  run.events.forEach(function (e) { row(e.step).events.push(e); });
  run.probes.forEach(function (p) { row(p.step).probes.push(p); });
  order.sort(function (a, b) { return a - b; });
  return order.map(function (step) { return byStep[step]; });
}

function requestCell(run, requests) {
  var cell = el('td', 'requests');
  requests.forEach(function (s) {
    var purpose = s.length > 3 ? s[3] : 'agent';
    var line = el('div', purpose === 'agent' ? null : 'aux');
    line.textContent = purpose + ' · session ' + s[1] + ' · ' + number.format(s[2]) + ' tokens' + (purpose === 'agent' ? ' (' + percent(s[2] / run.window) + ')' : '');
    cell.appendChild(line);
  });
  return cell;
}

function eventCell(events) {
  var cell = el('td', 'did');
  events.forEach(function (e) {
    var item = el('div', 'event');
    item.appendChild(el('span', 'kind ' + e.kind, e.kind));
    item.appendChild(document.createTextNode(' ' + e.detail));
    if (e.ids) item.appendChild(el('div', 'ids', 'messages: ' + idsText(e)));
    if (e.text) {
      var details = el('details', 'text');
      details.appendChild(el('summary', null, 'text the strategy wrote (' + number.format(e.text.length) + ' characters)'));
      details.appendChild(el('pre', null, e.text));
      item.appendChild(details);
    }
    cell.appendChild(item);
  });
  return cell;
}

function probeCellOf(probes) {
  var cell = el('td', 'probes');
  probes.forEach(function (p) {
    // A live run asked the model: its answer decides; otherwise where the fact was in the context.
    var asked = p.answered !== undefined;
    var passed = asked ? p.answered : p.how === 'verbatim' || p.how === 'summary' || p.how === 'recoverable';
    var item = el('div', passed ? 'probe passed' : 'probe lost');
    item.textContent = p.id + ': ' + p.how + ' · ' + p.answer + (p.file ? ' (' + p.file + ')' : '') +
      (asked ? ' · asked, ' + (p.answered ? 'answered' : 'not answered') + ': “' + p.reply + '”' : '');
    cell.appendChild(item);
  });
  return cell;
}

function renderTimeline(run, body) {
  body.replaceChildren();
  var head = el('div', 'timeline-head');
  var swatch = el('span', 'swatch');
  swatch.style.background = run.color;
  head.appendChild(swatch);
  head.appendChild(el('strong', null, run.label));
  head.appendChild(document.createTextNode(' on ' + run.scenario + ' · '));
  head.appendChild(el('span', 'status ' + (run.status === 'completed' ? 'ok' : 'bad'), run.status));
  if (run.failure) head.appendChild(el('div', 'failure', run.failure));
  body.appendChild(head);

  var table = el('table', 'grid timeline-steps');
  var headRow = el('tr');
  ['Step', 'Requests', 'What the strategy did', 'Probes'].forEach(function (label) { headRow.appendChild(el('th', null, label)); });
  table.appendChild(el('thead')).appendChild(headRow);
  var tbody = el('tbody');
  timelineRows(run).forEach(function (r) {
    var tr = el('tr', r.events.length ? 'eventful' : null);
    tr.appendChild(el('th', null, r.step));
    tr.appendChild(requestCell(run, r.requests));
    tr.appendChild(eventCell(r.events));
    tr.appendChild(probeCellOf(r.probes));
    tbody.appendChild(tr);
  });
  table.appendChild(tbody);
  body.appendChild(table);
}

/** Wires the picker and the #run-N links. The first run shows until another is picked. */
function mountTimeline(data) {
  var select = document.getElementById('timeline-run');
  var body = document.getElementById('timeline-body');
  if (!select || !body || data.runs.length === 0) return;
  var shown = null;
  function open(index, scroll) {
    if (!(index >= 0 && index < data.runs.length)) return;
    select.value = String(index);
    shown = index;
    runTimeline(data, index).then(function (run) {
      if (shown !== index) return; // another run was picked meanwhile
      renderTimeline(run, body);
      if (scroll) document.getElementById('timeline').scrollIntoView();
    });
  }
  function fromHash(scroll) {
    var match = /^#run-(\d+)$/.exec(location.hash);
    if (match) open(Number(match[1]), scroll);
    return Boolean(match);
  }
  select.addEventListener('change', function () { open(Number(select.value), false); });
  window.addEventListener('hashchange', function () { fromHash(true); });
  // A second click on the same link changes no hash, so it would not reopen the run by itself.
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a[href^="#run-"]');
    if (link && link.getAttribute('href') === location.hash) fromHash(true);
  });
  if (!fromHash(true)) open(0, false);
}
