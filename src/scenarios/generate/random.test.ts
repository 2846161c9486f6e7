import { describe, expect, it } from 'vitest';
import { mulberry32 } from './random.js';

describe('mulberry32', () => {
  it('is a deterministic stream in [0, 1)', () => {
    const [a, b] = [mulberry32(42), mulberry32(42)];
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(Math.abs(xs.reduce((n, x) => n + x, 0) / xs.length - 0.5)).toBeLessThan(0.05);
    expect(mulberry32(43)()).not.toBe(mulberry32(42)());
  });
});
