import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { downsample } from './downsample.js';

const series = fc.array(fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: null, freq: 8 }), { maxLength: 3000 });
const setup = fc.record({
  y: series,
  max: fc.integer({ min: 2, max: 500 }),
  levels: fc.array(fc.integer({ min: 0, max: 200_000 }), { maxLength: 4 }),
  keepAt: fc.array(fc.nat(), { maxLength: 30 }),
});

const definedOf = (y: readonly (number | null)[]): number[] => y.flatMap((v, i) => (v === null ? [] : [i]));

describe('downsample', () => {
  it('keeps a short series whole', () => {
    fc.assert(
      fc.property(series, (y) => {
        const defined = definedOf(y);
        expect(downsample(y, { max: Math.max(defined.length, 1), levels: [], keep: new Set() })).toEqual(defined);
      }),
    );
  });

  it('keeps the first, last and peak point, both sides of every crossing and every marked step; bounded', () => {
    fc.assert(
      fc.property(setup, ({ y, max, levels, keepAt }) => {
        const defined = definedOf(y);
        const keep = new Set(keepAt.map((k) => defined[k % Math.max(defined.length, 1)]!).filter((i) => i !== undefined));
        const kept = downsample(y, { max, levels, keep });
        const has = new Set(kept);
        // Ascending, distinct, defined points of the series.
        expect(kept).toEqual([...has].sort((a, b) => a - b));
        for (const i of kept) expect(y[i]).not.toBeNull();
        if (defined.length === 0) {
          expect(kept).toEqual([]);
          return;
        }
        expect(has.has(defined[0]!)).toBe(true);
        expect(has.has(defined.at(-1)!)).toBe(true);
        const peak = Math.max(...defined.map((i) => y[i]!));
        expect(kept.some((i) => y[i] === peak)).toBe(true);
        for (const i of keep) expect(has.has(i)).toBe(true);
        let crossings = 0;
        for (let k = 1; k < defined.length; k++) {
          const [a, b] = [defined[k - 1]!, defined[k]!];
          if (levels.some((level) => y[a]! < level !== y[b]! < level)) {
            crossings++;
            expect(has.has(a) && has.has(b)).toBe(true);
          }
        }
        // Bounded by the budget, unless what must stay is more: 3 ends and peak, 2 per crossing.
        expect(kept.length).toBeLessThanOrEqual(Math.max(max, 3 + keep.size + 2 * crossings));
        if (defined.length <= max) expect(kept).toEqual(defined);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the lowest and highest point of each stretch: a drop between buckets stays visible', () => {
    // A sawtooth of 2,000 steps, one compaction every 100: each drop's bottom is kept.
    const y = Array.from({ length: 2000 }, (_, i) => 1000 + (i % 100) * 50);
    const kept = new Set(downsample(y, { max: 100, levels: [], keep: new Set() }));
    expect(kept.size).toBeLessThanOrEqual(100);
    for (let drop = 100; drop < 2000; drop += 100) expect(kept.has(drop)).toBe(true);
  });
});
