import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { configsByKey, metricsByKey } from '../gate/baseline.js';
import type { RunResult } from '../core/run-records.js';
import { HOSTILE_TITLE, INJECTION, SUMMARY_TEXT, WINDOW, sampleRuns } from '../../test/helpers/report-fixtures.js';
import type { ChartData, StrategySeries } from './curves.js';
import { HTML_REPORT, jsonForScript, renderReport } from './render.js';
import type { TimelineRun } from './timeline.js';
import type { ReportData } from './view.js';

const meta = { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0', database: 'results/bench.duckdb' };

function dataOf(html: string): ReportData {
  const match = /<script type="application\/json" id="ctxbench-data">([^]*?)<\/script>/.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!) as ReportData;
}

/** Every run's timeline, in report order, inflated as the page does. */
function timelinesOf(html: string): TimelineRun[] {
  const data = dataOf(html);
  const blobs = JSON.parse(/<script type="application\/json" id="ctxbench-timelines">([^]*?)<\/script>/.exec(html)![1]!) as string[];
  const scenarios = blobs.map((blob) => JSON.parse(gunzipSync(Buffer.from(blob, 'base64')).toString('utf8')) as TimelineRun[]);
  return data.runs.map(([scenario, at]) => scenarios[scenario]![at]!);
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
    // Only data: URLs and links within the page (the embedded JSON holds scenario text, not markup).
    const markup = html.replace(/<script type="application\/json"[^]*?<\/script>/, '');
    expect(markup).not.toMatch(/\s(?:src|href)=(?!["']?(?:data:|#))/i);
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

  it('says first when runs ended with an error: a configuration whose runs all errored is otherwise only "Other" in the tables', () => {
    const runs = sampleRuns().map((r, i) => (i === 1 ? { ...r, summary: { ...r.summary, status: 'error' as const, failure: 'strategy masking, beforeRequest at step 2: threw: boom' } } : r));
    const page = renderReport(runs, meta);
    const warning = `Warning: 1 of 6 runs ended with an error, so their numbers are no result (the first: ${runs[1]!.config.strategy} on ${runs[1]!.config.scenarioId}: strategy masking, beforeRequest at step 2: threw: boom); bench run --resume runs them again.`;
    expect(page).toContain(`<p class="note" role="note">${warning}</p>`);
    expect(page.indexOf(warning)).toBeLessThan(page.indexOf('Mock LLM'));
    expect(renderReport(sampleRuns(), meta)).not.toContain('ended with an error');
  });

  it("shows each calibration the batch stored, where it came from and its error, and a warning first when it is off by more than 5%", () => {
    const calibration = [
      { batchId: 'b1', model: 'gpt-4o', encoding: 'o200k_base', factor: 1.16, overhead: 0, source: 'fitted' as const, samples: 40, scenarios: 4, before: { meanAbsPctError: 14, meanPctError: -14 }, after: { meanAbsPctError: 2.2, meanPctError: 0.1 }, outOfSample: { meanAbsPctError: 7.26, meanPctError: 1 } },
      { batchId: 'b1', model: 'claude-3-5-sonnet', encoding: 'o200k_base', factor: 1.2331, overhead: 519, source: 'built-in' as const, samples: 0, scenarios: 0 },
    ];
    const page = renderReport(sampleRuns(), { ...meta, calibration });
    expect(page).toContain('<dt>Token calibration</dt><dd>gpt-4o ×1.160 (fitted on 40 requests of 4 scenarios; 7.3% off out of sample); claude-3-5-sonnet ×1.233 + 519 tokens per request (built in)</dd>');
    const warning = '<p class="note" role="note">Warning: the token calibration of gpt-4o is off by 7.3% out of sample (above 5%): the token counts of its scenarios, and the thresholds they cross, are that uncertain.</p>';
    expect(page).toContain(warning);
    expect(page.indexOf(warning)).toBeLessThan(page.indexOf('Mock LLM'));
    expect(renderReport(sampleRuns(), { ...meta, calibration: [{ ...calibration[0]!, outOfSample: { meanAbsPctError: 4.9, meanPctError: 1 } }] })).not.toContain('Warning: the token calibration');
    // Two batches (--batch all) that fitted the same calibrations list each once, and warn once.
    const twice = renderReport(sampleRuns(), { ...meta, calibration: [...calibration, ...calibration.map((c) => ({ ...c, batchId: 'b2' }))] });
    expect(twice).toContain('<dt>Token calibration</dt><dd>gpt-4o ×1.160 (fitted on 40 requests of 4 scenarios; 7.3% off out of sample); claude-3-5-sonnet ×1.233 + 519 tokens per request (built in)</dd>');
    expect(twice.split(warning)).toHaveLength(2);
  });

  it('names the batch: when, the command, the ctxbench version and commit', () => {
    const batch = { batchId: 'b1', createdAt: new Date('2025-01-02T01:00:00Z'), command: 'bench run -s raw,masking', version: '0.1.0', gitSha: 'abc123def456-dirty' };
    const one = renderReport(sampleRuns(), { ...meta, batches: [batch] });
    expect(one).toContain('<dt>Run</dt><dd>2025-01-02 01:00 UTC · bench run -s raw,masking</dd>');
    expect(one).toContain('<dt>ctxbench</dt><dd>0.1.0 (git abc123def456-dirty)</dd>');
    expect(one).toContain('<dt>Mock seeds</dt><dd>3</dd>');
    const later = { ...batch, batchId: 'b2', createdAt: new Date('2025-01-03T02:00:00Z'), version: '0.2.0', gitSha: undefined };
    const two = renderReport(sampleRuns(), { ...meta, batches: [batch, later] });
    expect(two).toContain('<dt>Batches</dt><dd>2, 2025-01-02 01:00 UTC to 2025-01-03 02:00 UTC</dd>');
    expect(two).toContain('<dt>ctxbench</dt><dd>0.1.0 (git abc123def456-dirty), 0.2.0</dd>');
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
      ['raw', '1/2', '1', '3/4 v3 s0 r0', '100.0% 10 of 13 steps', '100.0%', '100.0%', '38,800', '66.2%', '0', '10', '$0.07', '49.2%', '81.9%', '0', '2'],
      ['masking', '2/2*', '0', '3/4 v3 s0 r0', '88.9%*', '90.0%*', '87.5%', '41,600*', '56.3%*', '0*', '13*', '$0.08', '40.0%', '62.5%', '1', '3'],
      ['codex (summarization)', '2/2*', '0', '4/4 v2 s1 r1*', '83.3%', '80.0%', '87.5%', '49,800', '45.8%', '10,850', '15', '-', '37.6%*', '62.5%', '0', '2'],
    ]);
    expect(summary).toContain('title="2 verbatim in the context, 1 kept by a summary, 1 recoverable from the offload store, 0 lost"');
    expect(summary).toContain('among the 2 strategies that completed every run on the same scenarios');
  });

  it('marks the best only among strategies that completed every run, and only where they differ', () => {
    const rows = summaryRows(html);
    const column = (i: number): string[] => rows.map((row) => row[i]!);
    // raw stopped early: fewer tokens (38,800) and full recall (over the steps it reached, which its
    // cell says), yet not the best of either.
    expect(column(7)).toEqual(['38,800', '41,600*', '49,800']);
    expect(column(4)).toEqual(['100.0% 10 of 13 steps', '88.9%*', '83.3%']);
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

  describe('live numbers that are the provider’s, or say they are not', () => {
    /** The codex runs (live, ollama) as a local model with no reported cache hits, one of them truncated from step 2. */
    const local = (): RunResult[] =>
      sampleRuns().map((r, i) =>
        r.config.strategy !== 'codex'
          ? r
          : {
              ...r,
              config: { ...r.config, priceModel: 'local' },
              summary: { ...r.summary, cachedInputTokens: undefined, costUsd: 0, ...(i === 2 ? { status: 'truncated' as const, failedStep: 2, failure: 'the provider counted 900 prompt tokens at step 2' } : {}) },
            },
      );
    const page = renderReport(local(), meta);

    it('shows cached as n/a and the cost as local for runs on a local model that report no cache hits', () => {
      const codex = summaryRows(page).find((row) => row[0] === 'codex (summarization)')!;
      expect(codex).toContain('n/a');
      expect(codex).toContain('local');
      expect(page).toContain('local (a model on your own hardware): $0');
    });

    it('counts truncated runs in a column of their own, names them in the header, and marks their status', () => {
      expect(summaryRows(page).map((row) => row[3])).toEqual(['0', '0', '1']);
      expect(page).toMatch(/<dt>Truncated<\/dt><dd>1 of 6 runs: the provider counted far fewer prompt tokens than were sent/);
      expect(page).toContain('truncated from step 2');
    });
  });

  it('has one matrix row per scenario with each cell outcome, overflow marked', () => {
    const matrix = /<section id="matrix">([^]*?)<\/section>/.exec(html)![1]!;
    const rows = matrix.match(/<tr data-scenario[^>]*>\s*<th scope="row">/g);
    expect(rows).toHaveLength(2);
    expect(matrix).toContain('Add login rate limiting');
    expect(matrix).toMatch(/<div class="cell overflow" title="context of 7000 tokens exceeds the 8000 window">\s*<a class="status" href="#run-3">overflow at step 5<\/a>/);
    // Every run links to its timeline, by its place in the embedded data.
    expect([...matrix.matchAll(/href="#run-(\d+)"/g)].map((m) => Number(m[1]))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(matrix).toContain('4 / 7 steps');
    expect(matrix.match(/class="cell completed"/g)).toHaveLength(5);
    expect(matrix).toContain('peak 87.5% · 0 restarts');
    expect(matrix).toContain('· 1 restart</div>'); // singular, as the matrix's size: 2 scenarios × 3 configurations
    expect(renderReport(sampleRuns().slice(0, 1), meta)).toContain('<summary>1 scenario × 1 configuration</summary>');
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
      'probes 1/2 (v1 s0 r0) · ref recall 100.0% over the 4 of 7 steps reached',
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
    // Exactly the four inline scripts: data, uPlot, page, timelines.
    expect(html.match(/<script/g)).toHaveLength(4);
    expect(html.match(/<\/script>/g)).toHaveLength(4);
  });

  it('writes out the bidirectional controls of scenario text, so none reorders what is around it', () => {
    const bidi = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    const runs = sampleRuns().map((r) => ({
      ...r,
      config: { ...r.config, scenarioId: `${r.config.scenarioId}\u2067`, scenarioTitle: 'Fix bug \u202eelif-tset', model: 'gpt-4o\u202e', strategy: `${r.config.strategy}\u200f` },
      events: [...r.events, { step: 2, session: 1, kind: 'summarized' as const, detail: 'tool \u2066bash\u2069 output', text: 'kept \u202dtext\u202c' }],
      probes: r.probes.map((p) => ({ ...p, answer: `${p.answer}\u061c` })),
    }));
    const page = renderReport(runs, meta);
    expect(page).not.toMatch(bidi);
    expect(page).toContain('Fix bug \\u202eelif-tset');
    expect(page).toContain('gpt-4o\\u202e');
    const timelines = timelinesOf(page);
    expect(JSON.stringify(timelines)).not.toMatch(bidi);
    expect(timelines[0]!.events.at(-1)).toMatchObject({ detail: 'tool \\u2066bash\\u2069 output', text: 'kept \\u202dtext\\u202c' });
  });

  it('embeds the chart data as parseable JSON with the right series', () => {
    const data = dataOf(html);
    expect(data.charts.map((c) => c.scenarioId)).toEqual(['swe-auth-001', 'bad"id<i>']);

    const [a, b] = data.charts as [ChartData, ChartData];
    expect(b.title).toBe(HOSTILE_TITLE);
    // Short runs are drawn whole: every agent request.
    for (const s of a.series) expect(s.x).toEqual([1, 2, 3, 4, 5, 6]);
    expect(a.series.map((s) => s.label)).toEqual(['raw', 'masking', 'codex (summarization)', 'recorded provider usage']);
    expect(a.series[0]!.y).toEqual([900, 2100, 3300, 4400, 5200, 6100]);
    expect(a.series[3]!.y).toEqual([950, 2180, 3390, 4520, 5350, 6240]);
    // The curve follows agent requests: the preset's summary request (step 5) is not on it.
    expect(a.series[2]!.y).toEqual([900, 2100, 3300, 4400, 2000, 2600]);
    expect(a.lines).toContainEqual(expect.objectContaining({ kind: 'window', value: WINDOW }));
    expect(a.lines).toContainEqual(expect.objectContaining({ kind: 'threshold', value: 4800, label: 'masking: mask_at 60.0% = 4,800' }));
    // Each strategy series points at its run's timeline, where hovering reads sessions and events.
    expect(strategySeries(a).map((s) => s.run)).toEqual([0, 1, 2]);
    expect(strategySeries(b).map((s) => s.run)).toEqual([3, 4, 5]);
    expect(timelinesOf(html)[4]!.steps.session).toEqual([1, 1, 1, 1, 2, 2, 2]);

    // The overflowing request was never sent: its marker sits on the event's count, past the curve.
    expect(b.series.map((s) => s.label)).toEqual(['raw', 'masking', 'codex (summarization)']);
    const [raw] = strategySeries(b) as [StrategySeries];
    expect(raw.x).toEqual([1, 2, 3, 4]);
    expect(raw.y).toEqual([1500, 3200, 5100, 7000]);
    expect(b.markers).toEqual([
      { kind: 'overflow', series: 0, x: 5, y: 8900 },
      { kind: 'restart', series: 1, x: 5, y: 1200 },
      { kind: 'summarized', series: 2, x: 5, y: 2100 },
    ]);
  });

  it('marks each kind of action once per step, on the request it shaped', () => {
    const [a] = dataOf(html).charts as [ChartData];
    // Masking at steps 5 and 6 is one stretch: marked where it starts.
    expect(a.markers).toEqual([
      { kind: 'masked', series: 1, x: 5, y: 3900 },
      { kind: 'summarized', series: 2, x: 5, y: 2000 },
    ]);
    const [run] = sampleRuns();
    const noisy = {
      ...run!,
      events: [
        { step: 2, session: 1, kind: 'masked' as const, messageId: 'a', detail: 'bash output masked' },
        { step: 2, session: 1, kind: 'masked' as const, messageId: 'b', detail: 'bash output masked' },
        { step: 3, session: 1, kind: 'warned' as const, detail: 'context at 80%' },
        { step: 3, session: 1, kind: 'offloaded' as const, detail: 'saved a.txt' },
        { step: 9, session: 1, kind: 'removed' as const, detail: 'after the last request', tokensAfter: 700 },
        { step: 10, session: 1, kind: 'removed' as const, detail: 'no count, no request: no marker' },
      ],
    };
    expect((dataOf(renderReport([noisy], meta)).charts[0] as ChartData).markers).toEqual([
      { kind: 'masked', series: 0, x: 2, y: 2100 },
      { kind: 'offloaded', series: 0, x: 3, y: 3300 },
      { kind: 'removed', series: 0, x: 9, y: 700 },
    ]);
  });

  it('embeds one timeline per run: requests, what the strategy did to which messages, its text, probes', () => {
    const runs = timelinesOf(html);
    expect(runs.map((r) => `${r.label}: ${r.status}`)).toEqual([
      'raw: completed',
      'masking: completed',
      'codex (summarization): completed',
      'raw: overflow at step 5',
      'masking: completed',
      'codex (summarization): completed',
    ]);
    const codex = runs[2]!;
    // Requests by column: steps 1-6 with the summary request before the agent's at step 5, its purpose
    // named by position; steps and tokens as differences from the request before.
    expect(codex.steps).toEqual({
      step: [1, 1, 1, 1, 1, 0, 1],
      session: [1, 1, 1, 1, 1, 1, 1],
      tokens: [900, 1200, 1200, 1100, 100, -2500, 600],
      purpose: [[4, 'summary']],
    });
    expect(codex.events).toEqual([
      { step: 5, kind: 'summarized', detail: 'steps 1-4 replaced by a handoff summary', ids: ['m1', 'm2', 'm3'], text: SUMMARY_TEXT },
    ]);
    expect(codex.probes).toEqual([
      { step: 3, id: 'probe-1', how: 'verbatim', answer: 'answer 1' },
      { step: 6, id: 'probe-2', how: 'summary', answer: 'answer 2' },
    ]);
    // Masking is one entry per step listing the masked outputs.
    expect(runs[1]!.events).toEqual([
      { step: 5, kind: 'masked', detail: '1 tool output', ids: ['m7'] },
      { step: 6, kind: 'masked', detail: '1 tool output', ids: ['m9'] },
    ]);
    expect(runs[3]!.failure).toBe('context of 7000 tokens exceeds the 8000 window');
    // The picker lists the runs by scenario.
    expect(html).toContain('<optgroup label="Add login rate limiting (swe-auth-001)"><option value="0">raw: completed</option>');
  });

  it('escapes what a timeline carries: summaries and answers stay text inside the JSON', () => {
    const data = /<script type="application\/json" id="ctxbench-data">([^]*?)<\/script>/.exec(html)![1]!;
    expect(data).not.toMatch(/[<\u2028\u2029]/);
    expect(timelinesOf(html)[3]!.probes[0]!.answer).toBe(`answer 1 ${INJECTION}`);
  });

  it('summarises each scenario group (the folder a scenario came from) apart, behind buttons', () => {
    expect(html).not.toContain('class="tabs"');
    const runs = sampleRuns().map((r) =>
      r.config.scenarioId === 'swe-auth-001' ? { ...r, config: { ...r.config, scenarioFile: 'suites/recorded/swe-auth-001.json' } } : r,
    );
    const page = renderReport(runs, meta);
    const buttons = [...page.matchAll(/<button type="button" data-target="([^"]+)" aria-pressed="(\w+)">([^<]+)<span class="sub">\((\d+)\)/g)].map((m) => m.slice(1).join(' '));
    expect(buttons).toEqual(['summary-all true All scenarios  2', 'summary-group-0 false recorded  1', 'summary-group-1 false scenarios  1']);
    expect(page).toContain('<div class="summary-group" id="summary-group-0" hidden>');
    // The recorded group alone: raw completed it, so its completion is 1/1.
    const group = /<div class="summary-group" id="summary-group-0" hidden>([^]*?)<\/table>/.exec(page)![1]!;
    expect(group).toMatch(/data-sort="raw">[^]*?<td data-sort="1"[^>]*>1\/1/);
  });

  it('states the recommended default, the rule that picked it and its runner-up first, with every point in a table', () => {
    const main = /<main>\s*<section id="recommendation">([^]*?)<\/section>/.exec(html)![1]!;
    expect(main).toContain('Recommended default: <strong>codex (summarization)</strong>');
    expect(main).toContain(
      'The cheapest configuration (by billed input tokens) whose success is within 1 percentage point of the best (91.9%): codex (summarization), 91.9% for 49,800 tokens.',
    );
    expect(main).toContain('Runner-up (the same rule without it): masking, 81.9% for 41,600 tokens.');
    const pareto = /<section id="pareto">([^]*?)<\/section>/.exec(html)![1]!;
    const rows = [...pareto.matchAll(/<tr(?: class="recommended")?><th scope="row">[^]*?<\/svg>([^<]+)[^]*?<td>([^<]+)<\/td><td>([^<]+)<\/td><td>(\w+)<\/td><\/tr>/g)].map((m) => m.slice(1).map((cell) => cell.trim()).join(' | '));
    expect(rows).toEqual(['raw | 38,800 tokens | 50.0% | yes', 'masking | 41,600 tokens | 81.9% | yes', 'codex (summarization) | 49,800 tokens | 91.9% | yes']);
    expect(dataOf(html).pareto.points.filter((p) => p.recommended).map((p) => p.label)).toEqual(['codex (summarization)']);
  });

  it('shows the baseline diff only when given one, regressions red and improvements green', () => {
    expect(html).not.toContain('id="baseline"');
    const runs = sampleRuns();
    const base = Object.fromEntries(metricsByKey(runs, 'test'));
    base['raw|swe-auth-001'] = { ...base['raw|swe-auth-001']!, inputTokens: 1000, cachedInputTokens: null };
    base['masking|swe-auth-001'] = { ...base['masking|swe-auth-001']!, probesPassed: 2 };
    const page = renderReport(runs, { ...meta, baseline: { file: 'old.duckdb', description: 'batch b0 <i>', runs: base } });
    const section = /<section id="baseline">([^]*?)<\/section>/.exec(page)![1]!;
    expect(section).toContain('<code>old.duckdb</code>: batch b0 &lt;i&gt;');
    expect(section).toContain('<span class="regression">2 regressions</span>');
    expect(section).toContain('<span class="same">0 improvements</span>');
    expect(section).toMatch(/<tr class="regression"><td>regression<\/td><td class="key">raw\|swe-auth-001<\/td><td>inputTokens<\/td><td>1,000<\/td><td>22,000<\/td>/);
    expect(section).toMatch(/<tr class="regression"><th scope="row">probesPassed<\/th><td>11<\/td><td>10<\/td>/);
  });

  it('names a changed configuration at the top of the baseline diff', () => {
    const runs = sampleRuns();
    const configs = Object.fromEntries(configsByKey(runs, 'test'));
    configs['masking|swe-auth-001'] = { ...configs['masking|swe-auth-001']!, window: 65_536 };
    const baseline = { file: 'b.json', description: 'baseline file', runs: Object.fromEntries(metricsByKey(runs, 'test')), configs };
    const section = /<section id="baseline">([^]*?)<\/section>/.exec(renderReport(runs, { ...meta, baseline }))![1]!;
    const notes = /<ul class="baseline-notes">([^]*?)<\/ul>/.exec(section)![1]!;
    expect(notes).toContain(`<li>configuration changed: window 65536 -&gt; ${runs[0]!.config.window} (1 run: masking|swe-auth-001)</li>`);
    expect(section.indexOf('baseline-notes')).toBeLessThan(section.indexOf('class="verdict"'));
  });

  it('splits a strategy into columns when its runs differ in params', () => {
    const runs = sampleRuns();
    const [, masking] = runs as [RunResult, RunResult];
    const other = { ...masking, runId: 'other', config: { ...masking.config, params: { keep_last: 4 } } };
    const page = renderReport([...runs, other], meta);
    const header = /<table class="grid matrix">[^]*?<\/thead>/.exec(page)![0].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
    expect(header).toBe('Scenario raw masking (keep_last&#x3D;2) codex (summarization) masking (keep_last&#x3D;4)');
  });

  it('says when the recommended setting of a sweep is at the edge of its grid', () => {
    const [, masking] = sampleRuns() as [RunResult, RunResult];
    // The same runs at three settings: equal success and cost, so the first column, keep_last=2, is picked.
    const sweep = [2, 4, 8].map((keep) => ({ ...masking, runId: `keep-${keep}`, config: { ...masking.config, params: { keep_last: keep } } }));
    const top = /<section id="recommendation">([^]*?)<\/section>/.exec(renderReport(sweep, meta))![1]!;
    expect(top).toContain('Recommended default: <strong>masking (keep_last&#x3D;2)</strong>');
    expect(top).toContain('At the edge of the grid: extend it (keep_last&#x3D;2, the smallest of 2 to 8); a better setting may lie beyond.');
    expect(html).not.toContain('At the edge of the grid');
  });

  it('renders a page without runs', () => {
    const empty = renderReport([], { ...meta, title: 'Nothing yet' });
    expect(empty).toContain('No runs to report.');
    expect(dataOf(empty)).toEqual({ charts: [], runs: [], pareto: { axis: 'dollars', points: [] }, sweeps: [] });
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

describe('HTML_REPORT', () => {
  it('recognizes a rendered page by its generator marker, and nothing else', () => {
    const page = renderReport(sampleRuns(), meta);
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="generator" content="ctxbench 0\.1\.0">/);
    expect(HTML_REPORT.matches(Buffer.from(page))).toBe(true);
    // A report of a version before the marker: recognized by its title, so upgrading keeps `bench run` writing it.
    expect(HTML_REPORT.matches(Buffer.from(page.replace(/<meta name="generator"[^>]*>\n/, '')))).toBe(true);
    for (const other of ['<!doctype html><p>a page of someone else</p>', '{"ctxbench": 1, "note": "<meta name=\\"generator\\" content=\\"ctxbench 0.1.0\\">"}', '']) {
      expect(HTML_REPORT.matches(Buffer.from(other))).toBe(false);
    }
  });
});
