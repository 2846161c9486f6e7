/**
 * A batch: one matrix run into a results database, as `bench run`, `bench sweep` and library callers
 * run it. runBatch counts and digests the scenarios, fits the token calibration, plans the jobs
 * (this shard's, less what a resumed batch already holds), picks or creates the batch, runs the rest
 * saving each run as it finishes, and returns the batch's runs in matrix order. It talks to the
 * database through BatchStore and reports what a user should see through callbacks; it prints nothing
 * itself.
 */
import { randomBytes } from 'node:crypto';
import { CtxbenchError } from '../core/errors.js';
import type { Params } from '../core/params.js';
import { runId, runLabel } from '../core/run-names.js';
import { stableJson } from '../core/stable-json.js';
import type { BatchInfo, CalibrationRecord, RunResult, RunStatus } from '../core/run-records.js';
import type { TokenCounter } from '../core/tokens.js';
import { scenarioDigest } from '../scenarios/digest.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { calibrate, calibrationRecord, type CalibrationFile, type ModelCalibration } from './batch-calibration.js';
import { matrixFingerprint, sharedBatchId } from './fingerprint.js';
import { jobKey, planJobs, type Job } from './job-plan.js';
import { runMatrix, type MatrixOptions } from './matrix.js';
import { planBatch, type BatchPlan } from './resume.js';
import { jobsOfShard, type Shard } from './shard.js';

/** What runBatch reads and writes in a results database (src/store's ResultStore is one). */
export interface BatchStore {
  /** How messages name the database: its path as the user gave it. */
  readonly file: string;
  /** The most recently created batch that ran the matrix with this fingerprint. */
  latestBatchId(fingerprint: string): Promise<string | undefined>;
  /** The batch `batchId` with the fingerprint of the matrix it ran, if the database has it. */
  findBatch(batchId: string): Promise<{ readonly fingerprint: string | undefined } | undefined>;
  loadBatches(batchIds: readonly string[]): Promise<BatchInfo[]>;
  saveBatch(batch: BatchInfo): Promise<void>;
  /** How each run of a batch ended, by run id. */
  runStatuses(batchId: string): Promise<ReadonlyMap<string, RunStatus>>;
  loadRuns(filter: { readonly runIds: readonly string[] }): Promise<RunResult[]>;
  /** Deletes runs with everything recorded of them, all or none. */
  deleteRuns(runIds: readonly string[]): Promise<void>;
  saveCalibration(records: readonly CalibrationRecord[]): Promise<void>;
  /**
   * Saves a finished run with everything recorded of it, all or none. Called again before the last
   * save resolved, as runs finish: a store may write the runs waiting together.
   */
  saveRun(run: RunResult): Promise<void>;
  /** No more runs are coming: a store that holds runs back to write them together writes them now. */
  flushRuns(): void;
}

/** The batch runBatch writes to, and what it runs there (for messages and progress bars). */
export interface BatchStart {
  readonly batchId: string;
  /** False when the batch was already in the database (resumed, another shard's, or a given id). */
  readonly isNew: boolean;
  /** Jobs in the whole matrix. */
  readonly matrixJobs: number;
  /** Jobs of this shard (all of the matrix's without one). */
  readonly ownJobs: number;
  /** Finished runs the batch already holds: kept. */
  readonly kept: number;
  /** Jobs to run now, the redone ones included. */
  readonly toRun: number;
  /** Agent steps those jobs replay at most. */
  readonly toRunSteps: number;
  /** Runs a backend error ended: deleted and run again. */
  readonly redo: number;
}

