import { describe, expect, it } from 'vitest';
import { DEFAULT_TOLERANCES, type RunMetrics } from '../metrics/run-metrics.js';
import { parseBaseline, serializeBaseline, type Baseline } from './baseline.js';
import { compareRuns, parseTolerances, type Finding } from './compare.js';
import { benchmarkJson, formatMarkdown, formatText } from './output.js';

const RUN: RunMetrics = {
  status: 'completed',
  steps: 100,
  inputTokens: 1_000_000,
  outputTokens: 10_000,
  overheadTokens: 5_000,
  cachedInputTokens: 800_000,
  peakContextPct: 0.5,
  probesPassed: 8,
  probesTotal: 10,
  referencePresent: 90,
  referenceTotal: 100,
  costUsd: 3,
};
const run = (patch: Partial<RunMetrics> = {}): RunMetrics => ({ ...RUN, ...patch });
const brief = (findings: readonly Finding[]): string[] => findings.map((f) => `${f.key} ${f.metric}`);
const one = (patch: Partial<RunMetrics>, tolerances = DEFAULT_TOLERANCES) =>
  compareRuns({ 'masking|a': run() }, { 'masking|a': run(patch) }, tolerances);

describe('compareRuns', () => {
  it('finds nothing when runs are identical', () => {
    const c = one({});
    expect(c).toEqual({ regressions: [], improvements: [], missingFromCandidate: [], newInCandidate: [], compared: 1 });
  });

  it('more tokens or cost is worse, within a relative 2% by default', () => {
    expect(brief(one({ inputTokens: 1_020_000 }).regressions)).toEqual([]); // exactly 2%: allowed
    expect(brief(one({ inputTokens: 1_020_001 }).regressions)).toEqual(['masking|a inputTokens']);
    expect(brief(one({ outputTokens: 10_300, overheadTokens: 5_200, costUsd: 3.1 }).regressions)).toEqual([
      'masking|a outputTokens',
      'masking|a overheadTokens',
      'masking|a costUsd',
    ]);
    const better = one({ inputTokens: 900_000, costUsd: 2.5 });
    expect(better.regressions).toEqual([]);
    expect(brief(better.improvements)).toEqual(['masking|a inputTokens', 'masking|a costUsd']);
    expect(better.improvements[0]).toMatchObject({ baseline: 1_000_000, candidate: 900_000, delta: -100_000, kind: 'improvement' });
  });

  it('fewer cached input tokens, probes passed, steps or reference recall is worse', () => {
    expect(brief(one({ cachedInputTokens: 700_000 }).regressions)).toEqual(['masking|a cachedInputTokens']);
    expect(brief(one({ probesPassed: 7 }).regressions)).toEqual(['masking|a probesPassed']); // abs 0
    expect(brief(one({ probesPassed: 9 }).improvements)).toEqual(['masking|a probesPassed']);
    expect(brief(one({ steps: 99 }).regressions)).toEqual(['masking|a steps']);
    // recall 90% -> 89.6% (-0.4 pp) is within 0.5 pp; 89% (-1 pp) is not.
    expect(one({ referencePresent: 448, referenceTotal: 500 }).regressions).toEqual([]);
    expect(brief(one({ referencePresent: 89 }).regressions)).toEqual(['masking|a referenceRecall']);
    expect(brief(one({ referencePresent: 95 }).improvements)).toEqual(['masking|a referenceRecall']);
  });

  it('a higher peak context is worse beyond 0.02 absolute', () => {
    expect(one({ peakContextPct: 0.515 }).regressions).toEqual([]);
    expect(brief(one({ peakContextPct: 0.53 }).regressions)).toEqual(['masking|a peakContextPct']);
    expect(brief(one({ peakContextPct: 0.45 }).improvements)).toEqual(['masking|a peakContextPct']);
  });

  it('applies overridden absolute and relative tolerances', () => {
    const loose = parseTolerances(['inputTokens=rel:10%', 'peakContextPct=abs:0.1', 'probesPassed=abs:2']);
    expect(one({ inputTokens: 1_090_000, peakContextPct: 0.59, probesPassed: 6 }, loose).regressions).toEqual([]);
    expect(brief(one({ inputTokens: 1_110_000, probesPassed: 5 }, loose).regressions)).toEqual([
      'masking|a inputTokens',
      'masking|a probesPassed',
    ]);
    const absTokens = parseTolerances(['inputTokens=abs:500']);
    expect(brief(one({ inputTokens: 1_000_501 }, absTokens).regressions)).toEqual(['masking|a inputTokens']);
    expect(one({ inputTokens: 1_000_500 }, absTokens).regressions).toEqual([]);
    expect(parseTolerances(['costUsd=rel:0.05']).costUsd).toEqual({ kind: 'rel', value: 0.05 });
  });

  it('rejects malformed tolerances with a one-line message naming the flag', () => {
    expect(() => parseTolerances(['inputTokens'])).toThrow(/^--tolerance inputTokens: expected metric=abs:X/);
    expect(() => parseTolerances(['bogus=abs:1'])).toThrow(/--tolerance bogus=abs:1: expected a metric among steps, inputTokens/);
    expect(() => parseTolerances(['status=abs:1'])).toThrow(/expected a metric among/);
    expect(() => parseTolerances(['steps=abs:5%'])).toThrow(/only for rel/);
    expect(() => parseTolerances(['steps=abs:-1'])).toThrow(/at least 0/);
  });

  it('completed -> truncated, overflow, error or stopped is a regression; the other metrics of that run are not compared', () => {
    for (const status of ['truncated', 'overflow', 'error', 'stopped'] as const) {
      const c = one({ status, steps: 40, inputTokens: 100 });
      expect(brief(c.regressions)).toEqual(['masking|a status']);
      expect(c.regressions[0]).toMatchObject({ baseline: 'completed', candidate: status, delta: null });
      expect(c.improvements).toEqual([]);
    }
    const fixed = compareRuns({ 'raw|a': run({ status: 'overflow' }) }, { 'raw|a': run() });
    expect(brief(fixed.improvements)).toEqual(['raw|a status']);
    expect(compareRuns({ 'raw|a': run({ status: 'overflow' }) }, { 'raw|a': run({ status: 'error' }) }).regressions).toEqual([]);
    // Same failed status: the steps it reached still count.
    expect(brief(compareRuns({ 'raw|a': run({ status: 'overflow', steps: 50 }) }, { 'raw|a': run({ status: 'overflow', steps: 40 }) }).regressions)).toEqual(['raw|a steps']);
  });

  it('skips metrics unknown on either side (no price, no recorded references, zero references, no reported cache hits)', () => {
    expect(one({ costUsd: null, referencePresent: null, referenceTotal: null, cachedInputTokens: null }).regressions).toEqual([]);
    expect(compareRuns({ 'x|a': run({ referencePresent: 0, referenceTotal: 0 }) }, { 'x|a': run({ referencePresent: 0, referenceTotal: 0 }) }).regressions).toEqual([]);
  });

  it('a zero baseline allows no relative growth', () => {
    expect(brief(compareRuns({ 'x|a': run({ overheadTokens: 0 }) }, { 'x|a': run({ overheadTokens: 1 }) }).regressions)).toEqual(['x|a overheadTokens']);
  });

  it('reports runs missing from either side without counting them as regressions', () => {
    const c = compareRuns({ 'raw|a': run(), 'raw|b': run(), 'masking|a': run() }, new Map([['raw|a', run()], ['window|a', run()]]));
    expect(c.missingFromCandidate).toEqual(['masking|a', 'raw|b']);
    expect(c.newInCandidate).toEqual(['window|a']);
    expect(c.compared).toBe(1);
    expect(c.regressions).toEqual([]);
    expect(formatText(c)).toContain('Missing from the candidate: masking|a, raw|b');
    expect(formatText(c)).toContain('0 regressions, 0 improvements over 1 run compared; 2 missing from the candidate, 1 not in the baseline');
  });
});

