/**
 * Runs the matrix (scenarios x strategies), handing each finished run to `onRun` (which saves it) as
 * it finishes, so an interrupted matrix keeps every finished run. Jobs run either in this thread on a
 * given backend, several at a time (live backends wait on the network), or on worker threads that each
 * build their own mock (the mock is CPU-bound: one thread per core).
 */
import { resolveModel } from '../core/models.js';
import type { TokenCounter } from '../core/tokens.js';
import type { MockOptions } from '../llm/mock.js';
import type { Backend } from '../core/backend.js';
import { calibrationKey } from '../metrics/calibration.js';
import type { LoadedScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import { countersByFactor, runJob, tokenizeAhead, type JobEnv, type PlannedJob } from './job.js';
import type { MatrixEntry } from './matrix-entry.js';
import type { RunResult } from '../core/run-records.js';
import type { Params } from '../core/params.js';
import { runOnWorkers } from './worker-pool.js';

export interface MatrixOptions {
  readonly scenarios: readonly LoadedScenario[];
  readonly entries: readonly MatrixEntry[];
  /** Where the jobs run (see Execution). */
  readonly execution: Execution;
  /** Stored with every run (the mock's recall and summary length, a live server's URL). */
  readonly backendOptions?: Params;
  /** Live `measure` mode: output tokens asked per agent step. */
  readonly maxOutputTokens?: number | undefined;
  /** Ask the backend each probe question (live runs) instead of judging probes on the context alone. */
  readonly askProbes?: boolean | undefined;
  /** Counts tokens in this thread; worker threads build their own for its encoding. */
  readonly counter: TokenCounter;
  readonly batchId: string;
  /** --window: replaces every scenario's model window. */
  readonly windowOverride?: number | undefined;
  /** Token calibration factors by calibrationKey(model, encoding); a model without one runs unscaled. */
  readonly calibration?: ReadonlyMap<string, number> | undefined;
  /** --price-model: whose prices every run's cost uses (default: the scenario's model). */
  readonly priceModel?: string | undefined;
  readonly onStep?: (step: number, total: number, promptTokens: number) => void;
  readonly onRun: (run: RunResult) => Promise<void>;
  readonly onWarning?: (message: string) => void;
  /** Checked between runs: an aborted matrix stops after the runs in progress are saved. */
  readonly signal?: AbortSignal;
  /** Jobs to leave out (another shard's, or already run in a resumed batch). Default: none. */
  readonly skip?: ((scenario: Scenario, entry: MatrixEntry) => boolean) | undefined;
}

/**
 * `in-thread`: `concurrency` runs at a time (-j, default 1) on `backend`, in this thread: for live
 * backends, which wait on the network. `workers`: `threads` worker threads (-j), each building the
 * mock from these plain options: the mock only computes, so more runs at once need more cores.
 */
export type Execution =
  | { readonly kind: 'in-thread'; readonly backend: Backend; readonly concurrency?: number | undefined }
  | { readonly kind: 'workers'; readonly threads: number; readonly mock: MockOptions };

export interface ResolvedWindow {
  readonly model: string;
  readonly window: number;
  readonly known: boolean;
}

/** The window a scenario runs with: --window, else the scenario's own, else the model registry's. */
export function windowFor(scenario: Scenario, override?: number): ResolvedWindow {
  const model = resolveModel(scenario.model.name);
  const window = override ?? scenario.model.contextWindow ?? model.contextWindow;
  return { model: scenario.model.name, window, known: model.known || override !== undefined || scenario.model.contextWindow !== undefined };
}

/** The number of agent steps the matrix replays at most (for a progress bar over the whole matrix). */
export function matrixSteps(scenarios: readonly LoadedScenario[], entries: readonly MatrixEntry[]): number {
  return scenarios.reduce((n, { scenario }) => n + scenario.messages.filter((m) => m.role === 'assistant').length, 0) * entries.length;
}

/**
 * Every (scenario, entry) pair in matrix order (scenario-major) that is not skipped, with its window
 * and calibration factor; warns once per model whose window is a guess.
 */
export function planJobs(options: MatrixOptions): PlannedJob[] {
  const warned = new Set<string>();
  return options.scenarios.flatMap(({ scenario }, s) => {
    const { model, window, known } = windowFor(scenario, options.windowOverride);
    if (!known && !warned.has(model)) {
      warned.add(model);
      options.onWarning?.(`${scenario.file}: unknown model "${model}": using the smallest known window (${window} tokens); set model.contextWindow or --window`);
    }
    const factor = options.calibration?.get(calibrationKey(model, options.counter.encoding));
    return options.entries.flatMap((entry, e) =>
      options.skip?.(scenario, entry) ? [] : [{ index: s * options.entries.length + e, scenario: s, entry: e, model, window, factor }],
    );
  });
}

/**
 * Runs every job of the matrix. Each run is independent (its own strategy state; the token counts and
 * the mock's draws depend on the content only), so its result does not depend on where or alongside
 * what it ran: results come back in matrix order whatever -j and the order runs finish in.
 */
export async function runMatrix(options: MatrixOptions): Promise<RunResult[]> {
  const jobs = planJobs(options);
  const results: (RunResult | undefined)[] = [];
  const finished = async (job: PlannedJob, run: RunResult): Promise<void> => {
    const placed = { ...run, matrixIndex: job.index };
    await options.onRun(placed);
    results[job.index] = placed;
  };
  if (options.execution.kind === 'workers') {
    const { entries } = options;
    await runOnWorkers({
      threads: options.execution.threads,
      jobs,
      scenarios: options.scenarios,
      setup: {
        encoding: options.counter.encoding,
        mock: options.execution.mock,
        batchId: options.batchId,
        backendOptions: options.backendOptions,
        priceModel: options.priceModel,
        entries: entries.map(({ strategy, preset, params, variant }) => ({ strategy: strategy.name, preset, params, variant })),
        askProbes: options.askProbes,
        reportSteps: options.onStep !== undefined,
      },
      signal: options.signal,
      onStep: options.onStep,
      onRun: finished,
      describe: (job) => `${entries[job.entry]!.preset ?? entries[job.entry]!.strategy.name} x ${options.scenarios[job.scenario]!.scenario.id}`,
    });
  } else {
    await runInThread(jobs, options, options.execution.backend, Math.max(1, options.execution.concurrency ?? 1), finished);
  }
  return results.filter((r): r is RunResult => r !== undefined);
}

/** `concurrency` async loops over the jobs, in this thread, sharing one counter's cache. */
async function runInThread(jobs: readonly PlannedJob[], options: MatrixOptions, backend: Backend, concurrency: number, finished: (job: PlannedJob, run: RunResult) => Promise<void>): Promise<void> {
  const env: JobEnv = {
    backend,
    counterFor: countersByFactor(options.counter),
    batchId: options.batchId,
    backendOptions: options.backendOptions,
    maxOutputTokens: options.maxOutputTokens,
    askProbes: options.askProbes,
    priceModel: options.priceModel,
    onStep: options.onStep,
  };
  tokenizeAhead(options.scenarios, options.counter);
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < jobs.length && !options.signal?.aborted) {
      const job = jobs[next++]!;
      await finished(job, await runJob(job, options.scenarios[job.scenario]!, options.entries[job.entry]!, env));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}
