import { describe, expect, it } from 'vitest';
import type { RunMetrics } from '../metrics/run-metrics.js';
import { baselineDiff } from './baseline-diff.js';

const metrics = (overrides: Partial<RunMetrics> = {}): RunMetrics => ({
  status: 'completed',
  steps: 10,
  inputTokens: 100_000,
  outputTokens: 1_000,
  overheadTokens: 0,
  cachedInputTokens: 50_000,
  peakContextPct: 0.8,
  probesPassed: 4,
  probesTotal: 5,
  referencePresent: 9,
  referenceTotal: 10,
  costUsd: 1,
  ...overrides,
});

const source = (runs: Record<string, RunMetrics>) => ({ file: 'old.duckdb', description: 'batch b1', runs });

describe('baselineDiff', () => {
  const diff = baselineDiff(
    source({
      'masking|s1': metrics(),
      'masking|s2': metrics({ inputTokens: 200_000 }),
      'raw|s1': metrics(),
      'raw|gone': metrics(),
    }),
    new Map([
      ['masking|s1', metrics({ inputTokens: 150_000, costUsd: 1.5, probesPassed: 3 })],
      ['masking|s2', metrics({ inputTokens: 100_000, outputTokens: 1_001 })],
      ['raw|s1', metrics({ status: 'overflow', steps: 6 })],
      ['raw|new', metrics()],
    ]),
  );

  it('counts regressions and improvements as bench check does', () => {
    expect([diff.regressions, diff.improvements]).toEqual([4, 1]);
    expect([diff.regressionsText, diff.improvementsText]).toEqual(['4 regressions', '1 improvement']);
    expect(diff.counts).toBe('4 regressions, 1 improvement over 3 runs compared; 1 missing from the candidate, 1 not in the baseline');
    expect(diff.missing).toEqual(['raw|gone']);
    expect(diff.added).toEqual(['raw|new']);
  });

  it('lists each finding with formatted values and deltas, regressions first', () => {
    expect(diff.findings).toEqual([
      { kind: 'regression', run: 'masking|s1', metric: 'inputTokens', baseline: '100,000', candidate: '150,000', delta: '+50,000 (+50.0%)' },
      { kind: 'regression', run: 'masking|s1', metric: 'probesPassed', baseline: '4', candidate: '3', delta: '-1 (-25.0%)' },
      { kind: 'regression', run: 'masking|s1', metric: 'costUsd', baseline: '$1.0000', candidate: '$1.5000', delta: '+$0.5000 (+50.0%)' },
      { kind: 'regression', run: 'raw|s1', metric: 'status', baseline: 'completed', candidate: 'overflow', delta: '' },
      { kind: 'improvement', run: 'masking|s2', metric: 'inputTokens', baseline: '200,000', candidate: '100,000', delta: '-100,000 (-50.0%)' },
    ]);
  });

  it('totals each metric over the runs both have, coloured beyond the tolerance only', () => {
    const total = (metric: string) => diff.totals.find((t) => t.metric === metric)!;
    expect(total('completed runs')).toMatchObject({ baseline: '3', candidate: '2', change: 'regression', regressions: 1 });
    // 400,000 -> 350,000: better overall, though one run got worse.
    expect(total('inputTokens')).toMatchObject({ baseline: '400,000', candidate: '350,000', delta: '-50,000 (-12.5%)', change: 'improvement', regressions: 1, improvements: 1 });
    // One token more over three runs is within the 2% tolerance.
    expect(total('outputTokens')).toMatchObject({ delta: '+1 (+0.0%)', change: 'same' });
    expect(total('peakContextPct')).toMatchObject({ baseline: '80.0%', candidate: '80.0%', change: 'same' });
    expect(total('referenceRecall')).toMatchObject({ baseline: '90.0%', change: 'same' });
    expect(diff.totals.map((t) => t.metric)).toEqual([
      'completed runs', 'steps', 'inputTokens', 'outputTokens', 'overheadTokens', 'cachedInputTokens', 'peakContextPct', 'probesPassed', 'referenceRecall', 'costUsd',
    ]);
  });

  it('has nothing to say about identical runs', () => {
    const same = baselineDiff(source({ 'a|s': metrics() }), new Map([['a|s', metrics()]]));
    expect([same.regressions, same.improvements, same.findings]).toEqual([0, 0, []]);
    expect(same.totals.every((t) => t.change === 'same')).toBe(true);
  });
});
