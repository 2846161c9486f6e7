import { describe, expect, it } from 'vitest';
import type { RunResult, RunStatus } from '../core/run-records.js';
import { DEFAULT_TOLERANCES, type RunMetrics, type Tolerances } from '../metrics/run-metrics.js';
import { baselineProblem, parseBaseline, serializeBaseline, type Baseline } from './baseline.js';
import { compareRuns, gateVerdict, passed, type Comparison, type Finding, type GateFlags } from './compare.js';
import { configurationChanges, runConfiguration, runConfigurationSchema, type RunConfiguration } from './configuration.js';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import { benchmarkJson, formatMarkdown, formatText, type GateOutcome } from './output.js';
import { parseTolerances } from './tolerances.js';

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
  rereads: null,
  rereadInputTokens: null,
  costUsd: 3,
};
const run = (patch: Partial<RunMetrics> = {}): RunMetrics => ({ ...RUN, ...patch });
/** Input tokens with the fixture's cached share (80%) kept. */
const input = (inputTokens: number): Partial<RunMetrics> => ({ inputTokens, cachedInputTokens: inputTokens * 0.8 });
const brief = (findings: readonly Finding[]): string[] => findings.map((f) => `${f.key} ${f.metric}`);
const one = (patch: Partial<RunMetrics>, tolerances: Tolerances = DEFAULT_TOLERANCES) =>
  compareRuns({ 'masking|a': run() }, { 'masking|a': run(patch) }, { tolerances });

const CONFIG: RunConfiguration = {
  params: { softThreshold: 0.7, carryoverTurns: 3 },
  window: 32768,
  model: 'gemini-3-pro-preview',
  backend: 'mock',
  backendOptions: { recall: 0.8, summaryTokens: 800, seed: 1 },
  encoding: 'o200k_base',
  calibrationFactor: 1.17,
  calibrationOverhead: null,
  priceModel: 'gemini-3-pro-preview',
  scenarioDigest: 'a'.repeat(64),
  replay: 'forced',
  probes: 'context',
};
const config = (patch: Partial<RunConfiguration> = {}): RunConfiguration => ({ ...CONFIG, ...patch });
/** Every key with the same metrics; configurations per key from `before` and `after` (CONFIG when absent). */
const configured = (keys: readonly string[], before: Record<string, Partial<RunConfiguration>>, after: Record<string, Partial<RunConfiguration>>) =>
  compareRuns(Object.fromEntries(keys.map((k) => [k, run()])), Object.fromEntries(keys.map((k) => [k, run()])), {
    baselineConfigs: Object.fromEntries(keys.map((k) => [k, config(before[k])])),
    candidateConfigs: new Map(keys.map((k) => [k, config(after[k])])),
  });
const gate = (c: Comparison, flags: GateFlags = {}): GateOutcome => ({ verdict: gateVerdict(c, flags), update: 'bench baseline --db r.duckdb -o b.json' });

