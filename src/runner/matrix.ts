/**
 * Runs the matrix (scenarios x strategies) on one backend, handing each finished run to `onRun`
 * (which saves it) before starting the next, so an interrupted matrix keeps every finished run.
 */
import { resolveModel } from '../core/models.js';
import type { TokenCounter } from '../core/tokens.js';
import type { Backend } from '../llm/types.js';
import { calibrationKey, scaledCounter } from '../metrics/calibration.js';
import type { LoadedScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { StrategyDefinition } from '../strategies/types.js';
import { replayScenario } from './replay.js';
import type { Params, RunResult } from './types.js';

export interface MatrixEntry {
  readonly strategy: StrategyDefinition;
  /** Set when the entry is a preset of `strategy`: runs are stored under this name. */
  readonly preset?: string | undefined;
  readonly params: Params;
  /** A sweep's setting of the swept parameters ("softThreshold=0.6,carryoverTurns=3"), when one. */
  readonly variant?: string | undefined;
}

export interface MatrixOptions {
  readonly scenarios: readonly LoadedScenario[];
  readonly entries: readonly MatrixEntry[];
  readonly backend: Backend;
  readonly backendOptions?: Params;
  /** Live `measure` mode: output tokens asked per agent step. */
  readonly maxOutputTokens?: number | undefined;
  /** Ask the backend each probe question (live runs) instead of judging probes on the context alone. */
  readonly askProbes?: boolean | undefined;
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
  /** Runs in flight at once (-j). Default 1. */
  readonly concurrency?: number | undefined;
  /** Jobs to leave out (another shard's, or already run in a resumed batch). Default: none. */
  readonly skip?: ((scenario: Scenario, entry: MatrixEntry) => boolean) | undefined;
}

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

interface Job {
  readonly index: number;
  readonly loaded: LoadedScenario;
  readonly entry: MatrixEntry;
}

/** The number of agent steps the matrix replays at most (for a progress bar over the whole matrix). */
export function matrixSteps(scenarios: readonly LoadedScenario[], entries: readonly MatrixEntry[]): number {
  return scenarios.reduce((n, { scenario }) => n + scenario.messages.filter((m) => m.role === 'assistant').length, 0) * entries.length;
}

/**
 * Runs every (scenario, entry) pair, `concurrency` at a time (live backends wait on the network;
 * the mock gains nothing from more than 1). Each run is independent, so its result does not depend
 * on the concurrency; results come back in matrix order whatever order they finish in.
 */
export async function runMatrix(options: MatrixOptions): Promise<RunResult[]> {
  const { scenarios, entries } = options;
  const jobs: Job[] = scenarios
    .flatMap((loaded, s) => entries.map((entry, e) => ({ index: s * entries.length + e, loaded, entry })))
    .filter(({ loaded, entry }) => !options.skip?.(loaded.scenario, entry));
  const results: (RunResult | undefined)[] = [];
  const warned = new Set<string>();
  const counters = new Map<number, TokenCounter>(); // one scaled counter per factor, sharing the base cache

  const runJob = async ({ index, loaded: { scenario, format }, entry: { strategy, preset, params, variant } }: Job): Promise<void> => {
    const { model, window, known } = windowFor(scenario, options.windowOverride);
    if (!known && !warned.has(model)) {
      warned.add(model);
      options.onWarning?.(`${scenario.file}: unknown model "${model}": using the smallest known window (${window} tokens); set model.contextWindow or --window`);
    }
    const factor = options.calibration?.get(calibrationKey(model, options.counter.encoding));
    let counter = options.counter;
    if (factor !== undefined) {
      counter = counters.get(factor) ?? scaledCounter(options.counter, factor);
      counters.set(factor, counter);
    }
    const run = await replayScenario({
      scenario,
      sourceFormat: format,
      strategy,
      preset,
      variant,
      params,
      backend: options.backend,
      backendOptions: options.backendOptions,
      maxOutputTokens: options.maxOutputTokens,
      askProbes: options.askProbes,
      counter,
      calibrationFactor: factor,
      model,
      priceModel: options.priceModel,
      window,
      batchId: options.batchId,
      onStep: options.onStep,
    });
    await options.onRun(run);
    results[index] = run;
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length && !options.signal?.aborted) await runJob(jobs[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
  return results.filter((r): r is RunResult => r !== undefined);
}
