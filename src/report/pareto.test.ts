import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunResult, RunStatus } from '../core/run-records.js';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import type { Column } from './columns.js';
import { paretoOf, runSuccess, WITHIN } from './pareto.js';

const [template] = sampleRuns() as [RunResult];

interface RunSpec {
  readonly scenario?: string;
  readonly status?: RunStatus;
  readonly probes?: readonly [passed: number, total: number];
  readonly recall?: readonly [present: number, total: number];
  readonly cost?: number | undefined;
  readonly inputTokens?: number;
  readonly priceModel?: string;
}

function run(spec: RunSpec): RunResult {
  const [passed, total] = spec.probes ?? [0, 0];
  return {
    ...template,
    config: { ...template.config, scenarioId: spec.scenario ?? 's1', priceModel: spec.priceModel ?? template.config.priceModel },
    summary: {
      ...template.summary,
      status: spec.status ?? 'completed',
      probes: { total, verbatim: passed, summary: 0, recoverable: 0, lost: total - passed },
      referenceRecall: spec.recall ? { present: spec.recall[0], total: spec.recall[1] } : undefined,
      costUsd: 'cost' in spec ? spec.cost : 1,
      inputTokens: spec.inputTokens ?? 1000,
    },
  };
}

const column = (label: string): Column => ({ label, name: label, sub: '', color: '#000', dash: [] });
const group = (label: string, ...runs: RunResult[]) => ({ col: column(label), runs });

describe('runSuccess', () => {
  it('is 0 for a run that did not replay every step, whatever it kept', () => {
    for (const status of ['truncated', 'overflow', 'invalid_context', 'stopped', 'error'] as const) {
      expect(runSuccess(run({ status, probes: [4, 4], recall: [9, 9] }))).toBe(0);
    }
  });

  it('is the share of probes passed, of references kept, or their mean', () => {
    expect(runSuccess(run({ probes: [3, 4] }))).toBe(0.75);
    expect(runSuccess(run({ recall: [9, 10] }))).toBe(0.9);
    expect(runSuccess(run({ probes: [1, 2], recall: [1, 1] }))).toBe(0.75);
  });

  it('is 1 for a completed run with nothing to check', () => {
    expect(runSuccess(run({ recall: [0, 0] }))).toBe(1);
    expect(runSuccess(run({}))).toBe(1);
  });
});

describe('paretoOf', () => {
  it('recommends the cheapest configuration within one point of the best, and says why', () => {
    const pareto = paretoOf([
      group('raw', run({ status: 'overflow', cost: 1 })),
      group('masking', run({ probes: [99, 100], cost: 3 })),
      group('summary', run({ probes: [100, 100], cost: 5 })),
      group('window', run({ probes: [90, 100], cost: 4 })),
    ]);
    expect(pareto.axis).toBe('dollars');
    expect(pareto.recommended).toBe('masking');
    expect(pareto.rule).toBe(
      'The cheapest configuration (by dollars) whose success is within 1 percentage point of the best (100.0%): masking, 99.0% for $3.00.',
    );
    expect(pareto.points.map((p) => [p.label, p.costText, p.successText, p.front, p.recommended])).toEqual([
      ['raw', '$1.00', '0.0%', true, false],
      ['masking', '$3.00', '99.0%', true, true],
      ['window', '$4.00', '90.0%', false, false],
      ['summary', '$5.00', '100.0%', true, false],
    ]);
  });

  it('falls back to billed input tokens when a run has no price', () => {
    const pareto = paretoOf([group('a', run({ cost: undefined, inputTokens: 5000, probes: [1, 1] })), group('b', run({ cost: 2, inputTokens: 7000, probes: [1, 1] }))]);
    expect(pareto.axis).toBe('billed input tokens');
    expect(pareto.points.map((p) => p.costText)).toEqual(['5,000 tokens', '7,000 tokens']);
    expect(pareto.recommended).toBe('a');
  });

  it('weighs billed input tokens when every configuration ran on a local model ($0 each)', () => {
    const local = (inputTokens: number, probes: [number, number]) => run({ cost: 0, priceModel: 'local', inputTokens, probes });
    const pareto = paretoOf([group('a', local(9000, [2, 2])), group('b', local(4000, [2, 2]))]);
    expect(pareto.axis).toBe('billed input tokens');
    expect(pareto.recommended).toBe('b');
  });

  it('compares configurations on the scenarios they all ran, and says so', () => {
    const pareto = paretoOf([
      group('a', run({ scenario: 's1', probes: [1, 1] }), run({ scenario: 's2', status: 'overflow' })),
      group('b', run({ scenario: 's1', probes: [1, 2] })),
    ]);
    expect(pareto.note).toBe('Compared on the 1 of 2 scenarios every configuration ran.');
    expect(pareto.points.find((p) => p.label === 'a')!.success).toBe(1);
    expect(paretoOf([group('a', run({ scenario: 's1' })), group('b', run({ scenario: 's2' }))]).points).toEqual([]);
  });

  it('prints a cost as the summary table does: rounded once, from the exact sum', () => {
    // 207.51504125 is $207.52; rounded to 4 decimals first (207.5150) it read $207.51.
    const pareto = paretoOf([group('a', run({ cost: 207.51504125, probes: [1, 1] })), group('b', run({ cost: 300.00504125, probes: [1, 1] }))]);
    expect(pareto.points.map((p) => p.costText)).toEqual(['$207.52', '$300.01']);
    expect(pareto.rule).toMatch(/a, 100\.0% for \$207\.52\.$/);
    expect(pareto.runnerUp).toBe('b, 100.0% for $300.01');
  });

  it('names a lone configuration without pretending to compare', () => {
    expect(paretoOf([group('a', run({}))]).rule).toBe('Only one configuration ran: a.');
  });

  it('recommends nothing when no configuration completed a run', () => {
    const pareto = paretoOf([group('a', run({ status: 'overflow', cost: 1 })), group('b', run({ status: 'overflow', cost: 2 }))]);
    expect(pareto.recommended).toBeNull();
    expect(pareto.points.some((p) => p.recommended)).toBe(false);
    expect(pareto.rule).toMatch(/^No configuration completed a run .*: nothing to recommend; try a larger window or other settings\.$/);
    // Every run errored (a backend down): the way out is to run them again, not a larger window.
    const errored = paretoOf([group('a', run({ status: 'error', cost: 1 })), group('b', run({ status: 'error', cost: 2 }))]);
    expect(errored.rule).toBe('No configuration completed a run (every run ended with an error): nothing to recommend; bench run --resume runs them again.');
  });

  it('keeps the front and the recommendation consistent for any costs and successes', () => {
    const point = fc.record({ cost: fc.integer({ min: 0, max: 50 }), passed: fc.integer({ min: 0, max: 20 }), overflow: fc.boolean() });
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 12 }), (specs) => {
        const pareto = paretoOf(specs.map((s, i) => group(`c${i}`, run({ cost: s.cost, probes: [s.passed, 20], status: s.overflow ? 'overflow' : 'completed' }))));
        const { points } = pareto;
        const dominated = (p: (typeof points)[number]) =>
          points.some((q) => q.cost <= p.cost && q.success >= p.success && (q.cost < p.cost || q.success > p.success));
        for (const p of points) expect(p.front).toBe(!dominated(p));
        const best = Math.max(...points.map((p) => p.success));
        const picked = points.filter((p) => p.recommended);
        // Nothing completed: no default, and the page says why.
        if (best === 0) {
          expect(picked).toEqual([]);
          expect(pareto.recommended).toBeNull();
          return;
        }
        expect(picked).toHaveLength(1);
        expect(picked[0]!.front).toBe(true);
        expect(picked[0]!.success).toBeGreaterThanOrEqual(best - WITHIN - 1e-9);
        // Nothing cheaper is within the band.
        expect(points.some((p) => p.cost < picked[0]!.cost && p.success >= best - WITHIN - 1e-9)).toBe(false);
        // Cheapest first.
        expect(points.map((p) => p.cost)).toEqual([...points.map((p) => p.cost)].sort((a, b) => a - b));
      }),
    );
  });
});

