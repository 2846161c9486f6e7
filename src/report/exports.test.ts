import { describe, expect, it } from 'vitest';
import { configsByKey, metricsByKey } from '../gate/baseline.js';
import type { RunResult } from '../core/run-records.js';
import { INJECTION, sampleRuns } from '../../test/helpers/report-fixtures.js';
import { reportCsv, reportJson, reportMarkdown } from './exports.js';
import { outputFormat, renderOutput } from './outputs.js';

const meta = { generatedAt: new Date('2025-01-02T03:04:05Z'), version: '0.1.0' };

/** A minimal RFC 4180 reader: enough to check that quoting round-trips. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += ch;
  }
  return rows;
}

describe('outputFormat', () => {
  it('follows the extension, and names the flag for an unknown one', () => {
    expect(['r.html', 'r.HTM', 'r.json', 'r.csv', 'r.md', 'r.markdown'].map(outputFormat)).toEqual(['html', 'html', 'json', 'csv', 'markdown', 'markdown']);
    expect(() => outputFormat('report.pdf')).toThrow('-o report.pdf: unknown output format ".pdf"; use .html, .json, .csv or .md');
    expect(() => outputFormat('report')).toThrow('-o report: unknown output format "(no extension)"');
  });
});

describe('reportCsv', () => {
  const runs = sampleRuns();
  const rows = parseCsv(reportCsv(runs));

  it('has a header and one row per run, quoted so every value comes back', () => {
    expect(rows).toHaveLength(runs.length + 1);
    const header = rows[0]!;
    const at = (row: number, name: string): string => rows[row]![header.indexOf(name)]!;
    expect(at(4, 'scenario_id')).toBe('bad"id<i>');
    expect(at(4, 'status')).toBe('overflow');
    expect(at(4, 'failed_step')).toBe('5');
    expect(at(3, 'configuration')).toBe('codex (summarization)');
    expect(at(3, 'cost_usd')).toBe(''); // unknown, not 0
    expect(at(1, 'success')).toBe('1');
    expect(rows.every((row) => row.length === header.length)).toBe(true);
  });

  it('keeps a scenario id from running as a spreadsheet formula', () => {
    const [run] = sampleRuns() as [RunResult];
    const hostile = { ...run, config: { ...run.config, scenarioId: '=HYPERLINK("http://x","y")' } };
    const [, row] = parseCsv(reportCsv([hostile]));
    expect(row![2]).toBe('\'=HYPERLINK("http://x","y")');
  });
});

describe('reportJson', () => {
  const runs = sampleRuns();
  const json = JSON.parse(reportJson(runs, meta));

  it('states the recommendation, the configurations and every run with its metrics', () => {
    expect(json.format).toBe(3);
    // codex keeps the most (91.9% vs masking's 81.9%) and costs tokens: nothing within a point is cheaper.
    expect(json.recommended.configuration).toBe('codex (summarization)');
    expect(json.recommended.costAxis).toBe('billed input tokens');
    expect(json.configurations.map((c: { configuration: string }) => c.configuration)).toEqual(['raw', 'masking', 'codex (summarization)']);
    const codex = json.configurations[2];
    expect(codex).toMatchObject({ runs: 2, completed: 2, probesPassed: 4, probesTotal: 4, costUsd: null, pricedRuns: 0, overheadTokens: 10_850 });
    expect(json.runs).toHaveLength(6);
    expect(json.runs[3]).toMatchObject({ scenarioId: 'bad"id<i>', status: 'overflow', probesPassed: 1, success: 0 });
    expect(json.baseline).toBeNull();
  });

  it('regression: carries every number the summary tables print (bench run --json gives the same), a failed run\'s step and reason', () => {
    const raw = json.configurations[0];
    expect(raw).toMatchObject({ steps: expect.any(Number), totalSteps: expect.any(Number), sessions: expect.any(Number), truncated: 0, probesAnswered: false });
    expect(raw.peakContextPct).toBeGreaterThanOrEqual(raw.meanPeakContextPct);
    expect(Object.keys(raw.recallByOutcome)).toEqual(['resolved', 'unresolved']);
    expect(json.runs[3]).toMatchObject({ failedStep: 5, failure: expect.any(String), totalSteps: runs[3]!.summary.totalSteps, sessions: runs[3]!.summary.sessions });
    expect(json.runs[1]).toMatchObject({ failedStep: null, failure: null, outcome: runs[1]!.config.outcome ?? null });
  });

  it('regression: says what the page says of a stored calibration: its warning first among the notes, and the header fact', () => {
    const calibration = [
      { batchId: 'b1', model: 'gpt-4o', encoding: 'o200k_base', factor: 1.16, overhead: 0, source: 'fitted' as const, samples: 40, scenarios: 4, outOfSample: { meanAbsPctError: 7.26, meanPctError: 1 } },
    ];
    const out = JSON.parse(reportJson(runs, { ...meta, calibration }));
    expect(out.notes[0]).toBe('Warning: the token calibration of gpt-4o is off by 7.3% out of sample (above 5%): the token counts of its scenarios, and the thresholds they cross, are that uncertain.');
    expect(out.notes.slice(1)).toEqual(json.notes);
    expect(out.facts['Token calibration']).toBe('gpt-4o ×1.160 (fitted on 40 requests of 4 scenarios; 7.3% off out of sample)');
  });

  it('gives unknown cache hits (a live provider that reports none) as null, in a configuration and in a run (format 3)', () => {
    const unknown = runs.map((r) => (r.config.strategy === 'codex' ? { ...r, summary: { ...r.summary, cachedInputTokens: undefined } } : r));
    const out = JSON.parse(reportJson(unknown, meta));
    expect(out.configurations[2].cachedInputTokens).toBeNull();
    expect(out.runs.filter((r: { strategy: string }) => r.strategy === 'codex').map((r: { cachedInputTokens: unknown }) => r.cachedInputTokens)).toEqual([null, null]);
    expect(out.configurations[0].cachedInputTokens).toEqual(expect.any(Number));
  });

  it('carries the baseline comparison when there is one', () => {
    const baselineRuns = Object.fromEntries(metricsByKey(runs, 'test'));
    baselineRuns['raw|swe-auth-001'] = { ...baselineRuns['raw|swe-auth-001']!, inputTokens: 1000, cachedInputTokens: null };
    const withBaseline = JSON.parse(reportJson(runs, { ...meta, baseline: { file: 'b.json', description: 'baseline file', runs: baselineRuns } }));
    expect(withBaseline.baseline.regressions).toEqual([
      { key: 'raw|swe-auth-001', metric: 'inputTokens', baseline: 1000, candidate: 22_000, delta: 21_000, kind: 'regression' },
    ]);
  });
});

describe('reportMarkdown', () => {
  it('gives the recommendation and the summary, best values bold, pipes escaped', () => {
    const md = renderOutput('markdown', sampleRuns(), meta);
    expect(md).toMatch(/^## ctxbench report\n/);
    expect(md).toContain('**Recommended default: codex (summarization).** The cheapest configuration (by billed input tokens)');
    expect(md).toContain('| strategy | Completed | Overflow | Probes passed |');
    expect(md).toContain('| masking | **2/2** | 0 | 3/4 (v3 s0 r0) |');
    expect(md).not.toContain('\u00AD');
    expect(md).not.toContain(INJECTION);
  });

  it('says there is nothing to recommend when no configuration completed, and no "Bold" note over a table with none', () => {
    const overflowed = sampleRuns().map((r) => ({ ...r, summary: { ...r.summary, status: 'overflow' as const } }));
    const md = renderOutput('markdown', overflowed, meta);
    expect(md).toMatch(/\n\*\*No configuration completed a run .*: nothing to recommend; try a larger window or other settings\.\*\*\n/);
    expect(md).not.toContain('Recommended default');
    expect(md).not.toContain('Bold:');
    expect(renderOutput('markdown', sampleRuns(), meta)).toContain('Bold: ');
  });

  it('regression: free text from a recording (a model name with HTML) is written as text, not markup', () => {
    const model = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const runs = sampleRuns().map((r) => ({ ...r, config: { ...r.config, model, priceModel: model } }));
    const md = renderOutput('markdown', runs, meta);
    expect(md).toContain('&lt;img src=x onerror="alert(1)"&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(md).not.toMatch(/<img|<script/);
  });

  it('appends bench check’s verdict against a baseline', () => {
    const runs = sampleRuns();
    const baseline = { file: 'b.json', description: 'baseline file', runs: Object.fromEntries(metricsByKey(runs, 'test')) };
    const md = reportMarkdown(runs, { ...meta, baseline });
    expect(md).toContain('Baseline: `b.json`, baseline file');
    expect(md).toContain('## ctxbench check: pass');
    expect(md).toContain('0 regressions, 0 improvements over 6 runs compared');
  });

  it('names a changed configuration in the verdict, the markdown and the JSON', () => {
    const runs = sampleRuns();
    const configs = Object.fromEntries(configsByKey(runs, 'test'));
    configs['raw|swe-auth-001'] = { ...configs['raw|swe-auth-001']!, model: 'gpt-4o-mini' };
    const baseline = { file: 'b.json', description: 'baseline file', runs: Object.fromEntries(metricsByKey(runs, 'test')), configs };
    const md = reportMarkdown(runs, { ...meta, baseline });
    expect(md).toContain('## ctxbench check: FAIL');
    expect(md).toContain(`- configuration changed: model gpt-4o-mini -&gt; ${runs[0]!.config.model} (1 run: raw\\|swe-auth-001)`);
    const json = JSON.parse(reportJson(runs, { ...meta, baseline }));
    expect(json.baseline.configurationChanged).toEqual([{ key: 'raw|swe-auth-001', changes: [`model gpt-4o-mini -> ${runs[0]!.config.model}`] }]);
  });
});
