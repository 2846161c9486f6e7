import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composedUserMessage, countCuts, joinParts, partsOf, quote, type TextPart } from './composed-text.js';
import { userMessage } from './messages.js';
import { createTokenCounter, MAX_RUN_CHARS, PER_MESSAGE_TOKENS, type Encoding } from './tokens.js';

const ORIGIN = { source: 'strategy', strategy: 'test', action: 'summary-request' } as const;

describe('countCuts', () => {
  it('cuts after an ASCII letter that whitespace follows: the first and last such place', () => {
    expect(countCuts('one two three', 1024)).toEqual({ first: 3, last: 7 });
    expect(countCuts('USER: hello', 1024)).toBeUndefined(); // ":" is no letter, and the text ends after "hello"
    expect(countCuts("it's ok\tfine", 1024)).toEqual({ first: 4, last: 7 });
    expect(countCuts('word', 1024)).toBeUndefined();
    expect(countCuts('é x 12 34 x.', 1024)).toEqual({ first: 3, last: 3 }); // not after "é", a digit or "."
  });

  it('cuts at a line start: after a newline that neither whitespace holding a line break nor "/" follows', () => {
    expect(countCuts(':\n:\n:', 1024)).toEqual({ first: 2, last: 4 });
    expect(countCuts('1\n\n/2\n \n3\n', 1024)).toEqual({ first: 8, last: 8 });
    expect(countCuts('1\n \n/2\n', 1024)).toBeUndefined();
  });

  it('cuts before an indented line, unless its whitespace holds another line break or reaches the run limit', () => {
    expect(countCuts('():\n    1\n  \n  2', 1024)).toEqual({ first: 4, last: 13 });
    expect(countCuts('1\n  ', 1024)).toBeUndefined(); // what follows the indent is not known
    expect(countCuts('1\n        2\n3', 8)).toEqual({ first: 12, last: 12 });
  });
});

// The units texts are drawn from: line breaks, whitespace, "/", letters of both cases, digits,
// punctuation, an apostrophe (contractions), non-ASCII letters, a combining mark, a no-break space
// and a surrogate pair.
const unit = fc.constantFrom('\n', '\n', ' ', ' ', '    ', '\t', '\r', '\u2028', '\v', '\u00a0', '/', 'a', 'Z', 'word', 'é', '\u0301', '中', '1', '.', ':', '<', "'", 's', '😀', 'USER: ');
const text = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit, maxLength: 40 }) },
  // Runs longer than tokens.ts cuts at (1,024 characters).
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(' ', 'x', '\n'), fc.integer({ min: 1000, max: 2100 }), fc.string({ unit, maxLength: 8 })).map(([c, n, tail]) => c.repeat(n) + tail) },
);

describe('countCuts, whatever surrounds the text', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as Encoding[]) {
    it(`leaves the count unchanged (${encoding}): before the first cut, between the cuts, after the last`, async () => {
      const { countText } = await createTokenCounter(encoding);
      fc.assert(
        fc.property(text, text, text, (before, middle, after) => {
          const cuts = countCuts(middle, MAX_RUN_CHARS);
          fc.pre(cuts !== undefined);
          const { first, last } = cuts!;
          const pieces = countText(before + middle.slice(0, first)) + countText(middle.slice(first, last)) + countText(middle.slice(last) + after);
          expect(pieces).toBe(countText(before + middle + after));
        }),
        { numRuns: 500 },
      );
    });
  }
});

describe('composed messages', () => {
  it('keep their parts and their text', () => {
    const owner = userMessage({ id: 'm', content: 'one\ntwo\nthree' });
    const m = composedUserMessage({ id: 'r', origin: ORIGIN }, ['USER: ', quote(owner, owner.content), '\n']);
    expect(m.content).toBe('USER: one\ntwo\nthree\n');
    expect(partsOf(m)).toHaveLength(3);
    expect(partsOf(owner)).toBeUndefined();
  });

  it('join their text when it is read, and carry it as any message does (frozen, spread, JSON, structured clone)', () => {
    const owner = userMessage({ id: 'm', content: 'one' });
    const m = composedUserMessage({ id: 'r', origin: ORIGIN }, ['USER: ', quote(owner, owner.content)]);
    const plain = userMessage({ id: 'r', origin: ORIGIN, content: 'USER: one' });
    expect(Object.isFrozen(m)).toBe(true);
    expect(Object.keys(m)).toEqual(Object.keys(plain));
    expect({ ...m }).toEqual(plain);
    expect(JSON.parse(JSON.stringify(m))).toEqual(JSON.parse(JSON.stringify(plain)));
    expect(structuredClone(m)).toEqual(plain);
    expect(m.content).toBe('USER: one');
  });

  for (const encoding of ['o200k_base', 'cl100k_base', 'chars4'] as Encoding[]) {
    it(`count as their text does (${encoding}), quotes counted once per owner`, async () => {
      const counter = await createTokenCounter(encoding);
      fc.assert(
        fc.property(fc.array(text, { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(fc.boolean(), fc.nat(5), text), { maxLength: 8 }), (quoted, layout) => {
          // The same owners in every message: their counts are remembered from the first. Every other
          // owner is a message (its inner count derived from its own count, itself counted beforehand
          // every fourth), the rest other objects (a tool call's arguments).
          const owners = quoted.map((t, i) => {
            if (i % 2 === 0) return { owner: { i }, text: t };
            const m = userMessage({ id: `o${i}`, content: t });
            if (i % 4 === 1) counter.countMessage(m);
            return { owner: m, text: m.content };
          });
          const parts: TextPart[] = layout.map(([isQuote, i, literal]) => (isQuote ? quote(owners[i % owners.length]!.owner, owners[i % owners.length]!.text) : literal));
          for (let round = 0; round < 2; round++) {
            const m = composedUserMessage({ id: `r${round}`, origin: ORIGIN }, parts);
            expect(m.content).toBe(joinParts(parts));
            expect(counter.countMessage(m)).toBe(PER_MESSAGE_TOKENS + counter.countText(m.content));
          }
        }),
        { numRuns: 300 },
      );
    });
  }
});
