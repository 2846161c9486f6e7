/**
 * The generator's knobs: their defaults, their allowed ranges, and the check that turns a partial
 * `GenerateOptions` into a complete, validated `ResolvedGenerateOptions` (one-line OPTION_INVALID errors
 * that the CLI reuses with its flag names).
 */
import { CtxbenchError } from '../../core/errors.js';

export type BashStyle = 'openhands' | 'returncode';

export interface GenerateOptions {
  /** Assistant turns (agent steps), 20 to 10,000. */
  readonly steps?: number;
  /** Any whole number from 0 to 2^32 - 1. */
  readonly seed?: number;
  /** Median size of a read_file / grep / bash output, in (o200k) tokens. */
  readonly outputTokens?: number;
  /** Share of outputs in the heavy tail (0 to 0.5): 4-16x the median; one in six of those is huge (30-100x). */
  readonly heavyTailShare?: number;
  /** No output is larger than this many tokens. */
  readonly maxOutputTokens?: number;
  /** Facts planted per 100 steps, each with one probe. */
  readonly factDensity?: number;
  /** Share of tool-calling steps that make 2-4 parallel calls. */
  readonly parallelShare?: number;
  /** Share of steps followed by a user follow-up (half of them after a status turn without calls). */
  readonly followUpShare?: number;
  readonly model?: string;
  /** Written to model.contextWindow; omitted: the model registry's window applies. */
  readonly contextWindow?: number;
  /** How bash outputs carry the exit code; default: picked by the seed. */
  readonly bashStyle?: BashStyle;
}

export interface ResolvedGenerateOptions {
  readonly steps: number;
  readonly seed: number;
  readonly outputTokens: number;
  readonly heavyTailShare: number;
  readonly maxOutputTokens: number;
  readonly factDensity: number;
  readonly parallelShare: number;
  readonly followUpShare: number;
  readonly model: string;
  readonly contextWindow: number | undefined;
  readonly bashStyle: BashStyle | undefined;
}

export const GENERATE_DEFAULTS = {
  steps: 200,
  seed: 1,
  outputTokens: 300,
  heavyTailShare: 0.1,
  maxOutputTokens: 12_000,
  factDensity: 5,
  parallelShare: 0.15,
  followUpShare: 0.03,
  model: 'gpt-4o',
} as const;

export type NumericOption = 'steps' | 'seed' | 'outputTokens' | 'heavyTailShare' | 'maxOutputTokens' | 'factDensity' | 'parallelShare' | 'followUpShare' | 'contextWindow';

export interface OptionLimit {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

export const GENERATE_LIMITS: Readonly<Record<NumericOption, OptionLimit>> = {
  steps: { min: 20, max: 10000, integer: true },
  seed: { min: 0, max: 2 ** 32 - 1, integer: true },
  outputTokens: { min: 10, max: 50_000, integer: true },
  heavyTailShare: { min: 0, max: 0.5, integer: false },
  maxOutputTokens: { min: 64, max: 200_000, integer: true },
  factDensity: { min: 0, max: 50, integer: false },
  parallelShare: { min: 0, max: 1, integer: false },
  followUpShare: { min: 0, max: 0.5, integer: false },
  contextWindow: { min: 256, max: 100_000_000, integer: true },
};

/** "20 to 2000", "a fraction in [0, 1]", "a number in [0, 50]". */
export function describeLimit(limit: OptionLimit): string {
  if (limit.integer) return `${limit.min} to ${limit.max}`;
  return `${limit.min === 0 && limit.max === 1 ? 'a fraction' : 'a number'} in [${limit.min}, ${limit.max}]`;
}

/**
 * Throws a one-line OPTION_INVALID error naming `label` (the option, or the CLI flag) and `shown` (the
 * value as given) when `value` is out of range.
 */
export function checkOption(name: NumericOption, value: number, label: string = name, shown: string = String(value)): number {
  const limit = GENERATE_LIMITS[name];
  const ok = Number.isFinite(value) && value >= limit.min && value <= limit.max && (!limit.integer || Number.isInteger(value));
  if (!ok) throw new CtxbenchError('OPTION_INVALID', `${label} ${shown}: expected ${describeLimit(limit)}`);
  return value;
}

export function resolveGenerateOptions(options: GenerateOptions = {}): ResolvedGenerateOptions {
  const d = GENERATE_DEFAULTS;
  const resolved: ResolvedGenerateOptions = {
    steps: checkOption('steps', options.steps ?? d.steps),
    seed: checkOption('seed', options.seed ?? d.seed),
    outputTokens: checkOption('outputTokens', options.outputTokens ?? d.outputTokens),
    heavyTailShare: checkOption('heavyTailShare', options.heavyTailShare ?? d.heavyTailShare),
    maxOutputTokens: checkOption('maxOutputTokens', options.maxOutputTokens ?? d.maxOutputTokens),
    factDensity: checkOption('factDensity', options.factDensity ?? d.factDensity),
    parallelShare: checkOption('parallelShare', options.parallelShare ?? d.parallelShare),
    followUpShare: checkOption('followUpShare', options.followUpShare ?? d.followUpShare),
    model: options.model ?? d.model,
    contextWindow: options.contextWindow === undefined ? undefined : checkOption('contextWindow', options.contextWindow),
    bashStyle: options.bashStyle,
  };
  if (resolved.model.trim() === '') throw new CtxbenchError('OPTION_INVALID', 'model: expected a model name');
  if (resolved.bashStyle !== undefined && resolved.bashStyle !== 'openhands' && resolved.bashStyle !== 'returncode') {
    throw new CtxbenchError('OPTION_INVALID', `bashStyle ${String(resolved.bashStyle)}: expected openhands or returncode`);
  }
  if (resolved.outputTokens > resolved.maxOutputTokens) {
    throw new CtxbenchError('OPTION_INVALID', `outputTokens ${resolved.outputTokens}: above maxOutputTokens ${resolved.maxOutputTokens}`);
  }
  return resolved;
}
