/**
 * Runs planned jobs on worker threads (the mock backend is CPU-bound: one thread per core). Each worker
 * builds its own counter, over the main thread's tokenizer rank table (shared memory, not a copy), and
 * its own mock (matrix-worker.ts); the main thread hands out jobs one at a time
 * (schedule.ts), sends each scenario to a worker once as a parcel with its token counts (tokenized
 * once, in the main thread, which counted them for the calibration already), and alone saves results and drives the progress
 * bar. A worker that crashes, or a replay that throws, ends the matrix with a one-line error after the
 * results already received are saved, never with a hang. A worker stuck in a strategy's hook past
 * --strategy-timeout (a synchronous loop its own timers cannot interrupt) is terminated by a watchdog
 * here: its run is recorded as `error` by a fresh worker, which goes on with the matrix.
 */
import type { Worker } from 'node:worker_threads';
import { moduleExtension, startWorker } from './start-worker.js';
import { CtxbenchError, errorLine } from '../core/errors.js';
import type { Job } from './job-plan.js';
import type { HeldScenarios } from './scenario-release.js';
import { createScheduler } from './schedule.js';
import type { PackedRun } from '../core/packed-run.js';
import type { JobMessage, WorkerMessage, WorkerSetup } from './worker-protocol.js';
import { createHookClock, DEFAULT_STRATEGY_TIMEOUT_SECONDS, overdueHook, timeoutFailure, type HookClock } from './strategy-guard.js';

/** The watchdog lets a worker's own timer (an async hook that never settles) answer first. */
const WATCHDOG_GRACE_MS = 1000;

export interface WorkerPoolOptions {
  readonly threads: number;
  readonly jobs: readonly Job[];
  /** The matrix's scenarios as the main thread holds them (scenario-release.ts): each sent as a parcel. */
  readonly scenarios: HeldScenarios;
  readonly setup: WorkerSetup;
  /** Checked before each job is handed out: once aborted, the jobs in flight finish and no more start. */
  readonly signal?: AbortSignal | undefined;
  readonly onStep?: ((step: number, total: number, promptTokens: number) => void) | undefined;
  /** Called once per finished run, its records packed, one call at a time; a job counts as done when it returns. */
  readonly onRun: (job: Job, run: PackedRun) => Promise<void>;
  /** How a job is named in an error ("masking x scenario-1"). */
  readonly describe: (job: Job) => string;
  /** The name of the strategy a job runs, for the watchdog's failure line. */
  readonly strategyOf: (job: Job) => string;
}

/** A matrix worker (matrix-worker.ts, next to this module). */
function spawn(setup: WorkerSetup): Worker {
  const entry = new URL(`./matrix-worker.${moduleExtension(import.meta.url)}`, import.meta.url);
  return startWorker(entry, setup, { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB });
}

/**
 * A worker's young generation (V8 sizes it from the machine's memory: up to 48 MB per thread). A
 * replay's garbage is short-lived (a step's strings and records), and a smaller one holds less of it
 * at a time but collects more often. Measured on 20 x 400 generated steps: peak RSS of -s all -j 2
 * 579-619 MB by default, 519-532 MB at 16, 505-521 MB at 8; a worker's GC time in -s all -j 1 1.9 s
 * by default, 2.3-2.4 s at 16, 3.1 s at 8 (of about 16 s).
 */
const WORKER_YOUNG_GENERATION_MB = 16;

interface Slot {
  readonly id: number;
  /** Replaced when the watchdog stops a stuck one; events of a replaced worker are ignored. */
  worker: Worker;
  readonly clock: HookClock;
  job?: Job | undefined;
  /** The scenario the worker holds (it keeps one at a time). */
  holds?: number | undefined;
  retired: boolean;
}

