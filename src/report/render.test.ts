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

describe('renderReport', () => {
  const html = renderReport(sampleRuns(), meta);

  it('is self-contained: no external references', () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\s(?:src|href)=(?!["']?data:)/i);
    expect(html).toContain('var uPlot=');
  });

  it('shows the header, the mock note and the run facts', () => {
    expect(html).toContain('<title>ctxbench report</title>');
    expect(html).toContain('2025-01-02 03:04 UTC');
    expect(html).toContain('ctxbench 0.1.0');
    expect(html).toContain('results/bench.duckdb');
    expect(html).toContain(
      'Mock LLM: replays the recorded assistant turns; token counts are local tokenizer counts (o200k_base), not a provider&#x27;s',
    );
    expect(html).toMatch(/<dt>Strategies<\/dt><dd>raw, masking<\/dd>/);
  });

  it('summarises per strategy, with the usage error when runs compared it', () => {
    const summary = /<section id="summary">([^]*?)<\/section>/.exec(html)![1]!;
    expect(summary).toContain('Token count error');
    const rows = [...summary.matchAll(/<tr>\s*<th scope="row">[^]*?<\/tr>/g)].map((m) => m[0].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
    // strategy, runs, completed, overflowed, other, input tokens, mean peak, restarts, sessions, error
    expect(rows).toEqual([
      'raw 2 1 1 0 38,800 81.9% 0 2 4.0%',
      'masking 2 2 0 0 41,600 62.5% 1 3 —',
    ]);
  });

  it('has one matrix row per scenario with each cell outcome, overflow marked', () => {
    const matrix = /<section id="matrix">([^]*?)<\/section>/.exec(html)![1]!;
    const rows = matrix.match(/<tr>\s*<th scope="row">/g);
    expect(rows).toHaveLength(2);
    expect(matrix).toContain('Add login rate limiting');
    expect(matrix).toMatch(/<div class="cell overflow" title="context of 7000 tokens exceeds the 8000 window">\s*<div class="status">overflow at step 5<\/div>/);
    expect(matrix).toContain('4 / 7 steps');
    expect(matrix.match(/class="cell completed"/g)).toHaveLength(3);
    expect(matrix).toContain('peak 87.5% · 0 restarts');
    expect(matrix).toContain('1 restarts');
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
    expect(a.series.map((s) => s.label)).toEqual(['raw', 'masking', 'recorded provider usage']);
    expect(a.series[0]!.y).toEqual([900, 2100, 3300, 4400, 5200, 6100]);
    expect(a.series[2]!.y).toEqual([950, 2180, 3390, 4520, 5350, 6240]);
    expect(a.lines).toContainEqual(expect.objectContaining({ kind: 'window', value: WINDOW }));
    expect(a.lines).toContainEqual(expect.objectContaining({ kind: 'threshold', value: 4800, label: 'masking: mask_at 60.0% = 4,800' }));

    // The overflowing request was never sent: x gains step 5 for its marker, on the event's count.
    expect(b.x).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(b.series.map((s) => s.label)).toEqual(['raw', 'masking']);
    const [raw, masking] = strategySeries(b) as [StrategySeries, StrategySeries];
    expect(raw.y).toEqual([1500, 3200, 5100, 7000, null, null, null]);
    expect(masking.session).toEqual([1, 1, 1, 1, 2, 2, 2]);
    expect(masking.action[4]).toBe('restart');
    expect(b.markers).toEqual([
      { kind: 'overflow', series: 0, x: 5, y: 8900 },
      { kind: 'restart', series: 1, x: 5, y: 1200 },
    ]);
    const restart = masking.events.find((e) => e.kind === 'restart')!;
    expect(restart.detail.length).toBeLessThanOrEqual(200);
    expect(raw.events[0]!.detail).toContain(INJECTION);
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
    expect(header).toBe('Scenario raw masking (keep_last&#x3D;2) masking (keep_last&#x3D;4)');
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
