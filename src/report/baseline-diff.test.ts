import { describe, expect, it } from 'vitest';
import type { RunConfiguration } from '../gate/configuration.js';
import type { RunMetrics } from '../metrics/run-metrics.js';
import { baselineDiff, type BaselineSource } from './baseline-diff.js';

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
  rereads: null,
  rereadInputTokens: null,
  costUsd: 1,
  ...overrides,
});

const CONFIG: RunConfiguration = {
  params: { softThreshold: 0.7 },
  window: 32768,
  model: 'gpt-4o',
  backend: 'mock',
  backendOptions: { recall: 0.8 },
  encoding: 'o200k_base',
  calibrationFactor: null,
  calibrationOverhead: null,
  priceModel: 'gpt-4o',
  scenarioDigest: null,
  replay: 'forced',
  probes: 'context',
};
const configs = (keys: Iterable<string>, patch: (key: string) => Partial<RunConfiguration> = () => ({})) =>
  Object.fromEntries([...keys].map((key) => [key, { ...CONFIG, ...patch(key) }]));
const source = (runs: Record<string, RunMetrics>, patch?: (key: string) => Partial<RunConfiguration>): BaselineSource => ({
  file: 'old.duckdb',
  description: 'batch b1',
  runs,
  configs: configs(Object.keys(runs), patch),
});
/** The reported runs, configured as CONFIG unless `patch` says otherwise. */
const candidate = (runs: [string, RunMetrics][], patch?: (key: string) => Partial<RunConfiguration>) => ({
  metrics: new Map(runs),
  configs: new Map(Object.entries(configs(runs.map(([key]) => key), patch))),
});

describe('baselineDiff', () => {
  const diff = baselineDiff(
    source({
      'masking|s1': metrics(),
      'masking|s2': metrics({ inputTokens: 200_000, cachedInputTokens: 100_000 }),
      'raw|s1': metrics(),
      'raw|gone': metrics(),
    }),
    candidate([
      ['masking|s1', metrics({ inputTokens: 150_000, cachedInputTokens: 75_000, costUsd: 1.5, probesPassed: 3 })],
      ['masking|s2', metrics({ inputTokens: 100_000, outputTokens: 1_001 })],
      ['raw|s1', metrics({ status: 'overflow', steps: 6 })],
      ['raw|new', metrics()],
    ]),
  );

  it('counts regressions and improvements as bench check does', () => {
    expect([diff.regressions, diff.improvements]).toEqual([4, 1]);
    expect([diff.regressionsText, diff.improvementsText]).toEqual(['4 regressions', '1 improvement']);
    expect(diff.counts).toBe('4 regressions, 1 improvement over 3 runs compared; 1 missing from the candidate, 0 with a changed configuration, 1 not in the baseline');
    expect(diff.notes).toEqual(['1 of 4 baseline runs missing: raw|gone', '1 run not in the baseline: raw|new']);
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
    // 175,000 of 350,000 cached, as 200,000 of 400,000 were.
    expect(total('cachedShare')).toMatchObject({ baseline: '50.0%', candidate: '50.0%', change: 'same' });
    expect(diff.totals.map((t) => t.metric)).toEqual([
      'completed runs', 'steps', 'inputTokens', 'outputTokens', 'overheadTokens', 'cachedShare', 'peakContextPct', 'probesPassed', 'referenceRecall', 'costUsd',
    ]);
  });

  it('has nothing to say about identical runs', () => {
    const same = baselineDiff(source({ 'a|s': metrics() }), candidate([['a|s', metrics()]]));
    expect([same.regressions, same.improvements, same.findings, same.notes]).toEqual([0, 0, [], []]);
    expect(same.totals.every((t) => t.change === 'same')).toBe(true);
  });

  it('names a changed window or parameter at the top, and leaves those runs out of the numbers', () => {
    const keys = ['masking|s1', 'masking|s2', 'raw|s1'];
    const changed = baselineDiff(
      source(Object.fromEntries(keys.map((k) => [k, metrics()]))),
      candidate(keys.map((k) => [k, metrics({ inputTokens: 300_000, cachedInputTokens: 150_000 })]), (key) => (key.startsWith('masking') ? { params: { softThreshold: 0.5 }, window: 16384 } : {})),
    );
    expect(changed.notes).toEqual([
      'configuration changed: masking.softThreshold 0.7 -> 0.5 (2 runs: masking|s1, masking|s2)',
      'configuration changed: window 32768 -> 16384 (2 runs: masking|s1, masking|s2)',
    ]);
    expect(changed.regressions).toBe(1); // raw|s1's input only: the masking runs are not compared
    expect(changed.totals.find((t) => t.metric === 'inputTokens')).toMatchObject({ baseline: '100,000', candidate: '300,000' });
    expect(changed.gate.verdict).toEqual({ regressed: true, missingFails: false, changesFail: true });
  });

  it('keeps the list of missing runs short', () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`masking|s${String(i).padStart(2, '0')}`, metrics()]));
    const diff = baselineDiff(source(many), candidate([['masking|s00', metrics()]]));
    expect(diff.notes).toEqual(['39 of 40 baseline runs missing: masking|s01, masking|s02, masking|s03, masking|s04, masking|s05 and 34 more']);
  });

  it('says once that a format 1 baseline keeps no configurations', () => {
    const old = baselineDiff({ file: 'b.json', description: 'baseline file', runs: { 'a|s': metrics() }, update: 'bench baseline --db r.duckdb -o b.json' }, candidate([['a|s', metrics()]]));
    expect(old.notes).toEqual([
      'Configurations unknown: the baseline is format 1, which keeps none, so a changed setting cannot be named; rewrite it: bench baseline --db r.duckdb -o b.json',
    ]);
  });
});