describe('compareRuns', () => {
  it('finds nothing when runs are identical', () => {
    const c = one({});
    expect(c).toEqual({ regressions: [], improvements: [], missingFromCandidate: [], newInCandidate: [], changed: [], compared: 1, baselineRuns: 1, configurationKnown: false });
  });

  it('more tokens or cost is worse, within a relative 2% by default', () => {
    expect(brief(one(input(1_020_000)).regressions)).toEqual([]); // exactly 2%: allowed
    expect(brief(one(input(1_020_001)).regressions)).toEqual(['masking|a inputTokens']);
    expect(brief(one({ outputTokens: 10_300, overheadTokens: 5_200, costUsd: 3.1 }).regressions)).toEqual([
      'masking|a outputTokens',
      'masking|a overheadTokens',
      'masking|a costUsd',
    ]);
    const better = one({ ...input(900_000), costUsd: 2.5 });
    expect(better.regressions).toEqual([]);
    expect(brief(better.improvements)).toEqual(['masking|a inputTokens', 'masking|a costUsd']);
    expect(better.improvements[0]).toMatchObject({ baseline: 1_000_000, candidate: 900_000, delta: -100_000, kind: 'improvement' });
  });

  it('a lower cached share of input, fewer probes passed, steps or reference recall is worse', () => {
    expect(brief(one({ cachedInputTokens: 700_000 }).regressions)).toEqual(['masking|a cachedShare']);
    expect(one({ cachedInputTokens: 795_000 }).regressions).toEqual([]); // 80% -> 79.5%: within 1 point
    expect(brief(one({ probesPassed: 7 }).regressions)).toEqual(['masking|a probesPassed']); // abs 0
    expect(brief(one({ probesPassed: 9 }).improvements)).toEqual(['masking|a probesPassed']);
    expect(brief(one({ steps: 99 }).regressions)).toEqual(['masking|a steps']);
    // recall 90% -> 89.6% (-0.4 pp) is within 0.5 pp; 89% (-1 pp) is not.
    expect(one({ referencePresent: 448, referenceTotal: 500 }).regressions).toEqual([]);
    expect(brief(one({ referencePresent: 89 }).regressions)).toEqual(['masking|a referenceRecall']);
    expect(brief(one({ referencePresent: 95 }).improvements)).toEqual(['masking|a referenceRecall']);
  });

  it('compares the cached share, not the cached count, which falls whenever input falls (regression)', () => {
    // Half the input, half the cache hits: the same 80% cached, and 50% fewer input tokens is an improvement.
    const halved = one({ inputTokens: 500_000, cachedInputTokens: 400_000 });
    expect(halved.regressions).toEqual([]);
    expect(brief(halved.improvements)).toEqual(['masking|a inputTokens']);
    // A baseline whose provider reported no cache count: nothing to compare.
    expect(compareRuns({ 'x|a': run({ cachedInputTokens: null }) }, { 'x|a': run({ cachedInputTokens: 0 }) }).regressions).toEqual([]);
    // A count the baseline had and the candidate lost is a regression, not a metric skipped.
    expect(one({ cachedInputTokens: null }).regressions).toMatchObject([{ key: 'masking|a', metric: 'cachedShare', candidate: 'none', delta: null }]);
  });

  it('a higher peak context is worse beyond 0.02 absolute', () => {
    expect(one({ peakContextPct: 0.515 }).regressions).toEqual([]);
    expect(brief(one({ peakContextPct: 0.53 }).regressions)).toEqual(['masking|a peakContextPct']);
    expect(brief(one({ peakContextPct: 0.45 }).improvements)).toEqual(['masking|a peakContextPct']);
  });

  it('reactive replay: one more re-read, or 2% more of their tokens, is worse; a forced run (null) is not compared', () => {
    expect(brief(one({ rereads: 1, rereadInputTokens: 1000 }, DEFAULT_TOLERANCES).regressions)).toEqual([]);
    const before = run({ rereads: 4, rereadInputTokens: 10_000 });
    const compare = (after: Partial<RunMetrics>) => compareRuns({ 'masking|a': before }, { 'masking|a': run({ ...before, ...after }) }, { tolerances: DEFAULT_TOLERANCES });
    expect(brief(compare({ rereads: 5, rereadInputTokens: 10_200 }).regressions)).toEqual(['masking|a rereads']);
    expect(brief(compare({ rereadInputTokens: 10_300 }).regressions)).toEqual(['masking|a rereadInputTokens']);
    expect(brief(compare({ rereads: 3, rereadInputTokens: 9_000 }).improvements)).toEqual(['masking|a rereads', 'masking|a rereadInputTokens']);
  });

  it('applies overridden absolute and relative tolerances', () => {
    const loose = parseTolerances(['inputTokens=rel:10%', 'peakContextPct=abs:0.1', 'probesPassed=abs:2']);
    expect(one({ ...input(1_090_000), peakContextPct: 0.59, probesPassed: 6 }, loose).regressions).toEqual([]);
    expect(brief(one({ ...input(1_110_000), probesPassed: 5 }, loose).regressions)).toEqual([
      'masking|a inputTokens',
      'masking|a probesPassed',
    ]);
    const absTokens = parseTolerances(['inputTokens=abs:500']);
    expect(brief(one(input(1_000_501), absTokens).regressions)).toEqual(['masking|a inputTokens']);
    expect(one(input(1_000_500), absTokens).regressions).toEqual([]);
    expect(parseTolerances(['costUsd=rel:0.05']).costUsd).toEqual({ kind: 'rel', value: 0.05 });
  });

  it('rejects malformed tolerances with a one-line message naming the flag', () => {
    expect(() => parseTolerances(['inputTokens'])).toThrow(/^--tolerance inputTokens: expected metric=abs:X/);
    expect(() => parseTolerances(['bogus=abs:1'])).toThrow(/--tolerance bogus=abs:1: expected a metric among steps, inputTokens/);
    expect(() => parseTolerances(['status=abs:1'])).toThrow(/expected a metric among/);
    expect(() => parseTolerances(['cachedInputTokens=rel:5%'])).toThrow(/expected a metric among .*cachedShare/);
    expect(() => parseTolerances(['steps=abs:5%'])).toThrow(/only for rel/);
    expect(() => parseTolerances(['steps=abs:-1'])).toThrow(/at least 0/);
    expect(() => parseTolerances(['inputTokens=rel:15'])).toThrow('--tolerance inputTokens=rel:15: expected a fraction for rel: without % (rel:15 is 1500%; write rel:15% for 15 percent)');
    expect(() => parseTolerances(['referenceRecall=abs:2'])).toThrow('--tolerance referenceRecall=abs:2: expected at most abs:1 on referenceRecall, a fraction (abs:0.05 is 5 points)');
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
    const change = (from: RunStatus, to: RunStatus): Comparison => compareRuns({ 'raw|a': run({ status: from, steps: 50 }) }, { 'raw|a': run({ status: to, steps: 40 }) });
    // A run that ended for its context and now breaks, or ends otherwise, got worse: fewer steps is no saving.
    for (const [from, to] of [['overflow', 'error'], ['overflow', 'invalid_context'], ['overflow', 'stopped'], ['stopped', 'overflow'], ['truncated', 'error']] as const) {
      expect([from, to, brief(change(from, to).regressions), change(from, to).improvements]).toEqual([from, to, ['raw|a status'], []]);
    }
    // One that broke and now ends for its context got better.
    for (const [from, to] of [['error', 'overflow'], ['invalid_context', 'stopped']] as const) {
      expect([from, to, brief(change(from, to).improvements), change(from, to).regressions]).toEqual([from, to, ['raw|a status'], []]);
    }
    expect(change('error', 'invalid_context').regressions).toHaveLength(1);
    // Same failed status: the steps it reached still count.
    expect(brief(compareRuns({ 'raw|a': run({ status: 'overflow', steps: 50 }) }, { 'raw|a': run({ status: 'overflow', steps: 40 }) }).regressions)).toEqual(['raw|a steps']);
  });

  it('skips metrics the baseline has no value of (no price, no recorded references, zero references, no reported cache hits); one the candidate lost is a regression', () => {
    const none = { costUsd: null, referencePresent: null, referenceTotal: null, cachedInputTokens: null };
    expect(compareRuns({ 'x|a': run(none) }, { 'x|a': run() }).regressions).toEqual([]);
    expect(compareRuns({ 'x|a': run(none) }, { 'x|a': run(none) }).regressions).toEqual([]);
    expect(brief(one(none).regressions)).toEqual(['masking|a cachedShare', 'masking|a referenceRecall', 'masking|a costUsd']);
    expect(formatText(one(none), gate(one(none)))).toMatch(/REGRESSION\s+costUsd\s+masking\|a\s+\$\S+\s+none\s*\n/);
    expect(compareRuns({ 'x|a': run({ referencePresent: 0, referenceTotal: 0 }) }, { 'x|a': run({ referencePresent: 0, referenceTotal: 0 }) }).regressions).toEqual([]);
  });

  it('a zero baseline allows no relative growth', () => {
    expect(brief(compareRuns({ 'x|a': run({ overheadTokens: 0 }) }, { 'x|a': run({ overheadTokens: 1 }) }).regressions)).toEqual(['x|a overheadTokens']);
  });

  it('lists runs missing from either side apart from the regressions', () => {
    const c = compareRuns({ 'raw|a': run(), 'raw|b': run(), 'masking|a': run() }, new Map([['raw|a', run()], ['window|a', run()]]));
    expect(c.missingFromCandidate).toEqual(['masking|a', 'raw|b']);
    expect(c.newInCandidate).toEqual(['window|a']);
    expect([c.compared, c.baselineRuns]).toEqual([1, 3]);
    expect(c.regressions).toEqual([]);
    const text = formatText(c, gate(c));
    expect(text).toContain('\n2 of 3 baseline runs missing: masking|a, raw|b\n');
    expect(text).toContain('\n1 run not in the baseline: window|a\n');
    expect(text).toContain('0 regressions, 0 improvements over 1 run compared; 2 missing from the candidate, 0 with a changed configuration, 1 not in the baseline');
  });

  it('uses the tolerances of each run’s strategy', () => {
    const tolerances = (label: string): Tolerances => (label === 'masking' ? parseTolerances(['inputTokens=rel:10%']) : DEFAULT_TOLERANCES);
    const c = compareRuns({ 'masking|a': run(), 'raw|a': run() }, { 'masking|a': run(input(1_050_000)), 'raw|a': run(input(1_050_000)) }, { tolerances });
    expect(brief(c.regressions)).toEqual(['raw|a inputTokens']);
  });
});

