/**
 * Token counts a provider reports, or a cache entry replays, are outside data: servers have sent
 * negative, fractional, huge, string and null counts. The Ollama and OpenAI clients and the
 * record/replay cache all check them here: a value that is no token count is dropped (unknown, never
 * 0 and never a crash) and named, so the run records a warning and counts that request locally, as
 * for a provider that reports no usage.
 */
import type { InvalidUsage, Usage } from '../core/backend.js';

/** No request is a billion tokens: a larger count is garbage, not usage. */
export const MAX_TOKEN_COUNT = 1_000_000_000;

/** A usage field as sent: the name the provider gives it (for warnings) and its raw value (undefined: not sent). */
export type RawField = readonly [field: string, value: unknown];

/** The raw fields of one response's usage, by the Usage field each would fill. */
export type RawUsage = { readonly [K in keyof Usage]?: RawField };

export interface CheckedUsage {
  /** The valid counts; every other field undefined (unknown). */
  readonly usage: Usage;
  /** The fields that were sent but are no token count, in Usage order. */
  readonly invalid: readonly InvalidUsage[];
}

/** A whole number from 0 to MAX_TOKEN_COUNT. */
export function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TOKEN_COUNT;
}

const RANGE = `a whole number from 0 to ${MAX_TOKEN_COUNT.toLocaleString('en-US')}`;
const VALUE_MAX = 40;

/** The value as it reads in JSON (numbers as JS prints them: 1e+300), shortened to one short line. */
function shown(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  const line = text.replace(/\s+/g, ' ');
  return line.length > VALUE_MAX ? `${line.slice(0, VALUE_MAX - 1)}…` : line;
}

/**
 * The usage of one response from its raw fields: each valid count kept, each value that is sent but is
 * no count dropped and named in `invalid`. A cached count needs a prompt count it is part of: one
 * above it is invalid, one without it is dropped (there is nothing it could be a share of).
 */
export function checkUsage(raw: RawUsage): CheckedUsage {
  const invalid: InvalidUsage[] = [];
  const count = (entry: RawField | undefined): number | undefined => {
    if (entry === undefined || entry[1] === undefined) return undefined;
    const [field, value] = entry;
    if (isTokenCount(value)) return value;
    invalid.push({ field, problem: `${shown(value)} is not a token count (${RANGE})` });
    return undefined;
  };
  const promptTokens = count(raw.promptTokens);
  const completionTokens = count(raw.completionTokens);
  let cachedTokens = count(raw.cachedTokens);
  if (cachedTokens !== undefined && (promptTokens === undefined || cachedTokens > promptTokens)) {
    if (promptTokens !== undefined) invalid.push({ field: raw.cachedTokens![0], problem: `${cachedTokens} is more than the ${promptTokens} prompt tokens` });
    cachedTokens = undefined;
  }
  const usage: Usage = {
    ...(promptTokens === undefined ? {} : { promptTokens }),
    ...(completionTokens === undefined ? {} : { completionTokens }),
    ...(cachedTokens === undefined ? {} : { cachedTokens }),
  };
  return { usage, invalid };
}
