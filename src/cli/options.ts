/**
 * Parsers for flag values: each throws a one-line error naming the flag.
 */
import { CtxbenchError } from '../core/errors.js';
import { LOCAL_PRICE_MODEL, MODELS } from '../core/models.js';
import { ENCODINGS, MAX_TOKEN_COUNT, type Encoding } from '../core/tokens.js';
import { priceFor } from '../metrics/cost.js';

const invalid = (flag: string, value: string, expected: string): CtxbenchError =>
  new CtxbenchError('OPTION_INVALID', `${flag} ${value}: expected ${expected}`);

/** A token count: "32768", "32k" (x1024) or "1m" (x1024^2), from `min` (256 for a window) to MAX_TOKEN_COUNT. */
export function parseTokenCount(flag: string, value: string, min = 256): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(value.trim().replace(/[_,]/g, ''));
  const unit = match?.[2]?.toLowerCase();
  const n = match ? Math.round(Number(match[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1)) : NaN;
  if (!Number.isInteger(n) || n < min || n > MAX_TOKEN_COUNT) throw invalid(flag, value, `a whole number from ${min} to ${MAX_TOKEN_COUNT}, like 32768 or 32k`);
  return n;
}

/** A plain whole number in [min, max] (a count of threads, retries, seconds, a seed). */
export function parseWhole(flag: string, value: string, { min, max }: { readonly min: number; readonly max: number }): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw invalid(flag, value, `a whole number from ${min} to ${max}`);
  return n;
}

/** `bench scenarios gen --count`: how many scenarios one call writes. */
export const GEN_COUNT = { min: 1, max: 1000, default: 1 } as const;

/** `bench verify --runs`: generated cases per property by default, so the built-ins pass in a few seconds each. */
export const VERIFY_RUNS = 50;

/**
 * `bench verify --strategy-timeout`'s default, in seconds: its cases are small and its helper LLM is
 * the mock, so a hook that takes this long is stuck (bench run's 60 s would keep a failing property
 * waiting a minute).
 */
export const VERIFY_STRATEGY_TIMEOUT_SECONDS = 10;

/** `--count K`: a whole number in GEN_COUNT's range; GEN_COUNT.default when absent. */
export function parseGenCount(value: string | undefined): number {
  if (value === undefined) return GEN_COUNT.default;
  return parseWhole('--count', value, GEN_COUNT);
}

export function parseFraction(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw invalid(flag, value, 'a fraction in [0, 1]');
  return n;
}

export function parseEncoding(value: string): Encoding {
  if ((ENCODINGS as readonly string[]).includes(value)) return value as Encoding;
  throw invalid('--encoding', value, `one of ${ENCODINGS.join(', ')}`);
}

/** One of `choices`. */
export function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw invalid(flag, value, `one of ${choices.join(', ')}`);
}

/** Commander collector for repeatable flags. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * `--price-model NAME`: a model the registry prices (its routing prefixes and dated snapshots
 * included), or `local`; an unknown one would leave every cost blank without a word.
 */
export function parsePriceModel(value: string): string {
  if (priceFor(value) !== undefined) return value;
  const priced = [...MODELS.filter((m) => m.price !== undefined).map((m) => m.name), LOCAL_PRICE_MODEL];
  throw invalid('--price-model', JSON.stringify(value), `a model with a list price: ${priced.join(', ')}`);
}