describe('paretoOf: a sweep', () => {
  const setting = (softThreshold: number, cost: number, passed: number) => {
    const r = run({ cost, probes: [passed, 4] });
    return group(`masking (softThreshold=${softThreshold})`, { ...r, config: { ...r.config, strategy: 'masking', params: { softThreshold, keep_last: 2 } } });
  };

  it('says when the recommended setting is at the edge of the grid, and names the runner-up', () => {
    // All pass 4/4: the cheapest, the largest threshold, is picked; the next cheapest is the runner-up.
    const edge = paretoOf([setting(0.5, 3, 4), setting(0.7, 2, 4), setting(0.9, 1, 4)]);
    expect(edge.recommended).toBe('masking (softThreshold=0.9)');
    expect(edge.edge).toBe('softThreshold=0.9, the largest of 0.5 to 0.9');
    expect(edge.runnerUp).toBe('masking (softThreshold=0.7), 100.0% for $2.00');
    const inside = paretoOf([setting(0.5, 3, 4), setting(0.7, 1, 4), setting(0.9, 2, 4)]);
    expect(inside.recommended).toBe('masking (softThreshold=0.7)');
    expect(inside.edge).toBeNull();
    // Two settings are no grid to extend.
    expect(paretoOf([setting(0.5, 3, 4), setting(0.9, 1, 4)]).edge).toBeNull();
  });

  it('does not ask to extend a grid past values it asked for that were refused, and names them', () => {
    // --grid softThreshold=0.5:0.9:0.1 with 0.9 refused (not below hardThreshold): 0.8 is the largest that ran.
    const ran = [setting(0.5, 4, 4), setting(0.6, 3, 4), setting(0.7, 2, 4), setting(0.8, 1, 4)];
    const refused = paretoOf(ran, ['bench sweep -s masking --grid softThreshold=0.5:0.9:0.1 --window 32k']);
    expect(refused.recommended).toBe('masking (softThreshold=0.8)');
    expect(refused.edge).toBeNull();
    expect(refused.refused).toBe('softThreshold 0.9');
    // Without the command (or with a grid that ran whole) it is an edge as before.
    expect(paretoOf(ran).edge).toBe('softThreshold=0.8, the largest of 0.5 to 0.8');
    expect(paretoOf(ran, ['bench sweep -s masking --grid=softThreshold=0.5,0.6,0.7,0.8']).edge).toBe('softThreshold=0.8, the largest of 0.5 to 0.8');
  });
});
