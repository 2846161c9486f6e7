/**
 * Runs the matrix (scenarios x strategies), handing each finished run to `onRun` (which saves it) as
 * it finishes, so an interrupted matrix keeps every finished run. Jobs run either in this thread on a
 * given backend, several at a time (live backends wait on the network), or on worker threads that each
 * build their own mock (the mock is CPU-bound: one thread per core).
 */
import type { TokenCounter } from '../core/tokens.js';
import { sharedRanks } from '../core/rank-table.js';
import type { MockOptions } from '../llm/mock.js';
import type { Backend } from '../core/backend.js';
import type { LoadedScenario } from '../scenarios/load.js';
import type { Job } from './job-plan.js';
import { countersFor, runJob, tokenizeAhead, type JobEnv } from './run-job.js';
import type { MatrixEntry } from './matrix-entry.js';
import type { ReactiveReplay, RunResult } from '../core/run-records.js';
import type { Params } from '../core/params.js';
import { runOnWorkers } from './worker-pool.js';
import { holdScenarios } from './scenario-release.js';
import { runSpill } from './run-spill.js';
import { packRun, unpackRun, type PackedRun } from '../core/packed-run.js';

export interface MatrixOptions {
  readonly scenarios: readonly LoadedScenario[];
  readonly entries: readonly MatrixEntry[];
  /** The jobs to run (planJobs: the whole matrix, or what a shard or a resumed batch leaves to run). */
  readonly jobs: readonly Job[];
  /** Where the jobs run (see Execution). */
  readonly execution: Execution;
  /** Stored with every run (the mock's recall and summary length, a live server's URL). */
  readonly backendOptions?: Params;
  /** Live `measure` mode: output tokens asked per agent step. */
  readonly maxOutputTokens?: number | undefined;
  /** Ask the backend each probe question (live runs) instead of judging probes on the context alone. */
  readonly askProbes?: boolean | undefined;
  /** Reactive replay's settings (--replay reactive); undefined: teacher forcing. */
  readonly replay?: ReactiveReplay | undefined;
  /** Counts tokens in this thread; worker threads build their own for its encoding. */
  readonly counter: TokenCounter;
  readonly batchId: string;
  /** Seconds a strategy's hook call may take (--strategy-timeout; default 60). */
  readonly strategyTimeout?: number | undefined;
  /** Whose prices every run's cost uses (--price-model, or a live backend's price model; default: the scenario's model). */
  readonly priceModel?: string | undefined;
  readonly onStep?: (step: number, total: number, promptTokens: number) => void;
  readonly onRun: (run: RunResult) => Promise<void>;
  /** Checked between runs: an aborted matrix stops after the runs in progress are saved. */
  readonly signal?: AbortSignal | undefined;
  /**
   * On worker threads, clear `scenarios` before the first run, this thread keeping each scenario
   * serialized in a temporary file until its last run has come back (scenario-release.ts): for a
   * caller that reads none of them afterwards. Default false.
   */
  readonly releaseScenarios?: boolean | undefined;
  /**
   * Keep each finished run's steps and events in a temporary file, read back at each read of them
   * (run-spill.ts), rather than in memory: for a caller that reads them a few times at most (a report).
   * Default false.
   */
  readonly spillRuns?: boolean | undefined;
}

/**
 * `in-thread`: `concurrency` runs at a time (-j, default 1) on `backend`, in this thread: for live
 * backends, which wait on the network. `workers`: `threads` worker threads (-j), each building the
 * mock from these plain options: the mock only computes, so more runs at once need more cores.
 */
export type Execution =
  | { readonly kind: 'in-thread'; readonly backend: Backend; readonly concurrency?: number | undefined }
  | { readonly kind: 'workers'; readonly threads: number; readonly mock: MockOptions };

/**
 * A mock matrix of at most this many messages replayed (entries x the scenarios' messages) runs as
 * fast in this thread as on worker threads, each of which costs about 0.5 s of CPU to start (its
 * modules, compiled again; the tokenizer's rank table is shared) and 40 MiB. Measured on 2 cores,
 * whole commands: the bundled suite through all 15 strategies and presets (29,000 messages) 2.7-3.4 s
 * in this thread, 3.2-3.8 s on 2 workers; 20 generated scenarios x 400 steps through raw (18,500)
 * 4.3-5.6 s and 245 MiB against 4.9-5.2 s and 330 MiB; the same through 3 strategies (55,500) 9.2-9.5 s
 * on 1 worker, 8.2 s on 2.
 */
