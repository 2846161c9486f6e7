import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableJson, writeStableJson } from './stable-json.js';

/** The implementation stored fingerprints and digests were hashed with: its text must not change. */
const replacerJson = (value: unknown): string =>
  JSON.stringify(value, (_name, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );

const pieces = (value: unknown): string[] => {
  const out: string[] = [];
  writeStableJson(value, (piece) => out.push(piece));
  return out;
};

describe('stableJson', () => {
  it('sorts keys at every depth, whatever order they were built in', () => {
    expect(stableJson({ b: 1, a: { d: [{ z: 0, y: 1 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[{"y":1,"z":0}]},"b":1}');
  });

  it('writes what JSON.stringify does for values it leaves out or rewrites', () => {
    const date = new Date(Date.UTC(2026, 0, 2));
    const value = { u: undefined, f: () => 1, s: Symbol('x'), list: [undefined, () => 1, Number.NaN, -0, date], date, nested: { toJSON: (key: string) => ({ key }) } };
    expect(stableJson(value)).toBe(replacerJson(value));
    expect(stableJson({ only: undefined })).toBe('{}');
  });

  // Regression: Object.fromEntries lists array-index keys first, in numeric order, so "10" follows "9".
  it('places array-index keys as the sorting replacer did: first, by number', () => {
    const value = { b: 0, 10: 'ten', 9: 'nine', '09': 'padded', 4294967295: 'not an index', a: 1 };
    expect(stableJson(value)).toBe(replacerJson(value));
    expect(stableJson(value)).toBe('{"9":"nine","10":"ten","09":"padded","4294967295":"not an index","a":1,"b":0}');
  });

  it('matches the sorting replacer on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stableJson(value)).toBe(replacerJson(value));
      }),
      { numRuns: 300 },
    );
  });
});

describe('writeStableJson', () => {
  it('writes stableJson in pieces of whole tokens: a long text is never one string', () => {
    const big = { messages: Array.from({ length: 400 }, (_, i) => ({ id: `m${i}`, content: `${'x'.repeat(500)} 😀 \ud800 ${i}` })) };
    const written = pieces(big);
    expect(written.length).toBeGreaterThan(1);
    expect(written.join('')).toBe(replacerJson(big));
    // No piece ends on the first half of a surrogate pair (hashing pieces as UTF-8 must equal hashing the whole).
    for (const piece of written) expect(/[\ud800-\udbff]$/.test(piece)).toBe(false);
  });

  it('writes long values on their own, in order among the gathered pieces', () => {
    const text = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ minLength: 1000, maxLength: 3000, unit: 'binary' }));
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.nat(), content: text, tags: fc.array(text, { maxLength: 3 }) }), { maxLength: 30 }), (messages) => {
        const written = pieces({ messages });
        expect(written.join('')).toBe(replacerJson({ messages }));
        for (const piece of written) expect(/[\ud800-\udbff]$/.test(piece)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('writes nothing for a value JSON.stringify leaves out', () => {
    expect(pieces(undefined)).toEqual([]);
  });
});
