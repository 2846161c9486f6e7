import { describe, expect, it } from 'vitest';
import { strategyTable, successTable } from '../cli/summary.js';
import type { RunResult, RunStatus } from '../core/run-records.js';
import { metricsByKey } from '../gate/baseline.js';
import { aggregateByStrategy, formatMarkdown } from '../gate/output.js';
import { compareRuns, gateVerdict } from '../gate/compare.js';
import { reportJson } from '../report/exports.js';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import { aggregateMetrics, aggregateRuns, costText } from './aggregate.js';

const [template] = sampleRuns() as [RunResult];

interface RunSpec {
  readonly strategy?: string;
  readonly scenario: string;
  readonly outcome?: 'resolved' | 'unresolved';
  readonly status?: RunStatus;
  readonly steps?: readonly [replayed: number, total: number];
  readonly inputTokens: number;
  readonly cost?: number;
  readonly peak: number;
  readonly probes?: { verbatim: number; summary: number; recoverable: number; lost: number; answered?: number };
  readonly recall?: readonly [present: number, total: number];
  /** Cached input tokens; default half the input, null for unknown (a provider that reports none). */
  readonly cached?: number | null;
  readonly priceModel?: string;
}

/** A run with every summary field set here, so the totals below are sums of these numbers. */
function run(spec: RunSpec): RunResult {
  const [steps, totalSteps] = spec.steps ?? [10, 10];
  const probes = spec.probes ?? { verbatim: 0, summary: 0, recoverable: 0, lost: 0 };
  const strategy = spec.strategy ?? 'masking';
  return {
    ...template,
    runId: `${strategy}-${spec.scenario}`,
    config: { ...template.config, strategy, baseStrategy: strategy, params: {}, scenarioId: spec.scenario, outcome: spec.outcome, window: 1000, priceModel: spec.priceModel ?? 'gpt-4o' },
    summary: {
      status: spec.status ?? 'completed',
      steps,
      totalSteps,
      sessions: 2,
      restarts: 1,
      inputTokens: spec.inputTokens,
      outputTokens: spec.inputTokens / 10,
      llmCalls: steps + 1,
      overheadTokens: 100,
      peakContextTokens: spec.peak * 1000,
      peakContextPct: spec.peak,
      meanContextPct: spec.peak / 2,
      cachedInputTokens: spec.cached === null ? undefined : (spec.cached ?? spec.inputTokens / 2),
      costUsd: spec.cost,
      probes: { total: probes.verbatim + probes.summary + probes.recoverable + probes.lost, ...probes },
      referenceRecall: spec.recall && { present: spec.recall[0], total: spec.recall[1] },
    },
  };
}

const RUNS = [
  run({ scenario: 'a', outcome: 'resolved', inputTokens: 1000, cost: 0.5, peak: 0.5, probes: { verbatim: 2, summary: 1, recoverable: 0, lost: 1 }, recall: [8, 10] }),
  run({ scenario: 'b', outcome: 'unresolved', status: 'overflow', steps: [4, 10], inputTokens: 3000, peak: 1.2, probes: { verbatim: 0, summary: 0, recoverable: 1, lost: 2 }, recall: [1, 4] }),
  run({ scenario: 'c', status: 'stopped', steps: [6, 10], inputTokens: 2000, cost: 0.25, peak: 0.7 }),
];

