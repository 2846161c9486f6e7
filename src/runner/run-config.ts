/**
 * A run's settings: what replayScenario is given (ReplayOptions), and the RunConfig stored with the
 * run, built from them.
 */
import type { Backend } from '../core/backend.js';
import type { Params } from '../core/params.js';
import type { ReactiveReplay, RunConfig } from '../core/run-records.js';
import type { StrategyDefinition } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';
import type { CalibrationModel } from '../metrics/calibration.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { HookClock } from './strategy-guard.js';
import { strategySource, type StrategyFile } from './strategy-file.js';

export interface ReplayOptions {
  readonly scenario: Scenario;
  readonly sourceFormat: string;
  /** The scenario's content digest, recorded with the run (the job plan computes it once per scenario). */
  readonly scenarioDigest?: string | undefined;
  readonly strategy: StrategyDefinition;
  /** The name the user selected, when it is a preset of `strategy`. */
  readonly preset?: string | undefined;
  /** A sweep's parameter setting ("softThreshold=0.6,carryoverTurns=3"): tells apart the run ids of one strategy's settings. */
  readonly variant?: string | undefined;
  readonly params: Params;
  /** The file of an outside strategy: its runs are labelled with its path and digest. */
  readonly strategyFile?: StrategyFile | undefined;
  /** Seconds a hook call may take (--strategy-timeout; default 60): strategy-guard.ts. */
  readonly strategyTimeout?: number | undefined;
  /** Where hook calls are published for the main thread's watchdog (worker threads). */
  readonly hookClock?: HookClock | undefined;
  /** The run failed already (its worker was stopped by the watchdog): it ends at once with this failure. */
  readonly preempted?: string | undefined;
  readonly backend: Backend;
  /** The backend settings that shape results (stored with the run). */
  readonly backendOptions?: Params;
  /** Counts tokens, the scenario's tool definitions included; already calibrated when the run is (see calibration). */
  readonly counter: TokenCounter;
  /** The token calibration `counter` applies, recorded with the run. */
  readonly calibration?: CalibrationModel | undefined;
  readonly model: string;
  /** Whose prices the cost uses (default: `model`). */
  readonly priceModel?: string | undefined;
  readonly window: number;
  /** Live `measure` mode: ask for this many output tokens on agent steps (the recorded turn is used anyway). */
  readonly maxOutputTokens?: number | undefined;
  /**
   * Ask the backend each probe question at its step and pass the probe when the answer holds the fact
   * (live runs); otherwise a probe is judged on the context alone.
   */
  readonly askProbes?: boolean | undefined;
  readonly batchId: string;
  /** Reactive replay (`--replay reactive`); undefined: teacher forcing. */
  readonly replay?: ReactiveReplay | undefined;
  /** Called after every step (progress bars). */
  readonly onStep?: (step: number, total: number, promptTokens: number) => void;
}

/** The configuration stored with the run: its scenario, strategy (under the preset's name, if one), backend, window, tokenizer. */
export function runConfig(options: ReplayOptions): RunConfig {
  const { scenario, strategy, params } = options;
  return {
    scenarioId: scenario.id,
    scenarioTitle: scenario.title,
    scenarioFile: scenario.file,
    sourceFormat: options.sourceFormat,
    scenarioDigest: options.scenarioDigest,
    outcome: scenario.outcome,
    strategy: options.preset ?? strategy.name,
    baseStrategy: strategy.name,
    strategySource: options.strategyFile && strategySource(options.strategyFile),
    params,
    variant: options.variant,
    backend: options.backend.name,
    backendOptions: options.backendOptions ?? {},
    model: options.model,
    window: options.window,
    encoding: options.counter.encoding,
    calibrationFactor: options.calibration?.factor,
    calibrationOverhead: options.calibration?.overhead,
    priceModel: options.priceModel ?? options.model,
    thresholds: strategy.thresholds(params),
    replay: options.replay,
  };
}
