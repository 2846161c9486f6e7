/**
 * The server's model of a provider's prompt cache, for the cached tokens the OpenAI route reports
 * (prompt_tokens_details.cached_tokens): it remembers the last PROMPT_CACHE_SIZE prompts, from any
 * client, message by message, and a request's cached tokens are those of the longest run of leading
 * messages it shares with one of them (each message with its framing, not the reply priming). Whole
 * messages only: no 1,024-token minimum, no 128-token steps, no expiry; the most a provider could
 * serve from its cache, counted as metrics/prompt-cache.ts counts the mock's.
 */
import type { Message } from '../core/messages.js';
import type { TokenCounter } from '../core/tokens.js';

/** How many recent prompts it remembers: enough for every run of a matrix run with -j in the tens. */
export const PROMPT_CACHE_SIZE = 64;

export interface PromptCache {
  /** Tokens of the leading messages an earlier prompt began with too; then remembers this prompt. */
  serve(messages: readonly Message[], counter: TokenCounter): number;
}

/** What of a message reaches the model: a changed byte here ends a shared prefix. */
const keyOf = (m: Message): string =>
  JSON.stringify([m.role, m.content, m.role === 'assistant' ? m.toolCalls : m.role === 'tool' ? [m.toolCallId, m.name] : null]);

function sharedLength(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** An empty prompt cache that remembers the last `size` prompts (default PROMPT_CACHE_SIZE). */
export function createPromptCache(size = PROMPT_CACHE_SIZE): PromptCache {
  const prompts: string[][] = [];
  return {
    serve(messages, counter) {
      const keys = messages.map(keyOf);
      const shared = prompts.reduce((longest, prompt) => Math.max(longest, sharedLength(prompt, keys)), 0);
      prompts.push(keys);
      if (prompts.length > size) prompts.shift();
      return messages.slice(0, shared).reduce((tokens, m) => tokens + counter.countMessage(m), 0);
    },
  };
}