describe('aggregateRuns', () => {
  it('adds up hand-made runs', () => {
    const a = aggregateRuns(RUNS);
    expect(a).toMatchObject({
      runs: 3,
      completed: 1,
      overflowed: 1,
      otherFailed: 1,
      otherStatuses: ['stopped'],
      steps: 20,
      totalSteps: 30,
      sessions: 6,
      restarts: 3,
      inputTokens: 6000,
      outputTokens: 600,
      cachedInputTokens: 3000,
      overheadTokens: 300,
      llmCalls: 23,
      probes: { passed: 4, total: 7, verbatim: 2, summary: 1, recoverable: 1, answered: false },
      referenceRecall: { present: 9, total: 14 },
      recallByOutcome: { resolved: { present: 8, total: 10 }, unresolved: { present: 1, total: 4 } },
    });
    expect(a.peakContext.max).toBe(1.2);
    expect(a.peakContext.mean).toBeCloseTo(0.8, 12);
    expect(a.meanContextPct).toBeCloseTo(0.4, 12);
  });

  it('sums a partly priced cost over the priced runs and says it is a lower bound', () => {
    const { cost } = aggregateRuns(RUNS);
    expect(cost).toEqual({ usd: 0.75, pricedRuns: 2, partial: true, local: false });
    expect(costText(cost, (usd) => `$${usd.toFixed(2)}`)).toBe('$0.75+');
    expect(costText(aggregateRuns([RUNS[0]!]).cost, (usd) => `$${usd.toFixed(2)}`)).toBe('$0.50');
    const unpriced = aggregateRuns([RUNS[1]!]).cost;
    expect(unpriced).toEqual({ usd: null, pricedRuns: 0, partial: false, local: false });
    expect(costText(unpriced, String, '–')).toBe('–');
  });

  it('has an empty recall (0 of 0) when no run records references, and says when the model was asked', () => {
    const [, , stopped] = RUNS as [RunResult, RunResult, RunResult];
    const a = aggregateRuns([stopped]);
    expect(a.referenceRecall).toEqual({ present: 0, total: 0 });
    expect(a.recallByOutcome).toEqual({ resolved: { present: 0, total: 0 }, unresolved: { present: 0, total: 0 } });
    const asked = run({ scenario: 'd', inputTokens: 1, peak: 0.1, probes: { verbatim: 2, summary: 0, recoverable: 0, lost: 0, answered: 1 } });
    expect(aggregateRuns([asked]).probes).toMatchObject({ passed: 1, total: 2, answered: true });
  });

  it('builds on the aggregate of the runs’ metric records, as the gate reads them from a baseline', () => {
    const { totalSteps, sessions, restarts, llmCalls, meanContextPct, recallByOutcome, recovery, probes, ...shared } = aggregateRuns(RUNS);
    expect(recovery).toBeNull(); // every run replayed forced
    const fromMetrics = aggregateMetrics([...metricsByKey(RUNS, 'test').values()]);
    expect({ ...shared, probes: { passed: probes.passed, total: probes.total } }).toEqual(fromMetrics);
  });

  it('is zeros, not NaN, over no runs', () => {
    const a = aggregateRuns([]);
    expect([a.runs, a.peakContext.max, a.peakContext.mean, a.meanContextPct]).toEqual([0, 0, 0, 0]);
    expect(a.cost).toEqual({ usd: null, pricedRuns: 0, partial: false, local: false });
    expect([a.cachedInputTokens, a.cachedShare]).toEqual([null, null]);
  });

  describe('live numbers', () => {
    it('takes the cached share over the runs that know their cache hits; unknown when none does', () => {
      const known = run({ scenario: 'a', inputTokens: 1000, cached: 600, peak: 0.5 });
      const unknown = run({ scenario: 'b', inputTokens: 3000, cached: null, peak: 0.5 });
      expect(aggregateRuns([known, unknown])).toMatchObject({ cachedInputTokens: 600, cachedShare: 0.6 });
      expect(aggregateRuns([unknown])).toMatchObject({ cachedInputTokens: null, cachedShare: null });
      const terminal = strategyTable([unknown]).split('\n')[2]!.trim().split(/\s{2,}/);
      expect(terminal[6]).toBe('n/a');
    });

    it('reads "local" for runs on a local model ($0), in the terminal and the report', () => {
      const local = [run({ scenario: 'a', inputTokens: 1000, cost: 0, peak: 0.5, priceModel: 'local' }), run({ scenario: 'b', inputTokens: 1000, cost: 0, peak: 0.5, priceModel: 'qwen2.5-coder:7b' })];
      const { cost } = aggregateRuns(local);
      expect(cost).toEqual({ usd: 0, pricedRuns: 2, partial: false, local: true });
      expect(costText(cost, (usd) => `$${usd.toFixed(2)}`)).toBe('local');
      expect(strategyTable(local).split('\n')[2]!.trim().split(/\s{2,}/)[9]).toBe('local');
      // Priced at a list price, $0 is no local model.
      expect(aggregateRuns([run({ scenario: 'a', inputTokens: 0, cost: 0, peak: 0 })]).cost.local).toBe(false);
    });

    it('counts truncated runs apart: neither completed nor failed otherwise', () => {
      const a = aggregateRuns([...RUNS, run({ scenario: 'd', status: 'truncated', inputTokens: 10, peak: 0.1 })]);
      expect([a.completed, a.truncated, a.otherFailed, a.otherStatuses]).toEqual([1, 1, 1, ['stopped']]);
      const cells = strategyTable([run({ scenario: 'd', status: 'truncated', inputTokens: 10, peak: 0.1 })]).split('\n')[2]!.trim().split(/\s{2,}/);
      expect(cells.at(-1)).toBe('no; 1 truncated');
    });
  });
});