/** The first sample run with its config patched. */
const withConfig = (patch: Partial<RunResult['config']>): RunResult => {
  const [sample] = sampleRuns();
  return { ...sample!, config: { ...sample!.config, ...patch } };
};

describe('configuration changes', () => {
  it('keeps what shapes a run’s numbers, not where its server was', () => {
    const [sample] = sampleRuns();
    const live = { ...sample!.config, backend: 'ollama', backendOptions: { url: 'http://127.0.0.1:43121', model: 'qwen2.5-coder:7b', live: 'measure' }, calibrationFactor: undefined, scenarioDigest: undefined };
    expect(runConfiguration({ ...sample!, config: live })).toEqual({
      params: sample!.config.params,
      window: sample!.config.window,
      model: sample!.config.model,
      backend: 'ollama',
      backendOptions: { model: 'qwen2.5-coder:7b', live: 'measure' },
      encoding: sample!.config.encoding,
      calibrationFactor: null,
      calibrationOverhead: null,
      priceModel: sample!.config.priceModel,
      scenarioDigest: null,
      replay: 'forced',
      probes: 'context',
    });
  });

  it('names a run whose probes were graded otherwise (asked of the model, or looked up in the context); a baseline from before reads as --probes auto graded', () => {
    const [sample] = sampleRuns();
    const asked = { ...sample!, summary: { ...sample!.summary, probes: { ...sample!.summary.probes, answered: 0 } } };
    expect([runConfiguration(sample!).probes, runConfiguration(asked).probes]).toEqual(['context', 'ask']);
    expect(configurationChanges('masking|a', CONFIG, { ...CONFIG, probes: 'ask' })).toEqual(['probes context -> ask']);
    expect(runConfigurationSchema.parse({ ...CONFIG, probes: undefined }).probes).toBe('context');
    expect(runConfigurationSchema.parse({ ...CONFIG, backend: 'ollama', probes: undefined }).probes).toBe('ask');
  });

  it('names an outside strategy whose source changed; a baseline from before outside strategies reads as built-in', () => {
    const source = (digest: string) => ({ ...CONFIG, strategySource: { file: 'strategies/mine.ts', digest } });
    expect(runConfiguration(withConfig({ strategySource: { file: 'strategies/mine.ts', digest: 'a1b2c3d4e5f6' } })).strategySource).toEqual({ file: 'strategies/mine.ts', digest: 'a1b2c3d4e5f6' });
    expect(runConfigurationSchema.parse(CONFIG).strategySource).toBeUndefined();
    expect(configurationChanges('mine|a', source('a1b2c3d4e5f6'), source('a1b2c3d4e5f6'))).toEqual([]);
    expect(configurationChanges('mine|a', source('a1b2c3d4e5f6'), source('c3d4e5f6a1b2'))).toEqual(['strategy source changed: strategies/mine.ts a1b2c3d4e5f6 -> c3d4e5f6a1b2']);
    expect(configurationChanges('mine|a', CONFIG, source('c3d4e5f6a1b2'))).toEqual(['strategy source changed: strategies/mine.ts built-in -> c3d4e5f6a1b2']);
  });

  it('names a run replayed otherwise (forced, reactive and its caps); a baseline from before reactive replay reads as forced', () => {
    const reactive = runConfiguration(withConfig({ replay: { mode: 'reactive', caps: { perTurn: 5, perRun: 1000 } } }));
    expect(reactive.replay).toBe('reactive (at most 5 re-reads per turn, 1000 per run)');
    const old = runConfigurationSchema.parse({ ...CONFIG, replay: undefined });
    expect(old.replay).toBe('forced');
    expect(configurationChanges('masking|a', old, { ...CONFIG, replay: reactive.replay })).toEqual(['replay forced -> reactive (at most 5 re-reads per turn, 1000 per run)']);
  });

  it("names a changed calibration overhead; a baseline from before overheads (no field) reads as none, like a factor alone's 0", () => {
    expect(runConfiguration(withConfig({ calibrationFactor: 1.2, calibrationOverhead: 0 })).calibrationOverhead).toBeNull();
    const old = runConfigurationSchema.parse({ ...CONFIG, calibrationOverhead: undefined });
    expect(old.calibrationOverhead).toBeNull();
    expect(configurationChanges('masking|a', old, { ...CONFIG, calibrationOverhead: 519 })).toEqual(['calibrationOverhead none -> 519']);
  });

  it('names a changed parameter, window, model, backend setting or scenario content instead of comparing the run', () => {
    const c = configured(['masking|s1', 'masking|s2', 'raw|s1'], {}, {
      'masking|s1': { params: { softThreshold: 0.5, carryoverTurns: 3 }, window: 16384 },
      'masking|s2': { params: { softThreshold: 0.5, carryoverTurns: 3 }, backendOptions: { ...CONFIG.backendOptions, recall: 0.6 } },
      'raw|s1': { model: 'gpt-4o', scenarioDigest: 'b'.repeat(64) },
    });
    expect(c.changed).toEqual([
      { key: 'masking|s1', changes: ['masking.softThreshold 0.7 -> 0.5', 'window 32768 -> 16384'] },
      { key: 'masking|s2', changes: ['masking.softThreshold 0.7 -> 0.5', 'mock.recall 0.8 -> 0.6'] },
      { key: 'raw|s1', changes: ['model gemini-3-pro-preview -> gpt-4o', 'scenario s1 content aaaaaaaa -> bbbbbbbb'] },
    ]);
    expect([c.compared, c.regressions.length, c.configurationKnown]).toEqual([0, 0, true]);
  });

  it('a changed run is not compared metric by metric: one named change, not N regressions', () => {
    const c = compareRuns({ 'masking|a': run() }, { 'masking|a': run({ ...input(2_000_000), peakContextPct: 0.9 }) }, {
      baselineConfigs: { 'masking|a': config() },
      candidateConfigs: new Map([['masking|a', config({ window: 16384 })]]),
    });
    expect(c.regressions).toEqual([]);
    expect(c.changed).toEqual([{ key: 'masking|a', changes: ['window 32768 -> 16384'] }]);
  });

  it('names parameters set on one side only, calibration switched off, another price model and encoding', () => {
    const c = configured(['masking|a'], {}, { 'masking|a': { params: { softThreshold: 0.7 }, calibrationFactor: null, priceModel: 'gpt-4o', encoding: 'cl100k_base' } });
    expect(c.changed[0]!.changes).toEqual([
      'masking.carryoverTurns 3 -> (unset)',
      'encoding o200k_base -> cl100k_base',
      'calibrationFactor 1.17 -> none',
      'priceModel gemini-3-pro-preview -> gpt-4o',
    ]);
  });

  it('an unknown scenario digest on either side is no change; an unknown configuration compares as before', () => {
    expect(configured(['raw|a'], { 'raw|a': { scenarioDigest: null } }, {}).changed).toEqual([]);
    const unknown = compareRuns({ 'raw|a': run() }, { 'raw|a': run() }, { candidateConfigs: new Map([['raw|a', config()]]) });
    expect([unknown.changed, unknown.compared, unknown.configurationKnown]).toEqual([[], 1, false]);
  });

  it('prints one line per distinct change with its runs, the first few and a count', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `masking|s${String(i).padStart(2, '0')}`);
    const c = configured(keys, {}, Object.fromEntries(keys.map((k) => [k, { params: { softThreshold: 0.5, carryoverTurns: 3 } }])));
    expect(formatText(c, gate(c)).split('\n')).toContain(
      'configuration changed: masking.softThreshold 0.7 -> 0.5 (12 runs: masking|s00, masking|s01, masking|s02, masking|s03, masking|s04 and 7 more)',
    );
    const many = configured(keys, {}, Object.fromEntries(keys.map((k, i) => [k, { scenarioDigest: String(i).padStart(64, 'c') }])));
    const lines = formatText(many, gate(many)).split('\n').filter((line) => line.startsWith('configuration changed: '));
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe('configuration changed: 2 more settings');
  });
});

