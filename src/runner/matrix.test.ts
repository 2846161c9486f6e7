import { describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import { assistantMessage, systemMessage } from '../core/messages.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { select } from '../strategies/index.js';
import { defaultParams } from '../core/params.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { planJobs, type PlanSettings } from './job-plan.js';
import { fitsInThread, IN_THREAD_MESSAGES, runMatrix, type Execution, type MatrixOptions } from './matrix.js';
import type { RunResult } from '../core/run-records.js';

/** What a run decided, without its timestamps. */
const outcome = (r: RunResult) => ({ id: r.runId, config: r.config, summary: r.summary, steps: r.steps, events: r.events, probes: r.probes });

const scenarios: LoadedScenario[] = [1, 2, 3].map((n) => ({ scenario: scenarioOf(sweScenarioMessages(10 * n, 600, 200), `s${n}`), format: 'ctxbench' }));
const entries = select(['raw,masking,summarization,checkpoint-restart']).map((s) => ({ strategy: s.strategy, params: defaultParams(s.strategy.params) }));
const matrixOrder = scenarios.flatMap(({ scenario }) => entries.map((e) => `b/${e.strategy.name}/${scenario.id}`));
/** Every job of the matrix in a 2,500-token window. */
const jobsOf = (settings: Partial<PlanSettings> = {}) => planJobs(scenarios, entries, { windowOverride: 2500, encoding: 'o200k_base', ...settings }).jobs;

async function runWith(counter: TokenCounter, execution: Execution, more: Partial<MatrixOptions> = {}) {
  const saved: string[] = [];
  const steps: number[] = [];
  const results = await runMatrix({
    scenarios,
    entries,
    jobs: jobsOf(),
    execution,
    backendOptions: { recall: 0.8 },
    counter,
    batchId: 'b',
    onStep: (_step, _total, promptTokens) => void steps.push(promptTokens),
    onRun: async (r) => void saved.push(r.runId),
    ...more,
  });
  return { results: results.map(outcome), saved, steps };
}

describe('runMatrix', () => {
  it('gives the same results, in matrix order, whatever the in-thread concurrency', async () => {
    const counter = await createTokenCounter('o200k_base');
    const backend = createMockBackend(counter);
    const one = await runWith(counter, { kind: 'in-thread', backend, concurrency: 1 });
    const three = await runWith(counter, { kind: 'in-thread', backend, concurrency: 3 });
    expect(three.results).toEqual(one.results);
    expect(one.results.map((r) => r.id)).toEqual(matrixOrder);
    expect([...three.saved].sort()).toEqual([...one.saved].sort());
  });

  it('records with each run the content digest of its scenario (the job plan’s)', async () => {
    const counter = await createTokenCounter('o200k_base');
    const { results } = await runWith(counter, { kind: 'in-thread', backend: createMockBackend(counter) });
    const digestOf = new Map(jobsOf().map((j) => [j.scenarioId, j.scenarioDigest]));
    expect(results.map((r) => r.config.scenarioDigest)).toEqual(results.map((r) => digestOf.get(r.config.scenarioId)));
    expect(new Set(results.map((r) => r.config.scenarioDigest)).size).toBe(scenarios.length);
  });

  it('with spillRuns, gives the same results, their steps and events read back from the file (in this thread and on workers)', async () => {
    const counter = await createTokenCounter('o200k_base');
    const kept = await runWith(counter, { kind: 'in-thread', backend: createMockBackend(counter) });
    const spilled = await runWith(counter, { kind: 'in-thread', backend: createMockBackend(counter) }, { spillRuns: true });
    const onWorkers = await runWith(counter, { kind: 'workers', threads: 2, mock: {} }, { spillRuns: true });
    expect(spilled.results).toEqual(kept.results);
    expect(onWorkers.results).toEqual(kept.results);
    expect(kept.results.some((r) => r.events.length > 0)).toBe(true);
  });

  describe('on worker threads', () => {
    it('gives the results of the in-thread replay, in matrix order, with 1 or 2 threads', async () => {
      const counter = await createTokenCounter('o200k_base');
      const inThread = await runWith(counter, { kind: 'in-thread', backend: createMockBackend(counter) });
      const one = await runWith(counter, { kind: 'workers', threads: 1, mock: {} });
      const two = await runWith(counter, { kind: 'workers', threads: 2, mock: {} });
      expect(one.results).toEqual(inThread.results);
      expect(two.results).toEqual(inThread.results);
      expect(two.results.map((r) => r.id)).toEqual(matrixOrder);
      expect([...two.saved].sort()).toEqual([...matrixOrder].sort());
      // Every step is reported to the main thread (the progress bar).
      expect(two.steps.length).toBe(inThread.steps.length);
      expect(two.steps.reduce((a, b) => a + b, 0)).toBe(inThread.steps.reduce((a, b) => a + b, 0));
    });

    it('with releaseScenarios, gives the same results and leaves none of the scenarios held', async () => {
      const counter = await createTokenCounter();
      const held: LoadedScenario[] = [...scenarios];
      const released = await runWith(counter, { kind: 'workers', threads: 2, mock: {} }, { scenarios: held, releaseScenarios: true });
      const kept = await runWith(counter, { kind: 'workers', threads: 2, mock: {} });
      expect(released.results).toEqual(kept.results);
      expect(held).toEqual([undefined, undefined, undefined]);
    });

    it('passes the mock options and calibration to every worker', async () => {
      const counter = await createTokenCounter('o200k_base');
      const calibration = new Map([[`${scenarios[0]!.scenario.model.name}|o200k_base`, { factor: 1.25, overhead: 40 }]]);
      const mock = { recall: 0.3, summaryTokens: 120, seed: 7 };
      const inThread = await runWith(counter, { kind: 'in-thread', backend: createMockBackend(counter, mock) }, { jobs: jobsOf({ calibration }) });
      const workers = await runWith(counter, { kind: 'workers', threads: 2, mock }, { jobs: jobsOf({ calibration }) });
      expect(workers.results).toEqual(inThread.results);
      expect(workers.results.map((r) => [r.config.calibrationFactor, r.config.calibrationOverhead])).toEqual(matrixOrder.map(() => [1.25, 40]));
      expect(workers.results.map((r) => r.config.backendOptions)).toEqual(matrixOrder.map(() => ({ recall: 0.8 })));
    });

    it('stops handing out jobs when aborted, and returns every run it saved', async () => {
      const counter = await createTokenCounter('o200k_base');
      const abort = new AbortController();
      const saved: RunResult[] = [];
      const results = await runMatrix({
        scenarios,
        entries,
        jobs: jobsOf(),
        execution: { kind: 'workers', threads: 2, mock: {} },
        counter,
        batchId: 'b',
        signal: abort.signal,
        onRun: async (r) => {
          saved.push(r);
          abort.abort();
        },
      });
      expect(results.length).toBeGreaterThanOrEqual(1);
      // Each thread finishes the job it holds (handed out as its previous run arrived), nothing more.
      expect(results.length).toBeLessThanOrEqual(4);
      expect(results.map((r) => r.runId).sort()).toEqual(saved.map((r) => r.runId).sort());
    });

    it('turns a replay that throws into a one-line error naming the run, and keeps what was saved', async () => {
      const counter = await createTokenCounter('o200k_base');
      // Bypasses validation: an assistant message without toolCalls makes the replay throw.
      const broken = { ...assistantMessage({ id: 'm0001', content: 'x' }), toolCalls: undefined } as never;
      const bad: LoadedScenario = { scenario: { ...scenarios[0]!.scenario, id: 'broken', messages: [systemMessage({ id: 'm0000', content: 's' }), broken] }, format: 'ctxbench' };
      const saved: string[] = [];
      const run = runMatrix({
        scenarios: [scenarios[0]!, bad],
        entries: entries.slice(0, 1),
        jobs: planJobs([scenarios[0]!, bad], entries.slice(0, 1), { encoding: 'o200k_base' }).jobs,
        execution: { kind: 'workers', threads: 1, mock: {} },
        counter,
        batchId: 'b',
        onRun: async (r) => void saved.push(r.runId),
      });
      await expect(run).rejects.toThrow(CtxbenchError);
      await expect(run).rejects.toThrow(/^worker thread 1 failed while running raw x broken: [^\n]+$/);
      expect(saved).toEqual(['b/raw/s1']);
    });

    it('turns a worker that cannot start into a one-line error, not a hang', async () => {
      const counter = { ...(await createTokenCounter('o200k_base')), encoding: 'no-such-encoding' } as unknown as TokenCounter;
      const run = runMatrix({ scenarios, entries, jobs: jobsOf(), execution: { kind: 'workers', threads: 2, mock: {} }, counter, batchId: 'b', onRun: async () => {} });
      await expect(run).rejects.toThrow(/^worker thread \d failed[^\n]*: [^\n]+$/);
    });
  });
});

describe('runMatrix on some of the jobs', () => {
  it('runs only the jobs it is given, with the results they have in the whole matrix', async () => {
    const counter = await createTokenCounter('o200k_base');
    const scenarios = [1, 2].map((n) => ({ scenario: scenarioOf(sweScenarioMessages(8 * n, 600, 200), `s${n}`), format: 'ctxbench' }));
    const entries = select(['raw,masking']).map((s) => ({ strategy: s.strategy, params: defaultParams(s.strategy.params) }));
    const { jobs } = planJobs(scenarios, entries, { windowOverride: 2500, encoding: counter.encoding });
    const options = { scenarios, entries, jobs, execution: { kind: 'in-thread' as const, backend: createMockBackend(counter) }, counter, batchId: 'b', onRun: async () => {} };
    const all = await runMatrix(options);
    const some = await runMatrix({ ...options, jobs: jobs.filter((job) => job.key !== 'masking/s1') });
    expect(some.map((r) => r.runId)).toEqual(['b/raw/s1', 'b/raw/s2', 'b/masking/s2']);
    expect(some.map(outcome)).toEqual(all.filter((r) => r.runId !== 'b/masking/s1').map(outcome));
    expect(some.map((r) => r.matrixIndex)).toEqual([0, 2, 3]);
  });
});

describe('fitsInThread (where a mock matrix runs without -j)', () => {
  /** `count` scenarios of `messages` messages each. */
  const sized = (count: number, messages: number): LoadedScenario[] =>
    Array.from({ length: count }, (_, i) => ({ scenario: scenarioOf(sweScenarioMessages(messages / 2, 100, 50), `m${i}`), format: 'ctxbench' }));

  it('keeps a matrix of at most IN_THREAD_MESSAGES replayed messages in this thread, and sends a larger one to workers', () => {
    const perScenario = sized(1, 100)[0]!.scenario.messages.length;
    const fitting = Math.floor(IN_THREAD_MESSAGES / (entries.length * perScenario));
    expect(fitsInThread(entries, sized(fitting, 100))).toBe(true);
    expect(fitsInThread(entries, sized(fitting + 1, 100))).toBe(false);
  });

  it('sends a matrix with a strategy file to workers however small (only a worker can be stopped in a synchronous loop)', () => {
    const fromFile = [...entries, { ...entries[0]!, file: { path: '/abs/mine.ts', given: 'mine.ts', digest: 'd' } }];
    expect(fitsInThread(entries, sized(1, 20))).toBe(true);
    expect(fitsInThread(fromFile, sized(1, 20))).toBe(false);
  });
});