describe('output', () => {
  const baseline = { 'masking|a': run(), 'raw|a': run({ inputTokens: 2_000_000 }) };
  const candidate = new Map([
    ['masking|a', run({ inputTokens: 1_100_000 })],
    ['raw|a', run({ inputTokens: 2_000_000, status: 'overflow' })],
  ]);
  const c = compareRuns(baseline, candidate);

  it('prints a table of regressions and improvements with deltas, then the counts', () => {
    const text = formatText(c);
    expect(text).toMatch(/REGRESSION\s+inputTokens\s+masking\|a\s+1,000,000\s+1,100,000\s+\+100,000 \(\+10\.0%\)/);
    expect(text).toMatch(/REGRESSION\s+status\s+raw\|a\s+completed\s+overflow/);
    expect(text.trim().split('\n').at(-1)).toBe('2 regressions, 0 improvements over 2 runs compared; 0 missing from the candidate, 0 not in the baseline');
  });

  it('writes github-action-benchmark entries per strategy, all smaller-is-better', () => {
    const entries = benchmarkJson(candidate);
    expect(entries).toContainEqual({ name: 'masking: input tokens', unit: 'tokens', value: 1_100_000, extra: '1 runs' });
    expect(entries).toContainEqual({ name: 'raw: runs not completed', unit: 'runs', value: 1, extra: '1 runs' });
    expect(entries).toContainEqual({ name: 'masking: probes lost', unit: 'probes', value: 2, extra: '1 runs' });
    expect(entries.every((e) => typeof e.name === 'string' && typeof e.unit === 'string' && Number.isFinite(e.value))).toBe(true);
  });

  it('writes a markdown summary with the verdict, findings and per-strategy totals', () => {
    const md = formatMarkdown(c, baseline, candidate);
    expect(md).toContain('## ctxbench check: FAIL');
    expect(md).toContain('| inputTokens | masking\\|a | 1,000,000 | 1,100,000 | +100,000 (+10.0%) | ❌ regression |');
    expect(md).toContain('| masking | 1 | 1,000,000 → 1,100,000 |');
  });
});

