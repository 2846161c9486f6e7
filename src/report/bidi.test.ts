import { describe, expect, it } from 'vitest';
import { visibleBidi, withVisibleBidi } from './bidi.js';

describe('visibleBidi', () => {
  it('writes out every bidirectional control, and only those', () => {
    const controls = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(visibleBidi(`Fix bug \u202eelif-tset`)).toBe('Fix bug \\u202eelif-tset');
    expect(visibleBidi(controls)).toBe('\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c');
    expect(visibleBidi('שלום, naïve — 日本\n\t')).toBe('שלום, naïve — 日本\n\t');
  });
});

describe('withVisibleBidi', () => {
  it('reaches every string of arrays and plain objects, keeps other values', () => {
    const when = new Date('2025-01-02T03:04:05Z');
    const value = { model: 'gpt-4o\u202e', n: 3, when, nested: [{ tool: '\u2066bash' }, null, 'ok'] };
    expect(withVisibleBidi(value)).toEqual({ model: 'gpt-4o\\u202e', n: 3, when, nested: [{ tool: '\\u2066bash' }, null, 'ok'] });
    expect(withVisibleBidi(value).when).toBe(when);
  });

  it('returns what holds no control as it is, not a copy', () => {
    const value = { a: [{ b: 'text' }], c: 1 };
    expect(withVisibleBidi(value)).toBe(value);
    const mixed = { clean: { b: 'text' }, dirty: '\u200f' };
    expect(withVisibleBidi(mixed).clean).toBe(mixed.clean);
  });
});
