/**
 * Running one job of a matrix (job-plan.ts), wherever it runs: the in-thread loop and the worker
 * threads run jobs through the same `runJob`, so a run's result cannot depend on where it ran.
 */
import type { TokenCounter } from '../core/tokens.js';
import type { Backend } from '../core/backend.js';
import { scaledCounter } from '../metrics/calibration.js';
import type { LoadedScenario } from '../scenarios/load.js';
import type { MatrixEntry } from './matrix-entry.js';
import { replayScenario } from './replay.js';
import type { RunResult } from '../core/run-records.js';
import type { Params } from '../core/params.js';
import type { Job } from './job-plan.js';

/** What every job of one matrix shares, wherever it runs. */
export interface JobEnv {
  readonly backend: Backend;
  readonly counterFor: (factor: number | undefined) => TokenCounter;
  readonly batchId: string;
  readonly backendOptions?: Params | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly askProbes?: boolean | undefined;
  readonly priceModel?: string | undefined;
  readonly onStep?: ((step: number, total: number, promptTokens: number) => void) | undefined;
}

/**
 * The counter for each calibration factor: one scaled view per factor over `base`, so every model
 * shares the base counter's per-message cache.
 */
export function countersByFactor(base: TokenCounter): (factor: number | undefined) => TokenCounter {
  const scaled = new Map<number, TokenCounter>();
  return (factor) => {
    if (factor === undefined) return base;
    let counter = scaled.get(factor);
    if (!counter) scaled.set(factor, (counter = scaledCounter(base, factor)));
    return counter;
  };
}

/**
 * Tokenizes the scenarios' messages in one tight pass, before any replay: measured about a third
 * faster than the same tokenization spread over the steps, between everything else a step does (the
 * tokenizer's tables and caches stay hot). The replays then find every count cached. The cost: the
 * messages no run reaches (every run of a scenario ended early) are tokenized too.
 */
export function tokenizeAhead(scenarios: readonly LoadedScenario[], counter: TokenCounter): void {
  for (const { scenario } of scenarios) for (const message of scenario.messages) counter.countMessage(message);
}

/** Replays the job's scenario through its entry with the window and calibration the plan gave it. */
export function runJob(job: Job, { scenario, format }: LoadedScenario, { strategy, preset, params, variant }: MatrixEntry, env: JobEnv): Promise<RunResult> {
  const counter = env.counterFor(job.factor);
  return replayScenario({
    scenario,
    sourceFormat: format,
    scenarioDigest: job.scenarioDigest,
    strategy,
    preset,
    variant,
    params,
    backend: env.backend,
    backendOptions: env.backendOptions,
    maxOutputTokens: env.maxOutputTokens,
    askProbes: env.askProbes,
    counter,
    calibrationFactor: job.factor,
    model: job.model,
    priceModel: env.priceModel,
    window: job.window,
    batchId: env.batchId,
    onStep: env.onStep,
  });
}
