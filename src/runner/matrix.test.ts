import { describe, expect, it } from 'vitest';
import { createTokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import { select } from '../strategies/index.js';
import { defaultParams } from '../strategies/params.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { runMatrix } from './matrix.js';
import type { RunResult } from './types.js';

/** What a run decided, without its timestamps. */
const outcome = (r: RunResult) => ({ id: r.runId, summary: r.summary, steps: r.steps, events: r.events, probes: r.probes });

describe('runMatrix', () => {
  it('gives the same results, in matrix order, whatever the concurrency', async () => {
    const counter = await createTokenCounter('o200k_base');
    const scenarios = [1, 2, 3].map((n) => ({ scenario: scenarioOf(sweScenarioMessages(10 * n, 600, 200), `s${n}`), format: 'ctxbench' }));
    const entries = select(['raw,masking,summarization,checkpoint-restart']).map((s) => ({ strategy: s.strategy, params: defaultParams(s.strategy.params) }));
    const run = async (concurrency: number) => {
      const saved: string[] = [];
      const results = await runMatrix({
        scenarios,
        entries,
        backend: createMockBackend(counter),
        counter,
        batchId: 'b',
        windowOverride: 2500,
        concurrency,
        onRun: async (r) => void saved.push(r.runId),
      });
      return { results: results.map(outcome), saved };
    };
    const one = await run(1);
    const three = await run(3);
    expect(three.results).toEqual(one.results);
    expect(one.results.map((r) => r.id)).toEqual(scenarios.flatMap(({ scenario }) => entries.map((e) => `b/${e.strategy.name}/${scenario.id}`)));
    expect([...three.saved].sort()).toEqual([...one.saved].sort());
  });
});

describe('runMatrix skip', () => {
  it('runs only the jobs not skipped, with the results they have in the whole matrix', async () => {
    const counter = await createTokenCounter('o200k_base');
    const scenarios = [1, 2].map((n) => ({ scenario: scenarioOf(sweScenarioMessages(8 * n, 600, 200), `s${n}`), format: 'ctxbench' }));
    const entries = select(['raw,masking']).map((s) => ({ strategy: s.strategy, params: defaultParams(s.strategy.params) }));
    const options = { scenarios, entries, backend: createMockBackend(counter), counter, batchId: 'b', windowOverride: 2500, onRun: async () => {} };
    const all = await runMatrix(options);
    const some = await runMatrix({ ...options, skip: (scenario, entry) => scenario.id === 's1' && entry.strategy.name === 'masking' });
    expect(some.map((r) => r.runId)).toEqual(['b/raw/s1', 'b/raw/s2', 'b/masking/s2']);
    expect(some.map(outcome)).toEqual(all.filter((r) => r.runId !== 'b/masking/s1').map(outcome));
  });
});
