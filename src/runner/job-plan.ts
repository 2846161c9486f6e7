/**
 * What a matrix is made of: one job per (scenario, strategy entry), in matrix order (scenario-major).
 * A job is plain data (it crosses to worker threads) and is keyed the way its run is named (strategy
 * label and scenario id), so it means the same thing on every machine and in every results file:
 * shards and resumed batches pick jobs by key, and runMatrix runs the jobs it is given.
 */
import { scenarioInvalid } from '../core/errors.js';
import { runLabel } from '../core/run-names.js';
import type { Encoding } from '../core/tokens.js';
import { resolveModel } from '../core/models.js';
import { calibrationKey, type CalibrationModel } from '../metrics/calibration.js';
import { scenarioDigest } from '../scenarios/digest.js';
import type { LoadedScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { MatrixEntry } from './matrix-entry.js';

export interface Job {
  /** Position in matrix order (scenario-major): where its run is listed (runs.matrix_index). */
  readonly index: number;
  /** `label/scenarioId`: unique in the matrix and the same on every machine. */
  readonly key: string;
  /** The name runs are stored under: the preset's, else the strategy's, with a sweep's setting. */
  readonly label: string;
  /** Index into the matrix's scenarios. */
  readonly scenario: number;
  /** Index into the matrix's entries. */
  readonly entry: number;
  readonly scenarioId: string;
  /** The scenario's content digest (fingerprint.ts), recorded with the run for the gate. */
  readonly scenarioDigest: string;
  readonly model: string;
  readonly window: number;
  /** Token calibration of the scenario's model, when it has one. */
  readonly calibration?: CalibrationModel | undefined;
  /** Agent steps to replay at most: the work the job is (to balance shards, and for progress bars). */
  readonly weight: number;
}

export interface PlanSettings {
  /** --window: replaces every scenario's model window. */
  readonly windowOverride?: number | undefined;
  /** Token calibrations by calibrationKey(model, encoding); a model without one runs uncalibrated. */
  readonly calibration?: ReadonlyMap<string, CalibrationModel> | undefined;
  /** The tokenizer the runs count with (calibration factors are per tokenizer). */
  readonly encoding: Encoding;
}

export interface MatrixPlan {
  /** Every job of the matrix, in matrix order. */
  readonly jobs: Job[];
  /** One per model whose window is a guess, for the caller to show before the runs. */
  readonly warnings: string[];
}

export interface ResolvedWindow {
  readonly model: string;
  readonly window: number;
  /** False when the window is the registry's guess for a model it does not know. */
  readonly known: boolean;
}

/** The window a scenario runs with: --window, else the scenario's own, else the model registry's. */
export function windowFor(scenario: Scenario, override?: number): ResolvedWindow {
  const model = resolveModel(scenario.model.name);
  const window = override ?? scenario.model.contextWindow ?? model.contextWindow;
  return { model: scenario.model.name, window, known: model.known || override !== undefined || scenario.model.contextWindow !== undefined };
}

/** How the entry's runs are named: the preset's or strategy's name, with a sweep's setting in brackets. */
export const entryLabel = (entry: MatrixEntry): string => runLabel(entry.preset ?? entry.strategy.name, entry.variant);

export const jobKey = (label: string, scenarioId: string): string => `${label}/${scenarioId}`;

/** Two scenarios with one id would share run ids: refused, naming both files. */
export function checkScenarioIds(scenarios: readonly LoadedScenario[]): void {
  const files = new Map<string, string>();
  for (const { scenario } of scenarios) {
    const other = files.get(scenario.id);
    if (other !== undefined) throw scenarioInvalid(scenario.file, `scenario id ${scenario.id} is also the id of a scenario in ${other}; ids name the runs, so they must be unique`);
    files.set(scenario.id, scenario.file);
  }
}

/**
 * Every (scenario, entry) pair in matrix order, with its window and calibration; one warning
 * per model whose window is a guess. Throws on two scenarios with one id (see checkScenarioIds).
 */
export function planJobs(scenarios: readonly LoadedScenario[], entries: readonly MatrixEntry[], settings: PlanSettings): MatrixPlan {
  checkScenarioIds(scenarios);
  const labels = entries.map(entryLabel);
  const warned = new Set<string>();
  const warnings: string[] = [];
  const jobs = scenarios.flatMap(({ scenario }, s) => {
    const { model, window, known } = windowFor(scenario, settings.windowOverride);
    if (!known && !warned.has(model)) {
      warned.add(model);
      warnings.push(`${scenario.file}: unknown model "${model}": using the smallest known window (${window} tokens); set model.contextWindow or --window`);
    }
    const calibration = settings.calibration?.get(calibrationKey(model, settings.encoding));
    const weight = scenario.messages.filter((m) => m.role === 'assistant').length;
    const digest = scenarioDigest(scenario);
    return labels.map(
      (label, e): Job => ({ index: s * entries.length + e, key: jobKey(label, scenario.id), label, scenario: s, entry: e, scenarioId: scenario.id, scenarioDigest: digest, model, window, calibration, weight }),
    );
  });
  return { jobs, warnings };
}