export interface BatchOptions
  extends Pick<MatrixOptions, 'scenarios' | 'entries' | 'execution' | 'maxOutputTokens' | 'askProbes' | 'replay' | 'strategyTimeout' | 'counter' | 'priceModel' | 'onStep' | 'signal' | 'releaseScenarios' | 'spillRuns'> {
  readonly store: BatchStore;
  /** The backend as the user named it ("mock", "ollama:chat:qwen2.5-coder:7b"): part of the matrix's fingerprint. */
  readonly model: string;
  /** The backend settings that shape results (the mock's recall, a live server's URL): stored with every run. */
  readonly backendOptions: Params;
  /** Replaces every scenario's model window (--window). */
  readonly windowOverride?: number | undefined;
  /** Calibrate token counts per model (fitted on the scenarios' recorded usage, else built in). Default true. */
  readonly calibrate?: boolean | undefined;
  /** Apply these stored calibrations instead of fitting (--calibration file.json). */
  readonly calibrationFile?: CalibrationFile | undefined;
  /** Run only this shard of the matrix, in the batch every shard derives from the matrix. */
  readonly shard?: Shard | undefined;
  /** The batch to store the runs under. Default: a new id; with `shard`, the one the shards share. */
  readonly batchId?: string | undefined;
  /**
   * Continue the latest batch of the same matrix: keep its finished runs, redo those a backend error
   * ended, run the rest (a new batch when there is none). Default false: a run already in the batch
   * is refused, it would be stored twice.
   */
  readonly resume?: boolean | undefined;
  /**
   * Recorded with a new batch: the command that ran it, ctxbench's version and commit; `code`, a digest
   * of the running build's code, is part of the matrix's fingerprint (another build is another matrix).
   */
  readonly origin: Pick<BatchInfo, 'command' | 'version' | 'gitSha'> & { readonly code?: string | undefined };
  /**
   * Each scenario's messages counted and its content digested, one scenario after another, before
   * anything else: `done` of `total` (on 100 scenarios of 400 steps, about 4 s).
   */
  readonly onPrepared?: ((done: number, total: number) => void) | undefined;
  /** The token calibration, before anything runs. */
  readonly onCalibration?: ((calibration: readonly ModelCalibration[]) => void) | undefined;
  /** The batch is chosen, before its runs start. */
  readonly onStart?: ((start: BatchStart) => void) | undefined;
  /** Something the user should know before the runs (a model whose window is a guess). */
  readonly onWarning?: ((message: string) => void) | undefined;
  /** A run is finished and saved. */
  readonly onRun?: ((run: RunResult) => void) | undefined;
}

export interface BatchResult {
  /** The batch the runs are stored under. */
  readonly batch: BatchInfo | undefined;
  /** The batch's runs of this matrix (or shard): those kept and those run now, in matrix order. */
  readonly runs: RunResult[];
  /** The token calibration the runs counted with, as the batch stores it. */
  readonly calibration: CalibrationRecord[];
  /**
   * The signal aborted: the runs in progress were saved and no more started. Not an error here: the
   * runs so far are the result, and the same call with `resume` runs the rest.
   */
  readonly interrupted: boolean;
}

/** Runs the matrix (or `shard` of it) into a batch of `store`; returns the batch's runs in matrix order. */
export async function runBatch(options: BatchOptions): Promise<BatchResult> {
  const { scenarios, entries, store, counter } = options;
  prepareScenarios(scenarios, counter, options.onPrepared);
  const calibrating = options.calibrate ?? true;
  const fingerprint = matrixFingerprint({
    scenarios,
    entries,
    settings: {
      window: options.windowOverride,
      model: options.model,
      backendOptions: options.backendOptions,
      maxOutputTokens: options.maxOutputTokens,
      encoding: counter.encoding,
      calibrate: calibrating,
      // Stored calibrations shape every count: a batch run with other ones is another matrix.
      calibrationFile: options.calibrationFile === undefined ? undefined : stableJson(options.calibrationFile.calibrations),
      priceModel: options.priceModel,
      // Undefined for teacher forcing: a forced batch keeps the fingerprint it had before reactive replay existed.
      replay: options.replay === undefined ? undefined : stableJson(options.replay),
      // Probes asked of the model and probes looked up in the context are graded otherwise.
      askProbes: options.askProbes === true ? true : undefined,
      // Runs of another build of ctxbench are not this matrix's: --resume and shards never join them.
      code: options.origin.code,
    },
  });
  const { calibrations: calibration, missing } = calibrating ? calibrate(scenarios.map((s) => s.scenario), counter, options.calibrationFile) : { calibrations: [], missing: [] };
  options.onCalibration?.(calibration);
  for (const model of missing) {
    options.onWarning?.(`${options.calibrationFile!.path} has no calibration of ${model} (${counter.encoding}): its scenarios are counted uncalibrated`);
  }
  const plan = planJobs(scenarios, entries, { windowOverride: options.windowOverride, calibration: new Map(calibration.map((c) => [c.key, { factor: c.factor, overhead: c.overhead }])), encoding: counter.encoding });
  const own = options.shard === undefined ? plan.jobs : jobsOfShard(plan.jobs, options.shard);
  const { batchId, isNew, work } = await chooseBatch(options, fingerprint, own);
  options.onStart?.({
    batchId,
    isNew,
    matrixJobs: plan.jobs.length,
    ownJobs: own.length,
    kept: work.kept.length,
    toRun: work.toRun.length,
    toRunSteps: work.toRun.reduce((n, job) => n + job.weight, 0),
    redo: work.redo.length,
  });

  const saved = work.kept.length > 0 ? await store.loadRuns({ runIds: work.kept }) : [];
  await store.deleteRuns(work.redo);
  let batch: BatchInfo | undefined;
  const records = calibration.map((c) => calibrationRecord(batchId, c));
  if (isNew) {
    batch = { batchId, createdAt: new Date(), command: options.origin.command, version: options.origin.version, fingerprint, gitSha: options.origin.gitSha };
    await store.saveBatch(batch);
    await store.saveCalibration(records);
  } else {
    batch = (await store.loadBatches([batchId]))[0];
  }
  plan.warnings.forEach((message) => options.onWarning?.(message));
  // A run's save is not waited for before the next finishes: the store writes the runs that finish
  // meanwhile together (ResultStore.saveRun). The first failed save fails the next run handed in,
  // which stops the matrix; every save has settled when runBatch returns or throws.
  const saves: Promise<void>[] = [];
  let saveFailure: unknown;
  const save = (run: RunResult): void => {
    if (saveFailure !== undefined) throw saveFailure;
    saves.push(
      store
        .saveRun(run)
        .then(() => {
          saved.push(run);
          options.onRun?.(run);
        })
        .catch((error: unknown) => void (saveFailure ??= error)),
    );
  };
  try {
    await runMatrix({
      scenarios,
      entries,
      jobs: work.toRun,
      execution: options.execution,
      backendOptions: options.backendOptions,
      maxOutputTokens: options.maxOutputTokens,
      askProbes: options.askProbes,
      replay: options.replay,
      strategyTimeout: options.strategyTimeout,
      counter,
      batchId,
      priceModel: options.priceModel,
      signal: options.signal,
      releaseScenarios: options.releaseScenarios,
      spillRuns: options.spillRuns,
      onStep: options.onStep,
      onRun: async (run) => save(run),
    });
  } finally {
    store.flushRuns();
    await Promise.all(saves);
  }
  if (saveFailure !== undefined) throw saveFailure;

  // Kept runs first, then new ones as they finished: listed in matrix order, whatever -j and however
  // often the batch was resumed.
  const order = new Map(plan.jobs.map((job) => [job.key, job.index]));
  saved.sort((a, b) => order.get(keyOf(a))! - order.get(keyOf(b))!);
  return { batch, runs: saved, calibration: records, interrupted: options.signal?.aborted ?? false };
}

