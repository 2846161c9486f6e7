import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { pieceCounter } from './piece-count.js';
import { rankTable, viewRankTable, type RankedEncoding } from './rank-table.js';

const noSpecial = { disallowedSpecial: new Set<string>() };
const encodings = [
  ['o200k_base', pieceCounter(rankTable('o200k_base')), (text: string) => o200kCount(text, noSpecial)],
  ['cl100k_base', pieceCounter(rankTable('cl100k_base')), (text: string) => cl100kCount(text, noSpecial)],
] as const;

/** Every string in the bundled scenarios (contents, tool arguments, ids): real agent text. */
function bundledTexts(): string[] {
  const root = new URL('../../scenarios/', import.meta.url);
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  for (const folder of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    for (const file of readdirSync(new URL(`${folder.name}/`, root)).filter((f) => f.endsWith('.json'))) {
      walk(JSON.parse(readFileSync(new URL(`${folder.name}/${file}`, root), 'utf8')));
    }
  }
  return texts;
}

describe.each(encodings)('pieceCounter over %s', (_name, count, library) => {
  it('counts every string of the bundled scenarios exactly as gpt-tokenizer does, counted twice (memo hits)', () => {
    const texts = bundledTexts();
    expect(texts.length).toBeGreaterThan(1000);
    for (const text of [...texts, ...texts]) if (count(text) !== library(text)) expect(count(text), JSON.stringify(text.slice(0, 80))).toBe(library(text));
  });

  it('counts special-token text as plain text, like countTokens with none allowed or disallowed', () => {
    const text = 'log <|endoftext|>\n<|im_start|>x<|fim_prefix|>';
    expect(count(text)).toBe(library(text));
    expect(count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it("counts byte-order marks as gpt-tokenizer does (its lookups drop a part's leading BOM), lone surrogates as U+FFFD", () => {
    const texts = ['\uFEFF', '\uFEFFusing', '\uFEFF\uFEFF', 'x\uFEFF\n\n', '\uFEFFnamespace', '\uFEFF//', '\uD800', 'a\uDC00b', '\uD83D', '😀\uFEFF😀'];
    for (const text of texts) expect(count(text), JSON.stringify(text)).toBe(library(text));
  });

  it('property: the same count as gpt-tokenizer on any text, including texts built from pieces already seen', () => {
    const words = fc.constantFrom(' ', '\n', '\n\n', '  ', 'a', 'The', ' quick', '42', '1234567', '😀', '中文', 'é', "'s", '<|endoftext|>', '/', '\t', '\r\n', '==', 'fooBar', '\uFEFF', '\uD800', 'ünïcödé', ' नमस्ते');
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.array(words, { maxLength: 40 }).map((parts) => parts.join('')));
    fc.assert(
      fc.property(text, (t) => {
        expect(count(t)).toBe(library(t));
      }),
      { numRuns: 500 },
    );
  });
});

it('property: the same counts with a cache of short pieces so small that pieces meet in their slots (one and two slots)', () => {
  // Pieces that begin alike and count differently: a cached piece must match the one read in length
  // and in every character.
  const words = fc.constantFrom(' un', ' unbelievably', ' the', ' thq', ' theory', ' theorx', ' theoretically', '1', '12', '123', 'ab', 'abc', 'abq', ' x', ' xyzzy', ' xyzzq', '\n', '\n\n', ' ', 'é', 'éé', ' antidisestablishment');
  const counters = [1, 2].map((slots) => pieceCounter(rankTable('o200k_base'), slots));
  fc.assert(
    fc.property(fc.array(words, { minLength: 1, maxLength: 30 }), (parts) => {
      const text = parts.join('');
      for (const count of counters) expect(count(text)).toBe(o200kCount(text, noSpecial));
    }),
    { numRuns: 500 },
  );
});

it("a thread's view of another thread's table buffer counts the same (what a worker thread adopts)", () => {
  const table = rankTable('o200k_base');
  const view = pieceCounter(viewRankTable('o200k_base', table.buffer));
  const texts = bundledTexts().slice(0, 2000);
  expect(texts.map(view)).toEqual(texts.map((text) => o200kCount(text, noSpecial)));
  expect(table.buffer).toBeInstanceOf(SharedArrayBuffer);
  expect(table.ranks.length).toBe(199_998);
});

it('names the rank table it cannot read, and what to do, in one line', () => {
  expect(() => rankTable('no_such_base' as RankedEncoding)).toThrow(/^the no_such_base tokenizer's rank table gpt-tokenizer\/data\/no_such_base\.tiktoken cannot be read \([^\n]+\): reinstall the dependencies \(npm ci\)$/);
});
