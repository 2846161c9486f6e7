import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { multiSearch } from './multi-search.js';

describe('multiSearch', () => {
  it('finds overlapping strings, strings inside others and repeated ones, and no empty string', () => {
    const search = multiSearch(['he', 'she', 'his', 'hers', '', 'she']);
    expect([...search.find('ushers')].sort()).toEqual([0, 1, 3, 5]);
    expect([...search.find('this')]).toEqual([2]);
    expect(search.find('').size).toBe(0);
  });

  it('finds exactly the strings `includes` finds, over a small alphabet where they overlap', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '"', '\\', 'é'), maxLength: 60 });
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'c', '"', '\\', 'é'), maxLength: 5 }), { maxLength: 12 }), text, (strings, t) => {
        const expected = strings.flatMap((s, i) => (s !== '' && t.includes(s) ? [i] : []));
        expect([...multiSearch(strings).find(t)].sort((a, b) => a - b)).toEqual(expected);
      }),
    );
  });

  it('from an index on, finds exactly the strings that occur in the text from there', () => {
    const unit = fc.constantFrom('a', 'b', 'c', 'é');
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 4 }), { maxLength: 8 }), fc.string({ unit, maxLength: 40 }), fc.nat(45), (strings, t, from) => {
        const expected = strings.flatMap((s, i) => (s !== '' && t.slice(from).includes(s) ? [i] : []));
        expect([...multiSearch(strings).find(t, from)].sort((a, b) => a - b)).toEqual(expected);
        expect(multiSearch(strings).longest).toBe(Math.max(0, ...strings.map((s) => s.length)));
      }),
    );
  });

  it('finds the same without its move table, for strings too many for one', () => {
    // 1,000 strings of 60 characters out of 100: about 60,000 nodes x 101 symbols, past the table's 4,000,000 entries.
    let seed = 7;
    const random = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const word = (length: number): string => Array.from({ length }, () => String.fromCharCode(0x100 + random(100))).join('');
    const strings = Array.from({ length: 1000 }, () => word(60));
    const text = word(200) + strings[3]! + word(50) + strings[999]!.slice(0, 59) + strings[500]!;
    const expected = strings.flatMap((s, i) => (text.includes(s) ? [i] : []));
    expect(expected).toEqual([3, 500]);
    expect([...multiSearch(strings).find(text)].sort((a, b) => a - b)).toEqual(expected);
  });
});