describe('gateVerdict', () => {
  const baseline = { 'raw|a': run(), 'raw|b': run(), 'masking|a': run() };

  it('fails when baseline runs are missing, unless allowed; never when none is there', () => {
    const c = compareRuns(baseline, { 'raw|a': run() });
    expect(gateVerdict(c)).toEqual({ regressed: false, missingFails: true, changesFail: false });
    expect(passed(gateVerdict(c, { allowMissing: true }))).toBe(true);
    const none = compareRuns(baseline, { 'window|a': run() });
    expect(gateVerdict(none, { allowMissing: true }).missingFails).toBe(true);
  });

  it('fails on changed configurations unless accepted; accepted, when no run was left to compare', () => {
    const c = configured(['raw|a', 'raw|b'], {}, { 'raw|a': { window: 8192 } });
    expect(gateVerdict(c)).toEqual({ regressed: false, missingFails: false, changesFail: true });
    expect(passed(gateVerdict(c, { acceptChanges: true }))).toBe(true);
    // Every run changed: accepting them all would pass a gate that compared nothing.
    const all = configured(['raw|a'], {}, { 'raw|a': { window: 8192 } });
    expect(gateVerdict(all, { acceptChanges: true })).toEqual({ regressed: false, missingFails: false, changesFail: true });
    expect(formatText(all, gate(all, { acceptChanges: true })).trim().split('\n').at(-1)).toBe(
      'FAIL: 1 run with a changed configuration and none compared (nothing was gated; if intended, make this batch the baseline: bench baseline --db r.duckdb -o b.json)',
    );
  });

  it('says why in one line, with the fix', () => {
    const missing = compareRuns(baseline, { 'raw|a': run() });
    expect(formatText(missing, gate(missing)).trim().split('\n').at(-1)).toBe('FAIL: 2 of 3 baseline runs missing (pass --allow-missing to gate the runs present)');
    const changed = configured(['raw|a', 'raw|b'], {}, { 'raw|a': { window: 8192 } });
    expect(formatText(changed, gate(changed)).trim().split('\n').at(-1)).toBe(
      'FAIL: 1 run with a changed configuration (if intended: pass --accept-changes; then make this batch the baseline: bench baseline --db r.duckdb -o b.json)',
    );
    expect(formatText(changed, gate(changed, { acceptChanges: true })).trim().split('\n').at(-1)).toBe(
      'Accepted: 1 run with a changed configuration, not compared; make this batch the baseline: bench baseline --db r.duckdb -o b.json',
    );
    const partial = compareRuns({ 'raw|a': run(), 'raw|b': run(), 'raw|c': run() }, { 'raw|a': run(), 'raw|c': run() }, {
      baselineConfigs: { 'raw|a': config(), 'raw|b': config(), 'raw|c': config() },
      candidateConfigs: new Map([['raw|a', config({ window: 8192 })], ['raw|c', config()]]),
    });
    expect(formatText(partial, gate(partial, { allowMissing: true, acceptChanges: true })).trim().split('\n').at(-1)).toBe(
      'Accepted: 1 run with a changed configuration, not compared; run the whole matrix and make that batch the baseline: bench baseline --db r.duckdb -o b.json',
    );
    const none = compareRuns(baseline, {});
    expect(formatText(none, gate(none, { allowMissing: true }))).toContain('FAIL: 3 of 3 baseline runs missing (nothing was compared)');
  });

  it('keeps a list of 180 missing runs short', () => {
    const many = Object.fromEntries(Array.from({ length: 180 }, (_, i) => [`strategy-with-a-long-name|scenario-${String(i).padStart(3, '0')}`, run()]));
    const c = compareRuns(many, { 'strategy-with-a-long-name|scenario-000': run() });
    const text = formatText(c, gate(c));
    expect(text).toContain('\n179 of 180 baseline runs missing: strategy-with-a-long-name|scenario-001, ');
    expect(text).toContain('strategy-with-a-long-name|scenario-005 and 174 more\n');
    expect(Math.max(...text.split('\n').map((line) => line.length))).toBeLessThan(300);
    const md = formatMarkdown(c, many, new Map([['strategy-with-a-long-name|scenario-000', run()]]), gate(c));
    expect(Math.max(...md.split('\n').map((line) => line.length))).toBeLessThan(300);
  });
});

