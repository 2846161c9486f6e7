/**
 * Message arrays that only ever grow at their end: the replay's shared history (runner/replay.ts),
 * which strategies get as `messages` and usually send back unchanged. Whoever follows consecutive
 * contexts (token totals, the pairing guard) compares each with the last one message by message,
 * since a caller may edit an array in place; handed the same append-only array again, it can take
 * what it saw last time as unchanged and look only at what was appended.
 */
import type { Message } from './messages.js';

const appendOnly = new WeakSet<readonly Message[]>();

/**
 * A copy of `messages` followed by `appended`, whose owner promises to change it only by appending
 * (`push`). One allocation: a copy pushed to at once would be allocated again to grow.
 */
export function appendOnlyCopy(messages: readonly Message[], appended: readonly Message[] = []): Message[] {
  const copy = messages.concat(appended);
  appendOnly.add(copy);
  return copy;
}

/**
 * How many leading messages of `messages` are known to be what they were when `last` had
 * `lastLength` messages: all of those when both are the same append-only array, else none (compare).
 */
export function unchangedPrefix(messages: readonly Message[], last: readonly Message[] | undefined, lastLength: number): number {
  return messages === last && appendOnly.has(messages) ? lastLength : 0;
}
