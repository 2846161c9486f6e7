import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendOnlyCopy, prefixFollower } from './append-only.js';
import { userMessage, type Message } from './messages.js';

/** The definition: the leading messages `previous` and `next` share, the same objects in the same places. */
function sharedPrefix(previous: readonly Message[] | undefined, next: readonly Message[]): number {
  let i = 0;
  while (previous !== undefined && i < Math.min(previous.length, next.length) && previous[i] === next[i]) i++;
  return i;
}

describe('prefixFollower', () => {
  it('property: what each list shares with the last recorded, as it was, whether arrays grow, are copied, cut or changed in place', () => {
    const pool = Array.from({ length: 7 }, (_, i) => userMessage({ id: `m${i}`, content: `message ${i}` }));
    const step = fc.record({
      edit: fc.constantFrom('grow', 'copy', 'cut', 'replace', 'in-place', 'reset'),
      add: fc.array(fc.nat(pool.length - 1), { maxLength: 3 }),
      at: fc.nat(8),
      with: fc.nat(pool.length - 1),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 15 }), (steps) => {
        const follow = prefixFollower();
        let list: Message[] = appendOnlyCopy([]);
        let plain = false; // a strategy's own array, which it may change in place
        let previous: Message[] | undefined; // the last list as it was recorded
        for (const s of steps) {
          if (s.edit === 'copy') [list, plain] = [[...list], true];
          if (s.edit === 'cut') [list, plain] = [appendOnlyCopy(list.slice(0, s.at)), false];
          if (s.edit === 'replace') [list, plain] = [list.map((m, i) => (i === s.at % list.length ? pool[s.with]! : m)), true];
          if (s.edit === 'in-place' && plain && list.length > 0) list[s.at % list.length] = pool[s.with]!;
          if (s.edit === 'reset') [previous, list, plain] = [undefined, appendOnlyCopy([]), false];
          if (s.edit === 'reset') follow.reset();
          list.push(...s.add.map((k) => pool[k]!));
          const shared = follow.shared(list);
          expect(shared).toBe(sharedPrefix(previous, list));
          follow.record(list, shared);
          previous = [...list];
        }
      }),
      { numRuns: 500 },
    );
  });
});