/**
 * Counts every message (the counter keeps each count) and digests every scenario (scenarioDigest keeps
 * it): the calibration, the fingerprint, the plan and the worker threads' parcels all read them, and
 * this pass is where the time goes that they find done, so it can be shown.
 */
function prepareScenarios(scenarios: readonly LoadedScenario[], counter: TokenCounter, onPrepared: BatchOptions['onPrepared']): void {
  scenarios.forEach(({ scenario }, index) => {
    for (const message of scenario.messages) counter.countMessage(message);
    scenarioDigest(scenario);
    onPrepared?.(index + 1, scenarios.length);
  });
}

const keyOf = (run: RunResult): string => jobKey(runLabel(run.config.strategy, run.config.variant), run.config.scenarioId);

/** A batch id that sorts by time: `20250501T100000Z-1a2b3c`. */
function newBatchId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

type JobInBatch = Job & { readonly runId: string };

/**
 * The batch this call writes to, and what it runs there. Shards of one matrix share a batch id
 * derived from its fingerprint; `resume` continues the latest batch of the same matrix. Runs already
 * in the batch are kept with `resume` and refused without it (they would be doubled).
 */
async function chooseBatch(options: BatchOptions, fingerprint: string, jobs: readonly Job[]): Promise<{ batchId: string; isNew: boolean; work: BatchPlan<JobInBatch> }> {
  const { store } = options;
  const batchId =
    options.batchId ??
    (options.shard !== undefined ? sharedBatchId(fingerprint) : options.resume ? ((await store.latestBatchId(fingerprint)) ?? newBatchId()) : newBatchId());
  const planned = jobs.map((job) => ({ ...job, runId: runId(batchId, job.label, job.scenarioId) }));
  const existing = await store.findBatch(batchId);
  if (existing === undefined) return { batchId, isNew: true, work: planBatch(planned, new Map()) };
  if (options.resume && existing.fingerprint !== fingerprint) {
    throw new CtxbenchError(
      'OPTION_INVALID',
      `--resume: batch ${batchId} in ${store.file} ran another matrix (scenarios, strategies, parameters, settings or the build of ctxbench differ); pass the flags it ran with, or drop --resume`,
    );
  }
  const work = planBatch(planned, await store.runStatuses(batchId));
  const already = work.kept.length + work.redo.length;
  if (!options.resume && already > 0) {
    throw new CtxbenchError(
      'OPTION_INVALID',
      `--db ${store.file}: batch ${batchId} already has ${already} of these ${jobs.length} runs; pass --resume to run only the missing ones, or another --batch-id`,
    );
  }
  return { batchId, isNew: false, work };
}
