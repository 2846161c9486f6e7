import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable } from './printable.js';

describe('printable', () => {
  it('escapes terminal escapes, newlines and other controls; leaves the rest', () => {
    expect(printable('model \u001b[2J\u001b[31mred\u0007')).toBe('model \\x1b[2J\\x1b[31mred\\x07');
    expect(printable('a\nb\tc\rd\u0000\u007f\u009b')).toBe('a\\nb\\tc\\rd\\x00\\x7f\\x9b');
    expect(printable('plain: ünïcödé, 中文, emoji 😀')).toBe('plain: ünïcödé, 中文, emoji 😀');
  });

  it('property: the result holds no control character and is one line', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(printable(text)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }),
    );
  });
});
