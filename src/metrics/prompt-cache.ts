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
import type { TokenCounter } from '../core/tokens.js';

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
 * request (a new session: nothing is cached yet).
 */
export function sharedPrefixTokens(previous: readonly Message[] | undefined, next: readonly Message[], counter: TokenCounter): number {
  return counter.countPrefix(next, sharedPrefixLength(previous, next));
}
