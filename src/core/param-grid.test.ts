import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxbenchError } from './errors.js';
import { maskingStrategy } from '../strategies/masking.js';
import { expandGrid, MAX_CONFIGURATIONS, parseGridAxis, type GridAxis } from './param-grid.js';

const axis = (raw: string): GridAxis => parseGridAxis(raw, 'masking', maskingStrategy.params);
const fails = (raw: string): string => {
  try {
    axis(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(CtxbenchError);
    return (error as Error).message;
  }
  throw new Error(`${raw} was accepted`);
};

describe('parseGridAxis', () => {
  it('expands a range with both ends, at the step written (no 0.30000000000000004)', () => {
    expect(axis('softThreshold=0.5:0.9:0.1').values).toEqual(['0.5', '0.6', '0.7', '0.8', '0.9']);
    expect(axis('softThreshold=0.35:0.5:0.05').values).toEqual(['0.35', '0.4', '0.45', '0.5']);
  });

  it('takes a list of values', () => {
    expect(axis('carryoverTurns=3,5,10')).toEqual({ raw: 'carryoverTurns=3,5,10', name: 'carryoverTurns', values: ['3', '5', '10'] });
  });

  it('names the flag, the parameter and the problem', () => {
    expect(fails('soft=0.5,0.6')).toMatch(/^--grid soft=0\.5,0\.6: masking has no parameter "soft" \(its parameters: .*softThreshold/);
    expect(fails('softThreshold=0.5:1.2:0.1')).toMatch(/^--grid softThreshold=0\.5:1\.2:0\.1: masking\.softThreshold must be .* \(got "1\.1"\)$/);
    expect(fails('carryoverTurns=3,x')).toMatch(/\(got "x"\)$/);
    expect(fails('softThreshold=0.9:0.5:0.1')).toMatch(/first must not exceed the second/);
    expect(fails('softThreshold=0.5:0.9:0')).toMatch(/step must be above 0/);
    // Regression: a range without its step said "must be a fraction".
    expect(fails('softThreshold=0.5:0.9')).toBe('--grid softThreshold=0.5:0.9: a range needs its step: from:to:step (e.g. softThreshold=0.5:0.9:0.1)');
    expect(fails('carryoverTurns=3,3')).toMatch(/listed twice/);
    expect(fails('carryoverTurns')).toMatch(/expected name=from:to:step/);
    expect(fails('carryoverTurns=1:100000:1')).toMatch(new RegExp(`at most ${MAX_CONFIGURATIONS}`));
  });

  it('a range holds every step from its start, none past its end', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 20 }), (from, span, step) => {
        const to = from + span;
        const values = axis(`carryoverTurns=${from}:${to}:${step}`).values.map(Number);
        expect(values[0]).toBe(from);
        expect(values.every((v, i) => v === from + i * step && v <= to)).toBe(true);
        expect(values.at(-1)! + step).toBeGreaterThan(to);
      }),
    );
  });
});

describe('expandGrid', () => {
  it('is the cartesian product, the first axis varying slowest', () => {
    const combos = expandGrid([axis('softThreshold=0.5,0.6'), axis('carryoverTurns=3,5,10')]);
    expect(combos.map((c) => c.map((a) => a.raw).join(' '))).toEqual([
      'softThreshold=0.5 carryoverTurns=3',
      'softThreshold=0.5 carryoverTurns=5',
      'softThreshold=0.5 carryoverTurns=10',
      'softThreshold=0.6 carryoverTurns=3',
      'softThreshold=0.6 carryoverTurns=5',
      'softThreshold=0.6 carryoverTurns=10',
    ]);
  });

  it('refuses an axis given twice and a grid past the limit', () => {
    expect(() => expandGrid([axis('carryoverTurns=3'), axis('carryoverTurns=5')])).toThrow(/carryoverTurns is swept twice/);
    const wide = axis('carryoverTurns=1:30:1');
    expect(() => expandGrid([wide, axis('softThreshold=0.05:1:0.05')])).toThrow(/600 combinations; at most 500/);
  });
});