describe('output', () => {
  const baseline = { 'masking|a': run(), 'raw|a': run({ inputTokens: 2_000_000 }) };
  const candidate = new Map([
    ['masking|a', run(input(1_100_000))],
    ['raw|a', run({ inputTokens: 2_000_000, status: 'overflow' })],
  ]);
  const c = compareRuns(baseline, candidate);

  it('prints a table of regressions and improvements with deltas, then the counts and the verdict', () => {
    const text = formatText(c, gate(c));
    expect(text).toMatch(/REGRESSION\s+inputTokens\s+masking\|a\s+1,000,000\s+1,100,000\s+\+100,000 \(\+10\.0%\)/);
    expect(text).toMatch(/REGRESSION\s+status\s+raw\|a\s+completed\s+overflow/);
    expect(text.trim().split('\n').slice(-2)).toEqual([
      '2 regressions, 0 improvements over 2 runs compared; 0 missing from the candidate, 0 with a changed configuration, 0 not in the baseline',
      'FAIL: 2 regressions',
    ]);
  });

  it('writes github-action-benchmark entries per strategy, all smaller-is-better', () => {
    const entries = benchmarkJson(candidate);
    expect(entries).toContainEqual({ name: 'masking: input tokens', unit: 'tokens', value: 1_100_000, extra: '1 runs' });
    expect(entries).toContainEqual({ name: 'raw: runs not completed', unit: 'runs', value: 1, extra: '1 runs' });
    expect(entries).toContainEqual({ name: 'masking: probes lost', unit: 'probes', value: 2, extra: '1 runs' });
    expect(entries.every((e) => typeof e.name === 'string' && typeof e.unit === 'string' && Number.isFinite(e.value))).toBe(true);
  });

  it('writes a markdown summary with the verdict, findings and per-strategy totals', () => {
    const md = formatMarkdown(c, baseline, candidate, gate(c));
    expect(md).toContain('## ctxbench check: FAIL');
    expect(md).toContain('| inputTokens | masking\\|a | 1,000,000 | 1,100,000 | +100,000 (+10.0%) | ❌ regression |');
    expect(md).toContain('| masking | 1 | 1,000,000 → 1,100,000 |');
  });

  it('fails the markdown verdict on missing runs or changed configurations, named at the top', () => {
    const changed = configured(['masking|a', 'raw|a'], {}, { 'masking|a': { params: { softThreshold: 0.5, carryoverTurns: 3 } } });
    const md = formatMarkdown(changed, {}, new Map(), gate(changed));
    expect(md).toMatch(/^## ctxbench check: FAIL\n\n\*\*FAIL: 1 run with a changed configuration /);
    expect(md).toContain('\n- configuration changed: masking.softThreshold 0.7 -&gt; 0.5 (1 run: masking\\|a)\n');
    expect(formatMarkdown(changed, {}, new Map(), gate(changed, { acceptChanges: true }))).toMatch(/^## ctxbench check: pass\n/);
  });
});

describe('baseline file', () => {
  const baseline: Baseline = {
    format: 2,
    created: '2025-01-01T00:00:00.000Z',
    version: '0.1.0',
    command: 'bench run',
    runs: { 'raw|a': run() },
    configs: { 'raw|a': config() },
  };

  it('round-trips, each run’s configuration first', () => {
    const text = serializeBaseline(baseline);
    expect(parseBaseline(text, 'b.json')).toEqual(baseline);
    expect(parseBaseline(`\uFEFF${text}`, 'b.json')).toEqual(baseline); // saved with a byte order mark
    expect(Object.keys(JSON.parse(text).runs['raw|a'])).toEqual(['config', 'status', 'steps', 'inputTokens', 'outputTokens', 'overheadTokens', 'cachedInputTokens', 'peakContextPct', 'probesPassed', 'probesTotal', 'referencePresent', 'referenceTotal', 'rereads', 'rereadInputTokens', 'costUsd']);
  });

  it('reads a format 1 file, which keeps no configurations', () => {
    const old = JSON.stringify({ format: 1, created: '', version: '0.1.0', command: 'bench run', runs: { 'raw|a': run() } });
    expect(parseBaseline(old, 'b.json')).toEqual({ format: 1, created: '', version: '0.1.0', command: 'bench run', runs: { 'raw|a': run() }, configs: undefined });
    const c = compareRuns(parseBaseline(old, 'b.json').runs, { 'raw|a': run() });
    expect(formatText(c, gate(c))).toContain(
      'Configurations unknown: the baseline is format 1, which keeps none, so a changed setting cannot be named; rewrite it: bench baseline --db r.duckdb -o b.json',
    );
  });

  it('refuses a baseline without runs: it would gate nothing', () => {
    expect(() => parseBaseline('{"format":2,"runs":{}}', 'b.json')).toThrow('b.json: "runs" is empty: a baseline without runs gates nothing; write it with `bench baseline` from a batch that has runs');
  });

  it('keeps a truncated run and unknown cache hits (a live provider that reports none)', () => {
    const live: Baseline = { ...baseline, runs: { 'raw|a': run({ status: 'truncated', cachedInputTokens: null }) } };
    expect(parseBaseline(serializeBaseline(live), 'b.json')).toEqual(live);
  });

  it('is refused for a batch missing runs of its matrix (interrupted, or one shard) or holding runs that errored', () => {
    const runs = sampleRuns(); // 3 strategies x 2 scenarios
    expect(baselineProblem(runs, 'r.duckdb batch b')).toBeUndefined();
    expect(baselineProblem(runs.slice(1), 'r.duckdb batch b')).toBe(
      'r.duckdb batch b lacks 1 of the 6 runs of its 3 strategies x 2 scenarios: it was interrupted (finish it with --resume) or is one shard (merge the shards first); a baseline of it would gate the rest of the matrix no more',
    );
    const errored = runs.map((run, i) => (i === 4 ? { ...run, summary: { ...run.summary, status: 'error' as const } } : run));
    expect(baselineProblem(errored, 'r.duckdb batch b')).toBe('r.duckdb batch b: 1 run(s) ended with an error (the first: masking|bad"id<i>): run them again (--resume) before making a baseline of it');
  });

  it('rejects malformed files with one line naming the file', () => {
    expect(() => parseBaseline('{', 'b.json')).toThrow(/^b\.json: not valid JSON/);
    expect(() => parseBaseline('[]', 'b.json')).toThrow(/^b\.json: expected a JSON object/);
    expect(() => parseBaseline('{"format":3,"runs":{}}', 'b.json')).toThrow(/^b\.json: unsupported format 3 \(expected 1 or 2\)/);
    const broken = JSON.parse(serializeBaseline(baseline));
    broken.runs['raw|a'].inputTokens = 'many';
    expect(() => parseBaseline(JSON.stringify(broken), 'b.json')).toThrow('b.json: runs["raw|a"].inputTokens must be a whole number >= 0');
    for (const [field, value, problem] of [['inputTokens', -1, 'must be a whole number >= 0'], ['steps', 2.5, 'must be a whole number >= 0'], ['costUsd', -0.5, 'must be a number >= 0 or null']] as const) {
      const edited = JSON.parse(serializeBaseline(baseline));
      edited.runs['raw|a'][field] = value;
      expect(() => parseBaseline(JSON.stringify(edited), 'b.json')).toThrow(`b.json: runs["raw|a"].${field} ${problem}`);
    }
    // A field a format 2 file always has, gone (a hand edit): the check would skip the metric silently.
    const lost = JSON.parse(serializeBaseline(baseline));
    delete lost.runs['raw|a'].costUsd;
    expect(() => parseBaseline(JSON.stringify(lost), 'b.json')).toThrow('b.json: runs["raw|a"].costUsd is missing');
    // Re-reads came after format 2: a file without them had none.
    const older = JSON.parse(serializeBaseline(baseline));
    delete older.runs['raw|a'].rereads;
    delete older.runs['raw|a'].rereadInputTokens;
    expect(parseBaseline(JSON.stringify(older), 'b.json').runs['raw|a']).toMatchObject({ rereads: null, rereadInputTokens: null });
    broken.runs['raw|a'].status = 'fine';
    expect(() => parseBaseline(JSON.stringify(broken), 'b.json')).toThrow(/runs\["raw\|a"\]\.status must be one of/);
    const noConfig = JSON.parse(serializeBaseline(baseline));
    delete noConfig.runs['raw|a'].config;
    expect(() => parseBaseline(JSON.stringify(noConfig), 'b.json')).toThrow(/^b\.json: runs\["raw\|a"\]\.config: .*expected object/);
    const badWindow = JSON.parse(serializeBaseline(baseline));
    badWindow.runs['raw|a'].config.window = '32k';
    expect(() => parseBaseline(JSON.stringify(badWindow), 'b.json')).toThrow(/^b\.json: runs\["raw\|a"\]\.config\.window: .*expected number/);
  });
});
