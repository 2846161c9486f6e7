import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../runner/types.js';
import { HOSTILE_TITLE, INJECTION, WINDOW, sampleRuns } from '../../test/helpers/report-fixtures.js';
import { jsonForScript, renderReport, writeReport } from './render.js';
import type { ChartData, ReportData, StrategySeries } from './view.js';

const meta = { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0', database: 'results/bench.duckdb' };

function dataOf(html: string): ReportData {
  const match = /<script type="application\/json" id="ctxbench-data">([^]*?)<\/script>/.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!) as ReportData;
}

const strategySeries = (chart: ChartData): StrategySeries[] =>
  chart.series.filter((s): s is StrategySeries => s.kind === 'strategy');

/** The summary's body as text cells, with "*" after a value marked best. */
function summaryRows(page: string): string[][] {
  const body = /<table class="grid summary sortable">[^]*?<tbody>([^]*?)<\/tbody>/.exec(page)![1]!;
  return [...body.matchAll(/<tr>([^]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd]\b([^>]*)>([^]*?)<\/t[hd]>/g)].map(([, attrs, inner]) => {
      const text = inner!
        .replace(/<span class="vh">[^<]*<\/span>/g, '')
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      return /class="best"/.test(attrs!) ? `${text}*` : text;
    }),
  );
}

