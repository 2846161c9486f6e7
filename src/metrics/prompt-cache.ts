/**
 * Cached input of one request (design DEFINITION "Token accounting"): the part of a request that
 * repeats the previous request's prefix, which provider prompt caches bill cheaply.
 *
 * Messages compare by object identity. Messages are immutable and shared between steps, so an
 * unchanged message is the same object; a strategy that masks, summarizes or otherwise edits a
 * message makes a new object, and the shared prefix ends there, as a provider's cache does when a
 * byte changes. Everything after the first difference is fresh input, even messages that are the
 * same objects again later.
 *
 * Counted in messages' tokens only (`counter.countMessage`, framing included); the per-request
 * priming (PER_CONTEXT_TOKENS) is not part of any prefix. Provider minimum cacheable sizes (OpenAI's
 * 1,024 tokens, Anthropic's explicit breakpoints) are not modelled: this is the cacheable upper bound.
 */
import type { Message } from '../core/messages.js';
import { PER_CONTEXT_TOKENS, type TokenCounter } from '../core/tokens.js';

/** How many leading messages `previous` and `next` share (the same objects, in the same places). */
export function sharedPrefixLength(previous: readonly Message[] | undefined, next: readonly Message[]): number {
  if (previous === undefined) return 0;
  const limit = Math.min(previous.length, next.length);
  let i = 0;
  while (i < limit && previous[i] === next[i]) i++;
  return i;
}

/**
 * Tokens of the longest common prefix of two consecutive requests; 0 when there is no previous
 * request (a new session: nothing is cached yet). Counted as the request's tokens minus what follows
 * the prefix, which is what changed since the previous request: a step costs what it added, not the
 * length of the context. `nextTokens` is `counter.countContext(next)` when the caller has it already.
 */
export function sharedPrefixTokens(previous: readonly Message[] | undefined, next: readonly Message[], counter: TokenCounter, nextTokens = counter.countContext(next)): number {
  return prefixTokens(sharedPrefixLength(previous, next), next, counter, nextTokens);
}

/**
 * Tokens of the first `shared` messages of `next` (0 when none: nothing cached), for a caller that
 * knows the shared prefix's length without comparing (the replay's history, appended in place).
 */
export function prefixTokens(shared: number, next: readonly Message[], counter: TokenCounter, nextTokens = counter.countContext(next)): number {
  if (shared === 0) return 0;
  let tokens = nextTokens - PER_CONTEXT_TOKENS;
  for (let i = shared; i < next.length; i++) tokens -= counter.countMessage(next[i]!);
  return tokens;
}
