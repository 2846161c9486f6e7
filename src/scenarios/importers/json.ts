/** Helpers for reading recorded JSON that the importers share (both embed OpenAI-style completions). */
import { scenarioInvalid } from '../../core/errors.js';
import type { RecordedUsage } from '../../core/messages.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object recorded as itself or as its JSON text (some tools store nested objects as strings); undefined for anything else. */
export function jsonObject(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'string') return isRecord(raw) ? raw : undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The string at `field`, or a scenarioInvalid error naming the file and field. */
export function requireString(value: unknown, file: string, field: string): string {
  if (typeof value !== 'string') throw scenarioInvalid(file, `${field}: expected a string`);
  return value;
}

/**
 * A completion's `usage` as recorded usage. Counts the provider did not report stay absent rather
 * than 0, so "unknown" never reads as "none". Anthropic via litellm reports cache reads as
 * `cache_read_input_tokens`, sometimes without `prompt_tokens_details`.
 */
export function recordedUsage(usage: unknown): RecordedUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const prompt = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completion = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  const out: RecordedUsage = {
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
    cachedTokens: count(prompt.cached_tokens) ?? count(usage.cache_read_input_tokens),
    reasoningTokens: count(completion.reasoning_tokens),
  };
  return Object.values(out).some((value) => value !== undefined) ? out : undefined;
}

function count(value: unknown): number | undefined {
  return Number.isInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}
