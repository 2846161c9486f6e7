/**
 * A run's configuration as the gate compares it: every setting that shapes its numbers (strategy
 * parameters, an outside strategy's source, window, model, backend settings, tokenizer, calibration,
 * price model, scenario content),
 * kept in a baseline beside the run's metrics, so a run configured otherwise is named as changed
 * instead of being measured against numbers it was never meant to reproduce.
 */
import { z } from 'zod';
import type { Params } from '../core/params.js';
import type { RunConfig, RunResult, StrategySource } from '../core/run-records.js';
import { stableJson } from '../core/stable-json.js';

export interface RunConfiguration {
  readonly params: Params;
  readonly window: number;
  readonly model: string;
  readonly backend: string;
  /** The backend's settings (the mock's recall, summary length and seed; a live model and mode), without its URL. */
  readonly backendOptions: Params;
  readonly encoding: string;
  /** The token calibration factor; null when the run counted uncalibrated. */
  readonly calibrationFactor: number | null;
  /** The tokens the calibration adds per request; null when it adds none (or the run is uncalibrated). */
  readonly calibrationOverhead: number | null;
  readonly priceModel: string;
  /** The scenario's content hash (scenarios/digest.ts); null when the run did not record one. */
  readonly scenarioDigest: string | null;
  /** How the run was replayed: "forced", or "reactive" with its re-read caps (replayText). */
  readonly replay: string;
  /** How its probes were graded: put to the model ("ask"), or looked up in the context sent ("context"). */
  readonly probes: ProbeGrading;
  /** An outside strategy's file and source digest; absent for a built-in (its baseline entry reads as before outside strategies). */
  readonly strategySource?: StrategySource | undefined;
}

/** "forced", or "reactive (at most 5 re-reads per turn, 1000 per run)". */
export function replayText(replay: RunConfig['replay']): string {
  return replay ? `reactive (at most ${replay.caps.perTurn} re-reads per turn, ${replay.caps.perRun} per run)` : 'forced';
}

export type ProbeGrading = 'ask' | 'context';

/** How a run's probes were graded: a run that asked them counts the answers (`answered`), even of none. */
export const probeGrading = (run: Pick<RunResult, 'summary'>): ProbeGrading => (run.summary.probes.answered === undefined ? 'context' : 'ask');

/** The configuration of a stored run. */
export function runConfiguration(run: Pick<RunResult, 'config' | 'summary'>): RunConfiguration {
  const { config } = run;
  // Where a live server is does not shape its answers (a CI job's local server gets a new port each time).
  const { url: _where, ...backendOptions } = config.backendOptions;
  return {
    params: config.params,
    window: config.window,
    model: config.model,
    backend: config.backend,
    backendOptions,
    encoding: config.encoding,
    calibrationFactor: config.calibrationFactor ?? null,
    // No overhead is what a baseline from before overheads recorded: both read as none.
    calibrationOverhead: config.calibrationOverhead || null,
    priceModel: config.priceModel,
    scenarioDigest: config.scenarioDigest ?? null,
    replay: replayText(config.replay),
    probes: probeGrading(run),
    ...(config.strategySource ? { strategySource: config.strategySource } : {}),
  };
}

const params = z.record(z.string(), z.union([z.number(), z.string(), z.boolean()]));

/** A baseline file's `config` of a run, validated. */
export const runConfigurationSchema = z
  .strictObject({
  params,
  window: z.number().int().positive(),
  model: z.string(),
  backend: z.string(),
  backendOptions: params,
  encoding: z.string(),
  calibrationFactor: z.number().positive().nullable(),
  // Baselines written before calibration had an overhead lack the field: none.
  calibrationOverhead: z.number().positive().nullable().default(null),
  priceModel: z.string(),
  scenarioDigest: z.string().nullable(),
  // Baselines written before reactive replay replayed every run forced.
  replay: z.string().default('forced'),
  // Absent for a built-in, and in baselines written before outside strategies.
  strategySource: z.strictObject({ file: z.string(), digest: z.string() }).optional(),
  probes: z.enum(['ask', 'context']).optional(),
  })
  // Baselines written before the grading was kept graded as --probes auto does: ask a live model, not the mock.
  .transform(({ probes, ...rest }) => ({ ...rest, probes: probes ?? (rest.backend === 'mock' ? 'context' : 'ask') })) satisfies z.ZodType<RunConfiguration>;

const shown = (value: unknown): string => (value === undefined ? '(unset)' : value === null ? 'none' : typeof value === 'string' ? value : stableJson(value));
const same = (a: unknown, b: unknown): boolean => stableJson(a) === stableJson(b);

/** What differs in one setting: "window 32768 -> 16384"; nothing when both are the same. */
const difference = (name: string, before: unknown, after: unknown): string[] => (same(before, after) ? [] : [`${name} ${shown(before)} -> ${shown(after)}`]);

function paramDifferences(prefix: string, before: Params, after: Params): string[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names.flatMap((name) => difference(`${prefix}.${name}`, before[name], after[name]));
}

/**
 * The settings in which the run `key` (`label|scenarioId`) differs from its baseline, each as
 * "masking.softThreshold 0.7 -> 0.5", "window 32768 -> 16384", "scenario s1 content 1a2b3c4d -> 5e6f7a8b";
 * empty when it is configured alike. A scenario digest unknown on either side is not a difference.
 */
export function configurationChanges(key: string, before: RunConfiguration, after: RunConfiguration): string[] {
  const bar = key.indexOf('|');
  const [label, scenarioId] = [key.slice(0, bar), key.slice(bar + 1)];
  return [
    ...sourceDifference(before.strategySource, after.strategySource),
    ...paramDifferences(label, before.params, after.params),
    ...difference('window', before.window, after.window),
    ...difference('model', before.model, after.model),
    ...difference('backend', before.backend, after.backend),
    ...paramDifferences(after.backend, before.backendOptions, after.backendOptions),
    ...difference('encoding', before.encoding, after.encoding),
    ...difference('calibrationFactor', before.calibrationFactor, after.calibrationFactor),
    ...difference('calibrationOverhead', before.calibrationOverhead, after.calibrationOverhead),
    ...difference('priceModel', before.priceModel, after.priceModel),
    ...difference('replay', before.replay, after.replay),
    ...difference('probes', before.probes, after.probes),
    ...digestDifference(scenarioId, before.scenarioDigest, after.scenarioDigest),
  ];
}

/** "strategy source changed: ./x.ts 1a2b3c4d5e6f -> 6f5e4d3c2b1a": an edited strategy is never compared as if unchanged. */
function sourceDifference(before: StrategySource | undefined, after: StrategySource | undefined): string[] {
  if (before?.digest === after?.digest) return [];
  const file = after?.file ?? before!.file;
  return [`strategy source changed: ${file} ${before?.digest ?? 'built-in'} -> ${after?.digest ?? 'built-in'}`];
}

function digestDifference(scenarioId: string, before: string | null, after: string | null): string[] {
  if (before === null || after === null || before === after) return [];
  return [`scenario ${scenarioId} content ${before.slice(0, 8)} -> ${after.slice(0, 8)}`];
}