export const IN_THREAD_MESSAGES = 40_000;

/**
 * Whether the mock matrix of `entries` over `scenarios` runs in this thread when -j does not say:
 * small (IN_THREAD_MESSAGES), and every strategy built in (a strategy file's hook stuck in a
 * synchronous loop can be stopped only on a worker thread).
 */
export function fitsInThread(entries: readonly MatrixEntry[], scenarios: readonly LoadedScenario[]): boolean {
  const messages = entries.length * scenarios.reduce((sum, { scenario }) => sum + scenario.messages.length, 0);
  return messages <= IN_THREAD_MESSAGES && entries.every((entry) => entry.file === undefined);
}

/**
 * Runs the given jobs of the matrix. Each run is independent (its own strategy state; the token
 * counts and the mock's draws depend on the content only), so its result does not depend on where or
 * alongside what it ran: results come back in matrix order whatever -j and the order runs finish in.
 */
export async function runMatrix(options: MatrixOptions): Promise<RunResult[]> {
  const { jobs } = options;
  const results: (RunResult | undefined)[] = [];
  // What is kept of each run until the matrix ends is packed: its records as columns (packed-run.ts),
  // with spillRuns in a file.
  const keep = options.spillRuns ? runSpill() : unpackRun;
  const finished = async (job: Job, run: PackedRun): Promise<void> => {
    const placed = keep({ ...run, matrixIndex: job.index });
    await options.onRun(placed);
    results[job.index] = placed;
  };
  if (options.execution.kind === 'workers') {
    const { entries } = options;
    // The caller gave the array up (releaseScenarios): its entries are parcelled and cleared now.
    const scenarios = holdScenarios(options.scenarios as (LoadedScenario | undefined)[], jobs, options.counter.countMessage, { release: options.releaseScenarios ?? false });
    try {
      await runOnWorkers({
        threads: options.execution.threads,
        jobs,
        scenarios,
        setup: {
          encoding: options.counter.encoding,
          ranks: sharedRanks(options.counter.encoding),
          mock: options.execution.mock,
          batchId: options.batchId,
          backendOptions: options.backendOptions,
          priceModel: options.priceModel,
          entries: entries.map(({ strategy, preset, params, variant, file }) => ({ strategy: strategy.name, preset, params, variant, file })),
          strategyTimeout: options.strategyTimeout,
          askProbes: options.askProbes,
          replay: options.replay,
          reportSteps: options.onStep !== undefined,
        },
        signal: options.signal,
        onStep: options.onStep,
        onRun: finished,
        strategyOf: (job) => entries[job.entry]!.strategy.name,
        describe: (job) => `${entries[job.entry]!.preset ?? entries[job.entry]!.strategy.name} x ${job.scenarioId}`,
      });
    } finally {
      scenarios.close();
    }
  } else {
    await runInThread(jobs, options, options.execution.backend, Math.max(1, options.execution.concurrency ?? 1), finished);
  }
  return results.filter((r): r is RunResult => r !== undefined);
}

/** `concurrency` async loops over the jobs, in this thread, sharing one counter's cache. */
async function runInThread(jobs: readonly Job[], options: MatrixOptions, backend: Backend, concurrency: number, finished: (job: Job, run: PackedRun) => Promise<void>): Promise<void> {
  const env: JobEnv = {
    backend,
    counterFor: countersFor(options.counter),
    batchId: options.batchId,
    backendOptions: options.backendOptions,
    maxOutputTokens: options.maxOutputTokens,
    askProbes: options.askProbes,
    replay: options.replay,
    priceModel: options.priceModel,
    strategyTimeout: options.strategyTimeout,
    onStep: options.onStep,
  };
  tokenizeAhead(options.scenarios, options.counter);
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < jobs.length && !options.signal?.aborted) {
      const job = jobs[next++]!;
      await finished(job, packRun(await runJob(job, options.scenarios[job.scenario]!, options.entries[job.entry]!, env)));
      // A replay on the mock never waits on I/O: let the saves and a Ctrl-C in between runs.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}
