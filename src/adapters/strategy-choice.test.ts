import { describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import { defineStrategy } from '../core/strategy.js';
import { maskingStrategy } from '../strategies/masking.js';
import { chooseStrategy } from './strategy-choice.js';

const mine = defineStrategy({
  name: 'keep-last',
  summary: 'Keeps the last K messages.',
  params: { keep: { kind: 'integer', default: 10, min: 1, max: 100, description: 'Messages kept.' } },
  create: () => ({ beforeRequest: ({ messages }) => ({ messages }) }),
});

const problem = (options: Parameters<typeof chooseStrategy>[0]): string => {
  try {
    chooseStrategy(options);
  } catch (error) {
    expect(error).toBeInstanceOf(CtxbenchError);
    return `${(error as CtxbenchError).code}: ${(error as Error).message}`;
  }
  return 'no error';
};

describe('chooseStrategy', () => {
  describe('by name', () => {
    it("a built-in with its defaults and the values given on top", () => {
      const { strategy, params } = chooseStrategy({ strategy: 'masking', params: { softThreshold: 0.6 } });
      expect(strategy).toBe(maskingStrategy);
      expect(params).toEqual({ ...Object.fromEntries(Object.entries(maskingStrategy.params).map(([k, s]) => [k, s.default])), softThreshold: 0.6 });
    });

    it("a preset: its strategy with the preset's settings, values given on top", () => {
      const { strategy, params } = chooseStrategy({ strategy: 'jetbrains-masking', params: { keep: 4 } });
      expect(strategy.name).toBe('clear-tool-results');
      expect(params).toMatchObject({ triggerTokens: 0, placeholder: 'lines-omitted', keep: 4 });
    });

    it('an unknown name lists the strategies and presets', () => {
      expect(problem({ strategy: 'maskin' })).toMatch(/^OPTION_INVALID: strategy: unknown strategy "maskin" \(strategies: raw, masking, .*; presets: jetbrains-masking, .*\)$/);
    });
  });

  describe('a definition of your own', () => {
    it('is run as given, its parameters checked against its own specs', () => {
      expect(chooseStrategy({ strategy: mine, params: { keep: 3 } })).toEqual({ strategy: mine, params: { keep: 3 } });
      expect(problem({ strategy: mine, params: { keep: 0 } })).toBe('PARAM_INVALID: params.keep: 0 is not an integer in [1, 100]');
    });

    it('something that is not one is refused in one line', () => {
      expect(problem({ strategy: { name: 'x' } as never })).toBe('OPTION_INVALID: strategy: expected a strategy name or a definition made with defineStrategy');
    });
  });

  describe('parameter values', () => {
    it.each([
      [{ softThreshhold: 0.6 }, 'PARAM_INVALID: params.softThreshhold: masking has no such parameter (its parameters: softThreshold, hardThreshold, carryoverTurns, maxRestarts, autoRestart, measure)'],
      [{ softThreshold: 1.5 }, 'PARAM_INVALID: params.softThreshold: 1.5 is not a fraction in (0, 1]'],
      [{ softThreshold: '0.6' }, 'PARAM_INVALID: params.softThreshold: "0.6" is not a fraction in (0, 1]'],
      [{ autoRestart: 'yes' }, 'PARAM_INVALID: params.autoRestart: "yes" is not true or false'],
      [{ measure: 'exact' }, 'PARAM_INVALID: params.measure: "exact" is not one of projected, last-prompt'],
      [{ softThreshold: 0.95 }, 'PARAM_INVALID: params: masking: softThreshold (0.95) must be below hardThreshold (0.9)'],
    ])('%j: %s', (params, message) => {
      expect(problem({ strategy: 'masking', params: params as never })).toBe(message);
    });

    it('takes "unlimited" where the parameter allows it, and leaves undefined values at their default', () => {
      expect(chooseStrategy({ strategy: 'masking', params: { maxRestarts: 'unlimited', carryoverTurns: undefined } }).params).toMatchObject({ maxRestarts: 'unlimited', carryoverTurns: 5 });
    });
  });
});
