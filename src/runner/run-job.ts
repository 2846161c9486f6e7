/**
 * Running one job of a matrix (job-plan.ts), wherever it runs: the in-thread loop and the worker
 * threads run jobs through the same `runJob`, so a run's result cannot depend on where it ran.
 */
import { withTools, type TokenCounter } from '../core/tokens.js';
import type { Backend } from '../core/backend.js';
import type { ToolDefinition } from '../core/tools.js';
import { scaledCounter, type CalibrationModel } from '../metrics/calibration.js';
import type { LoadedScenario } from '../scenarios/load.js';
import type { MatrixEntry } from './matrix-entry.js';
import { replayScenario } from './replay.js';
import type { ReactiveReplay, RunResult } from '../core/run-records.js';
import type { Params } from '../core/params.js';
import type { Job } from './job-plan.js';
import type { HookClock } from './strategy-guard.js';

/** What every job of one matrix shares, wherever it runs. */
export interface JobEnv {
  readonly backend: Backend;
  /** The counter of a calibration and a scenario's tool definitions (countersFor). */
  readonly counterFor: (calibration: CalibrationModel | undefined, tools: readonly ToolDefinition[] | undefined) => TokenCounter;
  readonly batchId: string;
  readonly backendOptions?: Params | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly askProbes?: boolean | undefined;
  readonly replay?: ReactiveReplay | undefined;
  readonly priceModel?: string | undefined;
  /** Seconds a strategy's hook call may take (--strategy-timeout). */
  readonly strategyTimeout?: number | undefined;
  /** A worker thread's clock of hook calls, watched by the main thread (strategy-guard.ts). */
  readonly hookClock?: HookClock | undefined;
  readonly onStep?: ((step: number, total: number, promptTokens: number) => void) | undefined;
}

/**
 * The counter of each calibration and tool set: one scaled view per calibration over `base`, so every
 * model shares the base counter's per-message cache, and over it one view per scenario's tools (the
 * same list object for every job of a scenario), so their text is counted once per scenario.
 */
export function countersFor(base: TokenCounter): JobEnv['counterFor'] {
  const scaled = new Map<string, TokenCounter>();
  const tooled = new WeakMap<readonly ToolDefinition[], Map<TokenCounter, TokenCounter>>();
  return (calibration, tools) => {
    let counter = base;
    if (calibration !== undefined) {
      const key = `${calibration.factor}|${calibration.overhead}`;
      counter = scaled.get(key) ?? scaledCounter(base, calibration.factor, calibration.overhead);
      scaled.set(key, counter);
    }
    if (tools === undefined) return counter;
    const views = tooled.get(tools) ?? new Map<TokenCounter, TokenCounter>();
    tooled.set(tools, views);
    const view = views.get(counter) ?? withTools(counter, tools);
    views.set(counter, view);
    return view;
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

/**
 * Replays the job's scenario through its entry with the window and calibration the plan gave it;
 * `preempted`: the job already failed (the watchdog stopped its worker), its run ends at once with it.
 */
export function runJob(job: Job, { scenario, format }: LoadedScenario, { strategy, preset, params, variant, file }: MatrixEntry, env: JobEnv, preempted?: string): Promise<RunResult> {
  const counter = env.counterFor(job.calibration, scenario.tools);
  return replayScenario({
    scenario,
    sourceFormat: format,
    scenarioDigest: job.scenarioDigest,
    strategy,
    preset,
    variant,
    params,
    strategyFile: file,
    strategyTimeout: env.strategyTimeout,
    hookClock: env.hookClock,
    preempted,
    backend: env.backend,
    backendOptions: env.backendOptions,
    maxOutputTokens: env.maxOutputTokens,
    askProbes: env.askProbes,
    replay: env.replay,
    counter,
    calibration: job.calibration,
    model: job.model,
    priceModel: env.priceModel,
    window: job.window,
    batchId: env.batchId,
    onStep: env.onStep,
  });
}
