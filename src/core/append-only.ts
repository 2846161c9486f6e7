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

/**
 * Follows one owner's consecutive message lists: how many leading messages a list shares with the
 * last one recorded (the same objects in the same places), compared with that list's messages as they
 * were recorded, since a strategy may change its own array in place after sending it; the same
 * append-only array grown is not compared at all. Nothing is shared before the first record or
 * after `reset`.
 */
export interface PrefixFollower {
  shared(messages: readonly Message[]): number;
  /** Records `messages`; its first `from` are known to be those of the last record already. */
  record(messages: readonly Message[], from?: number): void;
  reset(): void;
}

export function prefixFollower(): PrefixFollower {
  const seen: Message[] = []; // the last list recorded, as it was: its first `size`
  let size = 0;
  let last: readonly Message[] | undefined;
  return {
    shared(messages) {
      if (last === undefined) return 0;
      const known = Math.min(size, messages.length);
      let shared = unchangedPrefix(messages, last, size) === size ? known : 0;
      while (shared < known && messages[shared] === seen[shared]) shared++;
      return shared;
    },
    record(messages, from = 0) {
      for (let i = from; i < messages.length; i++) seen[i] = messages[i]!;
      [last, size] = [messages, messages.length];
    },
    reset() {
      [last, size] = [undefined, 0];
    },
  };
}
