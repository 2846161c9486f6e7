/**
 * Real runs for store tests: a small matrix (2 scenarios x raw, masking) replayed on the mock.
 */
import { createTokenCounter } from '../../src/core/tokens.js';
import { createMockBackend } from '../../src/llm/mock.js';
import { planJobs } from '../../src/runner/job-plan.js';
import { runMatrix } from '../../src/runner/matrix.js';
import type { RunResult } from '../../src/core/run-records.js';
import { select } from '../../src/strategies/index.js';
import { defaultParams } from '../../src/core/params.js';
import { scenarioOf, sweScenarioMessages } from './history.js';

/** Four runs of batch `batchId`: raw overflows the 2,000-token window, masking restarts. */
export async function mockRuns(batchId: string): Promise<RunResult[]> {
  const counter = await createTokenCounter('o200k_base');
  const scenarios = [1, 2].map((n) => ({ scenario: scenarioOf(sweScenarioMessages(6 * n, 400), `s${n}`), format: 'ctxbench' }));
  const entries = select(['raw,masking']).map((s) => ({ strategy: s.strategy, params: defaultParams(s.strategy.params) }));
  return runMatrix({
    scenarios,
    entries,
    jobs: planJobs(scenarios, entries, { windowOverride: 2000, encoding: counter.encoding }).jobs,
    execution: { kind: 'in-thread', backend: createMockBackend(counter) },
    counter,
    batchId,
    onRun: async () => {},
  });
}