describe('renderReport', () => {
  const html = renderReport(sampleRuns(), meta);

  it('is self-contained: no external references', () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\s(?:src|href)=(?!["']?data:)/i);
    expect(html).toContain('var uPlot=');
  });

  it('shows the header: backend assumptions, calibration, prices and the run facts', () => {
    expect(html).toContain('<title>ctxbench report</title>');
    expect(html).toContain('2025-01-02 03:04 UTC');
    expect(html).toContain('ctxbench 0.1.0');
    expect(html).toContain('results/bench.duckdb');
    // The mock's stored settings (not its defaults), in describeMock's words.
    expect(html).toContain(
      '<p class="note" role="note">Mock LLM (4 of 6 runs): replays the recorded assistant turns (teacher forcing); token counts are the local tokenizer&#x27;s. ' +
        'Summaries and checkpoints keep each fact of what they summarize with probability 0.7 (seed 3) and are at most 600 tokens long.</p>',
    );
    // A live server by host (the page names no URL), its mode and what the record/replay cache answered.
    expect(html).toContain(
      '<p class="note" role="note">ollama:chat:qwen2.5-coder:7b (2 of 6 runs): server 127.0.0.1:11434; live mode measure (one output token per agent step); stream&#x3D;false; 1 of 15 requests answered from the record/replay cache.</p>',
    );
    expect(html).toMatch(/<dt>Strategies<\/dt><dd>raw, masking, codex \(summarization\)<\/dd>/);
    expect(html).toContain('<dt>Token calibration</dt><dd>gpt-4o ×1.160</dd>');
    expect(html).toContain(
      '<dt>Prices</dt><dd>gpt-4o $2.50 / $1.25 / $10.00 per 1M tokens of input / cached input / output; in-house-llm unknown (no cost)</dd>',
    );
    expect(html).toContain('<dt>Token count error</dt><dd>4.0% mean absolute vs recorded provider usage (calibrated raw replay, 6 steps)</dd>');
  });

  it('says when runs stored no mock settings, no calibration or no price', () => {
    const runs = sampleRuns()
      .filter((r) => r.config.backend === 'mock')
      .map((r) => ({
        ...r,
        config: { ...r.config, backendOptions: {}, calibrationFactor: undefined, priceModel: 'nobody-knows' },
        summary: { ...r.summary, costUsd: undefined },
      }));
    const page = renderReport(runs, meta);
    expect(page).toContain('with probability unrecorded (seed unrecorded) and are at most unrecorded tokens long');
    expect(page).toContain('<dt>Token calibration</dt><dd>none (local tokenizer counts as they are)</dd>');
    expect(page).toContain('<dt>Prices</dt><dd>nobody-knows unknown (no cost)</dd>');
    expect(summaryRows(page).map((row) => row[11])).toEqual(['-', '-']);
  });

  it('summarises per strategy: outcomes, what the task kept, cost and context', () => {
    const summary = /<section id="summary">([^]*?)<\/section>/.exec(html)![1]!;
    const headers = [...summary.matchAll(/<th scope="col" data-col="(\d+)"[^>]*><button type="button">([^<]*)<\/button><\/th>/g)].map(
      (m) => `${m[1]}:${m[2]!.replace(/\u00AD/g, '')}`,
    );
    expect(headers).toEqual([
      '1:Completed', '2:Overflow', '3:Probes passed', '4:Ref recall', '5:resolved', '6:unresolved', '7:Input tokens',
      '8:Cached', '9:Overhead', '10:LLM calls', '11:Cost', '12:Mean', '13:Mean peak', '14:Restarts', '15:Sessions',
    ]);
    expect(summary).toMatch(/<th colspan="2" scope="colgroup" class="group">Runs<\/th><th colspan="4" scope="colgroup" class="group">What the task kept<\/th>/);
    // A * marks the best value of its column.
    expect(summaryRows(html)).toEqual([
      ['raw', '1/2', '1', '3/4 v3 s0 r0', '100.0%', '100.0%', '100.0%', '38,800', '66.2%', '0', '10', '$0.07', '49.2%', '81.9%', '0', '2'],
      ['masking', '2/2*', '0', '3/4 v3 s0 r0', '88.9%*', '90.0%*', '87.5%', '41,600*', '56.3%*', '0*', '13*', '$0.08', '40.0%', '62.5%', '1', '3'],
      ['codex (summarization)', '2/2*', '0', '4/4 v2 s1 r1*', '83.3%', '80.0%', '87.5%', '49,800', '45.8%', '10,850', '15', '-', '37.6%*', '62.5%', '0', '2'],
    ]);
    expect(summary).toContain('title="2 verbatim in the context, 1 kept by a summary, 1 recoverable from the offload store, 0 lost"');
    expect(summary).toContain('among the 2 strategies that completed every run on the same scenarios');
  });

  it('marks the best only among strategies that completed every run, and only where they differ', () => {
    const rows = summaryRows(html);
    const column = (i: number): string[] => rows.map((row) => row[i]!);
    // raw stopped early: fewer tokens (38,800) and full recall, yet not the best of either.
    expect(column(7)).toEqual(['38,800', '41,600*', '49,800']);
    expect(column(4)).toEqual(['100.0%', '88.9%*', '83.3%']);
    // Completion is compared over every strategy.
    expect(column(1)).toEqual(['1/2', '2/2*', '2/2*']);
    // Alike (87.5%, 62.5%) or a single priced candidate ($0.08 vs unknown): nothing to pick.
    expect(column(6)).toEqual(['100.0%', '87.5%', '87.5%']);
    expect(column(13)).toEqual(['81.9%', '62.5%', '62.5%']);
    expect(column(11)).toEqual(['$0.07', '$0.08', '-']);
    // No columns without a better end (overflow, restarts, sessions) are marked.
    for (const i of [2, 14, 15]) expect(column(i).some((cell) => cell.endsWith('*'))).toBe(false);
  });

  it('gives every summary cell the number it sorts by, unknowns empty', () => {
    const body = /<table class="grid summary sortable">[^]*?<tbody>([^]*?)<\/tbody>/.exec(html)![1]!;
    const codex = /<tr>\s*<th scope="row" data-sort="codex \(summarization\)">[^]*?<\/tr>/.exec(body)![0];
    const keys = [...codex.matchAll(/<td data-sort="([^"]*)"/g)].map((m) => m[1]);
    expect(keys).toEqual(['1', '0', '1', '0.833', '0.8', '0.875', '49800', '0.458', '10850', '15', '', '0.376', '0.625', '0', '2']);
    // Best first on the first click: highest for success and the cached share, lowest for cost.
    expect(html).toMatch(/data-col="3" data-first="desc"/);
    expect(html).toMatch(/data-col="8" data-first="desc"/);
    expect(html).toMatch(/data-col="11" data-first="asc"/);
  });

  it('prices a strategy with unpriced runs as a lower bound, never the best', () => {
    const runs = sampleRuns().map((r) =>
      r.config.strategy === 'codex' ? { ...r, config: { ...r.config, priceModel: 'gpt-4o' }, summary: { ...r.summary, costUsd: 0.01 } } : r,
    );
    runs[1] = { ...runs[1]!, summary: { ...runs[1]!.summary, costUsd: undefined } };
    const rows = summaryRows(renderReport(runs, meta));
    expect(rows.map((row) => row[11])).toEqual(['$0.07', '$0.04+', '$0.02']);
    // The one complete priced candidate is alone: not marked either.
    const priced = sampleRuns().map((r) =>
      r.config.strategy === 'codex' ? { ...r, config: { ...r.config, priceModel: 'gpt-4o' }, summary: { ...r.summary, costUsd: 0.01 } } : r,
    );
    expect(summaryRows(renderReport(priced, meta)).map((row) => row[11])).toEqual(['$0.07', '$0.08', '$0.02*']);
  });

  it('has one matrix row per scenario with each cell outcome, overflow marked', () => {
    const matrix = /<section id="matrix">([^]*?)<\/section>/.exec(html)![1]!;
    const rows = matrix.match(/<tr>\s*<th scope="row">/g);
    expect(rows).toHaveLength(2);
    expect(matrix).toContain('Add login rate limiting');
    expect(matrix).toMatch(/<div class="cell overflow" title="context of 7000 tokens exceeds the 8000 window">\s*<div class="status">overflow at step 5<\/div>/);
    expect(matrix).toContain('4 / 7 steps');
    expect(matrix.match(/class="cell completed"/g)).toHaveLength(5);
    expect(matrix).toContain('peak 87.5% · 0 restarts');
    expect(matrix).toContain('1 restarts');
  });

  it('shows probes passed and reference recall per run, and presets with their strategy', () => {
    const matrix = /<section id="matrix">([^]*?)<\/section>/.exec(html)![1]!;
    const header = /<thead>[^]*?<\/thead>/.exec(matrix)![0].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
    expect(header).toBe('Scenario raw masking codex (summarization)');
    expect(matrix).toContain('<span class="sub">(summarization)</span>');
    const success = [...matrix.matchAll(/<div class="nums"[^>]*>(probes[^<]*)<\/div>/g)].map((m) => m[1]);
    expect(success).toEqual([
      'probes 2/2 (v2 s0 r0) · ref recall 100.0%',
      'probes 1/2 (v1 s0 r0) · ref recall 90.0%',
      'probes 2/2 (v1 s1 r0) · ref recall 80.0%',
      'probes 1/2 (v1 s0 r0) · ref recall 100.0%',
      'probes 2/2 (v2 s0 r0) · ref recall 87.5%',
      'probes 2/2 (v1 s0 r1) · ref recall 87.5%',
    ]);
    expect(matrix).toContain('title="1 verbatim in the context, 0 kept by a summary, 1 recoverable from the offload store, 0 lost"');
  });

  it('escapes scenario strings everywhere', () => {
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toContain('<b>bug</b>');
    expect(html).not.toContain('bad"id<i>');
    expect(html).toContain('Fix &quot;auth&quot; &lt;b&gt;bug&lt;/b&gt; &lt;/script&gt;&lt;script&gt;window.__pwned&#x3D;1&lt;/script&gt;');
    // Exactly the three inline scripts: data, uPlot, page.
    expect(html.match(/<script/g)).toHaveLength(3);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
  });

  it('embeds the chart data as parseable JSON with the right series', () => {
    const data = dataOf(html);
    expect(data.charts.map((c) => c.scenarioId)).toEqual(['swe-auth-001', 'bad"id<i>']);

    const [a, b] = data.charts as [ChartData, ChartData];
    expect(b.title).toBe(HOSTILE_TITLE);
    expect(a.x).toEqual([1, 2, 3, 4, 5, 6]);
    expect(a.series.map((s) => s.label)).toEqual(['raw', 'masking', 'codex (summarization)', 'recorded provider usage']);
    expect(a.series[0]!.y).toEqual([900, 2100, 3300, 4400, 5200, 6100]);
    expect(a.series[3]!.y).toEqual([950, 2180, 3390, 4520, 5350, 6240]);
    // The curve follows agent requests: the preset's summary request (step 5) is not on it.
    expect(a.series[2]!.y).toEqual([900, 2100, 3300, 4400, 2000, 2600]);
    expect(a.lines).toContainEqual(expect.objectContaining({ kind: 'window', value: WINDOW }));
    expect(a.lines).toContainEqual(expect.objectContaining({ kind: 'threshold', value: 4800, label: 'masking: mask_at 60.0% = 4,800' }));

    // The overflowing request was never sent: x gains step 5 for its marker, on the event's count.
    expect(b.x).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(b.series.map((s) => s.label)).toEqual(['raw', 'masking', 'codex (summarization)']);
    const [raw, masking] = strategySeries(b) as [StrategySeries, StrategySeries];
    expect(raw.y).toEqual([1500, 3200, 5100, 7000, null, null, null]);
    expect(masking.session).toEqual([1, 1, 1, 1, 2, 2, 2]);
    expect(masking.events.filter((e) => e.step === 5).map((e) => e.kind)).toEqual(['restart']);
    expect(b.markers).toEqual([
      { kind: 'overflow', series: 0, x: 5, y: 8900 },
      { kind: 'restart', series: 1, x: 5, y: 1200 },
    ]);
    const restart = masking.events.find((e) => e.kind === 'restart')!;
    expect(restart.detail.length).toBeLessThanOrEqual(200);
    expect(raw.events[0]!.detail).toContain(INJECTION);
  });

  it('keeps the embedded JSON to what the charts draw: masking counted, identical events merged', () => {
    const data = dataOf(html);
    const [raw, masking] = strategySeries(data.charts[0]!) as [StrategySeries, StrategySeries];
    expect(Object.keys(masking).sort()).toEqual(['color', 'events', 'kind', 'label', 'masked', 'session', 'y']);
    expect(masking.masked).toEqual([[5, 1], [6, 1]]);
    expect(masking.events).toEqual([]);
    expect(raw.masked).toEqual([]);
    // The tables' metrics live in the HTML only.
    expect(JSON.stringify(data)).not.toMatch(/probe|recall|cost|cached|backendOptions/i);

    const [run] = sampleRuns();
    const noisy = {
      ...run!,
      events: [
        { step: 2, session: 1, kind: 'masked' as const, detail: 'bash output masked' },
        { step: 2, session: 1, kind: 'masked' as const, detail: 'bash output masked' },
        { step: 3, session: 1, kind: 'offloaded' as const, detail: 'saved a.txt' },
        { step: 3, session: 1, kind: 'warned' as const, detail: 'context at 80%' },
        { step: 3, session: 1, kind: 'offloaded' as const, detail: 'saved a.txt' },
      ],
    };
    const [series] = strategySeries(dataOf(renderReport([noisy], meta)).charts[0]!) as [StrategySeries];
    expect(series.masked).toEqual([[2, 2]]);
    expect(series.events).toEqual([
      { step: 3, kind: 'offloaded', detail: 'saved a.txt', count: 2 },
      { step: 3, kind: 'warned', detail: 'context at 80%' },
    ]);
  });

  it('lists the notable events of a scenario, escaped, with masking counted', () => {
    const events = /<figure class="chart" id="chart-0">[^]*?<\/figure>/.exec(html)![0];
    expect(events).toContain('2 tool outputs masked over 2 steps');
    expect(events).not.toContain('masked m9');
  });

  it('splits a strategy into columns when its runs differ in params', () => {
    const runs = sampleRuns();
    const [, masking] = runs as [RunResult, RunResult];
    const other = { ...masking, runId: 'other', config: { ...masking.config, params: { keep_last: 4 } } };
    const page = renderReport([...runs, other], meta);
    const header = /<table class="grid matrix">[^]*?<\/thead>/.exec(page)![0].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
    expect(header).toBe('Scenario raw masking (keep_last&#x3D;2) codex (summarization) masking (keep_last&#x3D;4)');
  });

  it('renders a page without runs', () => {
    const empty = renderReport([], { ...meta, title: 'Nothing yet' });
    expect(empty).toContain('No runs to report.');
    expect(dataOf(empty)).toEqual({ charts: [] });
  });
});

describe('jsonForScript', () => {
  it('escapes what could end the script or break old parsers, and round-trips', () => {
    const value = { t: '</script><!-- \u2028\u2029 "q"' };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('writeReport', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the directory and writes the file, leaving no temp file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctxbench-report-'));
    const file = join(dir, 'nested', 'report.html');
    await writeReport(file, '<p>ok</p>');
    expect(readdirSync(join(dir, 'nested'))).toEqual(['report.html']);
  });

  it('fails without leaving anything when the directory cannot be created', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctxbench-report-'));
    writeFileSync(join(dir, 'blocker'), '');
    await expect(writeReport(join(dir, 'blocker', 'report.html'), '<p>x</p>')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['blocker']);
  });

  it('removes its temp file when the final rename fails', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctxbench-report-'));
    // A directory in the way: the temp file is written, then renaming over the directory fails.
    mkdirSync(join(dir, 'report.html'));
    await expect(writeReport(join(dir, 'report.html'), '<p>x</p>')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['report.html']);
    expect(readdirSync(join(dir, 'report.html'))).toEqual([]);
  });
});