export function runOnWorkers(options: WorkerPoolOptions): Promise<void> {
  const { jobs, scenarios, signal } = options;
  const scheduler = createScheduler(jobs);
  return new Promise<void>((resolve, reject) => {
    const slots: Slot[] = [];
    let saving = Promise.resolve(); // onRun calls, chained so they never overlap
    let failure: Error | undefined;

    const timeoutMs = 1000 * (options.setup.strategyTimeout ?? DEFAULT_STRATEGY_TIMEOUT_SECONDS);
    const settleIfDone = (): void => {
      if (!slots.every((s) => s.retired)) return;
      clearInterval(watchdog);
      void saving.then(() => (failure ? reject(failure) : resolve()));
    };
    const retire = (slot: Slot): void => {
      if (slot.retired) return;
      slot.retired = true;
      slot.job = undefined;
      void slot.worker.terminate();
      settleIfDone();
    };
    const fail = (error: Error): void => {
      failure ??= error;
      slots.forEach(retire);
    };
    const dispatch = (slot: Slot): void => {
      const job = failure || signal?.aborted ? undefined : scheduler.next(slot.id);
      if (!job) return retire(slot);
      slot.job = job;
      let message: JobMessage;
      try {
        message = slot.holds === job.scenario ? { job } : { job, scenario: scenarios.parcel(job.scenario) };
      } catch (error) {
        return crashed(slot, errorLine(error)); // a message the counter cannot read
      }
      slot.holds = job.scenario;
      slot.worker.postMessage(message);
    };
    const crashed = (slot: Slot, why: string): void => {
      if (slot.retired) return;
      const during = slot.job ? ` while running ${options.describe(slot.job)}` : '';
      fail(new CtxbenchError('WORKER_FAILED', `worker thread ${slot.id + 1} failed${during}: ${why}`));
    };
    const received = (slot: Slot, message: WorkerMessage): void => {
      if (message.kind === 'steps') {
        for (let i = 0; i < message.steps.length; i += 3) options.onStep?.(message.steps[i]!, message.steps[i + 1]!, message.steps[i + 2]!);
        return;
      }
      if (slot.retired) return; // a late message from a worker already stopped after a failure
      if (message.kind === 'failed') return crashed(slot, errorLine(message.message));
      const job = slot.job!;
      // Saved one at a time, in the order they arrive; the worker goes on meanwhile.
      saving = saving.then(() => options.onRun(job, message.run)).catch(fail);
      scenarios.returned(job);
      dispatch(slot);
    };

    const start = (slot: Slot): void => {
      const worker = spawn({ ...options.setup, hookClock: slot.clock });
      slot.worker = worker;
      const current = (): boolean => slot.worker === worker;
      worker.on('message', (message: WorkerMessage) => current() && received(slot, message));
      worker.on('error', (error) => current() && crashed(slot, errorLine(error)));
      worker.on('exit', (code) => current() && crashed(slot, `exited with code ${code}`));
    };
    /** Stops a worker stuck in a hook; a fresh one records the job's run as failed and takes the next jobs. */
    const unstick = (slot: Slot, failed: string): void => {
      const job = slot.job!;
      const stuck = slot.worker;
      slot.clock[0] = 0;
      start(slot);
      void stuck.terminate();
      slot.holds = job.scenario;
      slot.worker.postMessage({ job, scenario: scenarios.parcel(job.scenario), preempted: failed } satisfies JobMessage);
    };
    const watchdog = setInterval(() => {
      for (const slot of slots) {
        const overdue = slot.retired || !slot.job ? undefined : overdueHook(slot.clock, timeoutMs + WATCHDOG_GRACE_MS);
        if (overdue) unstick(slot, timeoutFailure(options.strategyOf(slot.job!), overdue.hook, overdue.step, timeoutMs));
      }
    }, Math.min(1000, timeoutMs / 2));

    const count = Math.min(Math.max(1, options.threads), jobs.length);
    if (count === 0) {
      clearInterval(watchdog);
      return resolve();
    }
    for (let id = 0; id < count; id++) {
      const slot = { id, clock: createHookClock(), retired: false } as Slot;
      start(slot);
      slots.push(slot);
    }
    slots.forEach(dispatch);
  });
}

