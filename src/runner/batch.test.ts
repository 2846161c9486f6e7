import { describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import { defaultParams } from '../core/params.js';
import type { BatchInfo, CalibrationRecord, RunResult, RunStatus } from '../core/run-records.js';
import { createTokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import type { LoadedScenario } from '../scenarios/load.js';
import type { Message } from '../core/messages.js';
import { select } from '../strategies/index.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { runBatch, type BatchOptions, type BatchStart, type BatchStore } from './batch.js';

/** A results database in memory, as runBatch sees one. */
function fakeStore(file = 'fake.duckdb') {
  const batches = new Map<string, BatchInfo>();
  const runs = new Map<string, RunResult>();
  const calibration: CalibrationRecord[] = [];
  const store: BatchStore = {
    file,
    latestBatchId: async (fingerprint) => [...batches.values()].filter((b) => b.fingerprint === fingerprint).at(-1)?.batchId,
    findBatch: async (batchId) => (batches.has(batchId) ? { fingerprint: batches.get(batchId)!.fingerprint } : undefined),
    loadBatches: async (batchIds) => batchIds.flatMap((id) => batches.get(id) ?? []),
    saveBatch: async (batch) => void batches.set(batch.batchId, batch),
    runStatuses: async (batchId) => new Map([...runs.values()].filter((r) => r.batchId === batchId).map((r) => [r.runId, r.summary.status])),
    loadRuns: async ({ runIds }) => runIds.map((id) => runs.get(id)!),
    deleteRuns: async (runIds) => runIds.forEach((id) => runs.delete(id)),
    saveCalibration: async (records) => void calibration.push(...records),
    saveRun: async (run) => void runs.set(run.runId, run),
    flushRuns: () => undefined,
  };
  return { store, batches, runs, calibration };
}

const counter = await createTokenCounter('o200k_base');
/** Two scenarios x raw, masking in a 2,500-token window: raw overflows, masking completes. */
const scenarios: LoadedScenario[] = [
  { scenario: scenarioOf(sweScenarioMessages(8, 600, 200), 's1', 'gemini-3-pro-preview'), format: 'ctxbench' },
  { scenario: scenarioOf(sweScenarioMessages(12, 600, 200), 's2'), format: 'ctxbench' },
];
const entries = select(['raw,masking']).map((s) => ({ strategy: s.strategy, params: defaultParams(s.strategy.params) }));
const RUNS = ['raw/s1', 'masking/s1', 'raw/s2', 'masking/s2'];

/** What a run decided, without its timestamps and batch. */
const outcome = (r: RunResult) => ({ config: r.config, summary: r.summary, steps: r.steps, events: r.events, probes: r.probes, matrixIndex: r.matrixIndex });
const keysOf = (runs: readonly RunResult[], batchId: string) => runs.map((r) => r.runId.slice(batchId.length + 1));

function batchOptions(store: BatchStore, more: Partial<BatchOptions> = {}) {
  const starts: BatchStart[] = [];
  const options: BatchOptions = {
    scenarios,
    entries,
    store,
    execution: { kind: 'in-thread', backend: createMockBackend(counter) },
    counter,
    model: 'mock',
    backendOptions: { recall: 0.8 },
    windowOverride: 2500,
    origin: { command: 'bench run', version: '0.0.0-test' },
    onStart: (start) => void starts.push(start),
    ...more,
  };
  return { options, starts };
}

describe('runBatch', () => {
  it('counts and digests the scenarios one after another before anything else, telling each one done', async () => {
    const order: string[] = [];
    const known = new WeakMap<Message, number>(); // the counter's own cache
    const fresh = await createTokenCounter('o200k_base', known);
    const counted = (index: number): boolean => scenarios[index]!.scenario.messages.every((m) => known.has(m));
    const { options } = batchOptions(fakeStore().store, {
      counter: fresh,
      onPrepared: (done, total) => order.push(`prepared ${done}/${total} ${counted(done - 1)}`),
      onCalibration: () => order.push('calibration'),
      onStart: () => order.push('start'),
    });
    await runBatch(options);
    expect(order).toEqual(['prepared 1/2 true', 'prepared 2/2 true', 'calibration', 'start']);
  });

  describe('a new batch', () => {
    it('runs the whole matrix, saves each run, the batch and its calibration, and returns the runs in matrix order', async () => {
      const db = fakeStore();
      const calibrations: string[] = [];
      const { options, starts } = batchOptions(db.store, { onCalibration: (c) => calibrations.push(...c.map((x) => `${x.model} ${x.source}`)) });
      const result = await runBatch(options);
      const batchId = result.batch!.batchId;
      expect(batchId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
      expect(keysOf(result.runs, batchId)).toEqual(RUNS);
      expect(result.runs.map((r) => r.matrixIndex)).toEqual([0, 1, 2, 3]);
      expect(result.interrupted).toBe(false);
      expect([...db.runs.keys()].sort()).toEqual(result.runs.map((r) => r.runId).sort());
      expect(db.batches.get(batchId)).toMatchObject({ command: 'bench run', version: '0.0.0-test', fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(starts).toEqual([{ batchId, isNew: true, matrixJobs: 4, ownJobs: 4, kept: 0, toRun: 4, toRunSteps: 2 * 9 + 2 * 13, redo: 0 }]);
      // gemini-3-pro-preview has a built-in calibration; gpt-4o has none and these scenarios recorded no usage.
      expect(calibrations).toEqual(['gemini-3-pro-preview built-in']);
      expect(db.calibration).toEqual([{ batchId, model: 'gemini-3-pro-preview', encoding: 'o200k_base', factor: expect.any(Number), overhead: 0, source: 'built-in', samples: 0, scenarios: 0 }]);
      expect(result.calibration).toEqual(db.calibration);
      expect(result.runs[0]!.config.calibrationFactor).toBe(db.calibration[0]!.factor);
    });

    it('runs uncalibrated with calibrate: false', async () => {
      const db = fakeStore();
      const result = await runBatch(batchOptions(db.store, { calibrate: false }).options);
      expect(db.calibration).toEqual([]);
      expect(result.runs.every((r) => r.config.calibrationFactor === undefined)).toBe(true);
    });

    it('applies a calibration file instead of fitting: its factor and overhead in every run; a model it lacks runs uncalibrated, with a warning', async () => {
      const db = fakeStore();
      const warnings: string[] = [];
      const calibrationFile = { path: 'team.json', calibrations: [{ model: 'google/gemini-3-pro-preview', encoding: 'o200k_base' as const, factor: 1.3, overhead: 250 }] };
      const result = await runBatch(batchOptions(db.store, { calibrationFile, onWarning: (w) => warnings.push(w) }).options);
      expect(db.calibration).toEqual([expect.objectContaining({ model: 'gemini-3-pro-preview', factor: 1.3, overhead: 250, source: 'file', samples: 0 })]);
      const byModel = new Map(result.runs.map((r) => [r.config.model, [r.config.calibrationFactor, r.config.calibrationOverhead]]));
      expect([...byModel.values()]).toEqual([
        [1.3, 250],
        [undefined, undefined],
      ]);
      expect(warnings).toEqual(['team.json has no calibration of gpt-4o (o200k_base): its scenarios are counted uncalibrated']);
      // Other stored calibrations make another matrix: a batch run with them is not resumed by one without.
      const plain = await runBatch(batchOptions(fakeStore().store).options);
      expect(plain.batch!.fingerprint).not.toBe(result.batch!.fingerprint);
    });

    it('passes on the warning for a model whose window is a guess', async () => {
      const guessed = [{ scenario: scenarioOf(sweScenarioMessages(3, 100), 'g1', 'no-such-model'), format: 'ctxbench' }];
      const warnings: string[] = [];
      await runBatch(batchOptions(fakeStore().store, { scenarios: guessed, windowOverride: undefined, onWarning: (w) => warnings.push(w) }).options);
      expect(warnings).toEqual([expect.stringContaining('g1.json: unknown model "no-such-model"')]);
    });
  });

  describe('a batch the database already has', () => {
    it('refuses to store a run twice without resume, naming the database', async () => {
      const db = fakeStore('results.duckdb');
      await runBatch(batchOptions(db.store, { batchId: 'b' }).options);
      const again = runBatch(batchOptions(db.store, { batchId: 'b' }).options);
      await expect(again).rejects.toThrow(CtxbenchError);
      await expect(again).rejects.toThrow(
        '--db results.duckdb: batch b already has 4 of these 4 runs; pass --resume to run only the missing ones, or another --batch-id',
      );
    });

    it('with resume, keeps finished runs whatever their outcome, redoes backend errors, runs the missing: the results of one uninterrupted batch', async () => {
      const whole = await runBatch(batchOptions(fakeStore().store, { batchId: 'w' }).options);
      const db = fakeStore();
      const first = await runBatch(batchOptions(db.store).options);
      const batchId = first.batch!.batchId;
      db.runs.delete(`${batchId}/masking/s1`); // never finished (kill -9)
      const errored = db.runs.get(`${batchId}/raw/s2`)!;
      db.runs.set(errored.runId, { ...errored, summary: { ...errored.summary, status: 'error' as RunStatus } });

      const ran: string[] = [];
      const { options, starts } = batchOptions(db.store, { resume: true, onRun: (r) => ran.push(r.runId) });
      const resumed = await runBatch(options);
      expect(starts).toEqual([expect.objectContaining({ batchId, isNew: false, kept: 2, toRun: 2, redo: 1 })]);
      expect(ran.sort()).toEqual([`${batchId}/masking/s1`, `${batchId}/raw/s2`]);
      expect(keysOf(resumed.runs, batchId)).toEqual(RUNS);
      expect(resumed.runs.map(outcome)).toEqual(whole.runs.map(outcome));
      expect(db.runs.get(`${batchId}/raw/s2`)!.summary.status).not.toBe('error');
    });

    it.each([
      ['another setting', { windowOverride: 3000 }],
      ['another build of ctxbench', { origin: { command: 'bench run', version: '0.0.0-test', code: 'b1d0b1d0b1d0b1d0' } }],
      ['probes graded by asking', { askProbes: true }],
    ] as const)('with resume and no batch of this matrix (%s), starts a new one', async (_, before) => {
      const db = fakeStore();
      await runBatch(batchOptions(db.store, before).options);
      const { options, starts } = batchOptions(db.store, { resume: true });
      const result = await runBatch(options);
      expect(starts[0]).toMatchObject({ isNew: true, kept: 0, toRun: 4 });
      expect(db.batches.size).toBe(2);
      expect(result.runs).toHaveLength(4);
    });

    it('with resume, refuses a given batch that ran another matrix', async () => {
      const db = fakeStore('results.duckdb');
      await runBatch(batchOptions(db.store, { batchId: 'b', windowOverride: 3000 }).options);
      await expect(runBatch(batchOptions(db.store, { batchId: 'b', resume: true }).options)).rejects.toThrow(
        '--resume: batch b in results.duckdb ran another matrix (scenarios, strategies, parameters, settings or the build of ctxbench differ); pass the flags it ran with, or drop --resume',
      );
    });
  });

  describe('shards', () => {
    it('write one batch derived from the matrix; together they run every job once', async () => {
      const db = fakeStore();
      const one = batchOptions(db.store, { shard: { index: 1, count: 2 } });
      const two = batchOptions(db.store, { shard: { index: 2, count: 2 } });
      const first = await runBatch(one.options);
      const second = await runBatch(two.options);
      const batchId = first.batch!.batchId;
      expect(batchId).toMatch(/^matrix-[0-9a-f]{16}$/);
      expect(second.batch!.batchId).toBe(batchId);
      expect([one.starts[0]!.isNew, two.starts[0]!.isNew]).toEqual([true, false]);
      expect(one.starts[0]!.ownJobs + two.starts[0]!.ownJobs).toBe(4);
      expect(one.starts[0]!.matrixJobs).toBe(4);
      expect([...keysOf(first.runs, batchId), ...keysOf(second.runs, batchId)].sort()).toEqual([...RUNS].sort());
      expect(db.runs.size).toBe(4);
      await expect(runBatch(batchOptions(db.store, { shard: { index: 1, count: 2 } }).options)).rejects.toThrow(/already has \d of these \d runs/);
    });
  });

  describe('a failed save', () => {
    it('stops the matrix and fails the batch with the store\'s error once every save has settled', async () => {
      const db = fakeStore();
      const refused = new CtxbenchError('STORE_ERROR', 'fake.duckdb: cannot save run x (disk full)');
      let calls = 0;
      const store: BatchStore = { ...db.store, saveRun: async (run) => (++calls === 2 ? Promise.reject(refused) : db.store.saveRun(run)) };
      const announced: string[] = [];
      await expect(runBatch(batchOptions(store, { onRun: (run) => void announced.push(run.runId) }).options)).rejects.toBe(refused);
      expect(calls).toBeLessThan(RUNS.length);
      expect(announced).toEqual([...db.runs.keys()]);
    });
  });

  describe('aborted', () => {
    it('keeps every finished run, starts no more, says it was interrupted; resume runs the rest', async () => {
      const db = fakeStore();
      const abort = new AbortController();
      const result = await runBatch(batchOptions(db.store, { signal: abort.signal, onRun: () => abort.abort() }).options);
      expect(result.interrupted).toBe(true);
      expect(result.runs).toHaveLength(1);
      expect([...db.runs.keys()]).toEqual(result.runs.map((r) => r.runId));

      const { options, starts } = batchOptions(db.store, { resume: true });
      const resumed = await runBatch(options);
      expect(starts[0]).toMatchObject({ batchId: result.batch!.batchId, kept: 1, toRun: 3 });
      expect(resumed.interrupted).toBe(false);
      expect(keysOf(resumed.runs, result.batch!.batchId)).toEqual(RUNS);
    });
  });
});