describe('baseline file', () => {
  const baseline: Baseline = { format: 1, created: '2025-01-01T00:00:00.000Z', version: '0.1.0', command: 'bench run', runs: { 'raw|a': run() } };

  it('round-trips', () => {
    expect(parseBaseline(serializeBaseline(baseline), 'b.json')).toEqual(baseline);
  });

  it('keeps a truncated run and unknown cache hits (a live provider that reports none)', () => {
    const live: Baseline = { ...baseline, runs: { 'raw|a': run({ status: 'truncated', cachedInputTokens: null }) } };
    expect(parseBaseline(serializeBaseline(live), 'b.json')).toEqual(live);
  });

  it('rejects malformed files with one line naming the file', () => {
    expect(() => parseBaseline('{', 'b.json')).toThrow(/^b\.json: not valid JSON/);
    expect(() => parseBaseline('[]', 'b.json')).toThrow(/^b\.json: expected a JSON object/);
    expect(() => parseBaseline('{"format":2,"runs":{}}', 'b.json')).toThrow(/^b\.json: unsupported format 2/);
    const broken = JSON.parse(serializeBaseline(baseline));
    broken.runs['raw|a'].inputTokens = 'many';
    expect(() => parseBaseline(JSON.stringify(broken), 'b.json')).toThrow('b.json: runs["raw|a"].inputTokens must be a number');
    broken.runs['raw|a'].status = 'fine';
    expect(() => parseBaseline(JSON.stringify(broken), 'b.json')).toThrow(/runs\["raw\|a"\]\.status must be one of/);
  });
});
