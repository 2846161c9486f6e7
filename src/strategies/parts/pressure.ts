/**
 * Context pressure: how many tokens the next request will carry.
 *
 * Seed 000 Pitfall 2: the latest request's prompt tokens ARE the context size; never sum them across
 * steps. The next request adds what was appended since (the recorded turn and its tool results), which
 * only the local tokenizer can know before sending.
 */
import type { StrategyInput } from '../../core/strategy.js';

export interface Pressure {
  /** Estimated prompt tokens of sending `input.messages` as they are. */
  readonly tokens: number;
  /** True when the estimate had to fall back to the local count because the provider gave no usage. */
  readonly usageMissing: boolean;
}

/**
 * `projected`: the last reported prompt tokens plus the local count of messages appended since.
 * `last-prompt`: the last reported prompt tokens alone (seed 000 read literally; it misses a large
 * tool result appended since the last request).
 */
export type PressureMeasure = 'projected' | 'last-prompt';

export function measurePressure(input: StrategyInput, measure: PressureMeasure): Pressure {
  const { last, messages, counter } = input;
  if (!last || last.sentCount > messages.length) {
    return { tokens: counter.countContext(messages), usageMissing: false };
  }
  if (last.promptTokens === undefined) {
    return { tokens: counter.countContext(messages), usageMissing: true };
  }
  if (measure === 'last-prompt') return { tokens: last.promptTokens, usageMissing: false };
  let appended = 0;
  for (let i = last.sentCount; i < messages.length; i++) appended += counter.countMessage(messages[i]!);
  return { tokens: last.promptTokens + appended, usageMissing: false };
}