describe('every output tells the same totals', () => {
  const runs = [...RUNS, run({ strategy: 'raw', scenario: 'a', inputTokens: 5000, cost: 2, peak: 0.9, probes: { verbatim: 3, summary: 0, recoverable: 0, lost: 1 }, recall: [10, 10] })];
  /** The cells of the terminal table's row for `strategy`. */
  const row = (table: string, strategy: string): string[] => table.split('\n').find((line) => line.startsWith(`${strategy} `))!.trim().split(/\s{2,}/);
  const json = JSON.parse(reportJson(runs, { generatedAt: new Date(0), version: 'test' }));
  const candidate = metricsByKey(runs, 'test');
  const gate = new Map(aggregateByStrategy(candidate).map((a) => [a.strategy, a.totals]));
  const comparison = compareRuns({}, candidate);
  const markdown = formatMarkdown(comparison, {}, candidate, { verdict: gateVerdict(comparison) });

  it.each(['masking', 'raw'])('%s: the terminal table, the report JSON and the gate', (strategy) => {
    const config = json.configurations.find((c: { configuration: string }) => c.configuration === strategy);
    const totals = gate.get(strategy)!;
    const partial = config.pricedRuns < config.runs;
    const [, runCount, , , , input, , , , cost] = row(strategyTable(runs), strategy);
    const [, completed, probes] = row(successTable(runs), strategy);

    expect([Number(runCount), config.runs, totals.runs]).toEqual([config.runs, config.runs, config.runs]);
    expect([Number(input!.replace(/,/g, '')), totals.inputTokens]).toEqual([config.inputTokens, config.inputTokens]);
    expect(completed).toBe(`${config.completed}/${config.runs}`);
    expect(totals.completed).toBe(config.completed);
    expect(probes).toMatch(new RegExp(`^${config.probesPassed}/${config.probesTotal} `));
    expect([totals.probes.passed, totals.probes.total]).toEqual([config.probesPassed, config.probesTotal]);
    expect(totals.peakContext.mean).toBe(config.meanPeakContextPct);
    // A partly priced cost: "$x+" in the terminal and the gate summary, the priced runs' sum and their count in JSON.
    expect([totals.cost.usd, totals.cost.pricedRuns]).toEqual([config.costUsd, config.pricedRuns]);
    expect(cost).toBe(`$${config.costUsd.toFixed(2)}${partial ? '+' : ''}`);
    expect(markdown).toContain(`| ${strategy} | ${config.runs} | `);
    expect(markdown).toContain(`| – → $${config.costUsd.toFixed(4)}${partial ? '+' : ''} |`);
  });

  it('covers a partly priced configuration', () => {
    expect(json.configurations.map((c: { pricedRuns: number; runs: number }) => c.pricedRuns < c.runs)).toContain(true);
  });
});
