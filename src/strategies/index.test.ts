import { describe, expect, it } from 'vitest';
import { defaultParams, resolveParams, specProblem } from '../core/params.js';
import { PRESET_NAMES, select, STRATEGIES, STRATEGY_NAMES } from './index.js';
import { definePreset, PRESETS } from './presets.js';
import { maskingStrategy } from './masking.js';

describe('strategy registry', () => {
  it('holds every strategy under its own name, each with well-formed parameter specs', () => {
    for (const [name, strategy] of Object.entries(STRATEGIES)) {
      expect(strategy.name).toBe(name);
      expect(Object.isFrozen(strategy)).toBe(true); // made by defineStrategy
      for (const [param, spec] of Object.entries(strategy.params)) expect(specProblem(param, spec)).toBeUndefined();
      expect(strategy.checkParams?.(defaultParams(strategy.params))).toBeUndefined();
    }
  });

  it('resolves every preset against its strategy: only its parameters, values in range, cross-checks passed', () => {
    for (const [name, preset] of Object.entries(PRESETS)) {
      expect(preset.name).toBe(name);
      expect(STRATEGIES[preset.strategy.name]).toBe(preset.strategy);
      for (const key of Object.keys(preset.params)) expect(Object.keys(preset.strategy.params)).toContain(key);
      const [resolved] = resolveParams([{ name, params: preset.strategy.params, checkParams: preset.strategy.checkParams, base: preset.params }], []).values();
      expect(resolved).toMatchObject(preset.params);
    }
  });

  it('selects "all" as every strategy, then every preset, in registry order', () => {
    expect(select(['all']).map((s) => s.name)).toEqual([...STRATEGY_NAMES, ...PRESET_NAMES]);
    expect(select(['masking'], ['goose']).map((s) => [s.name, s.strategy.name])).toEqual([
      ['masking', 'masking'],
      ['goose', 'summarization'],
    ]);
  });

  it('type-checks a preset against its strategy', () => {
    const preset = definePreset(maskingStrategy, { name: 'soft-early', params: { softThreshold: 0.5, measure: 'last-prompt' }, summary: 's', source: 'test', notReproduced: 'n' });
    expect(preset.strategy).toBe(maskingStrategy);
    // @ts-expect-error masking has no such parameter
    definePreset(maskingStrategy, { name: 'x', params: { softThreshhold: 0.5 }, summary: 's', source: 'test', notReproduced: 'n' });
    // @ts-expect-error measure is 'projected' or 'last-prompt'
    definePreset(maskingStrategy, { name: 'x', params: { measure: 'newest' }, summary: 's', source: 'test', notReproduced: 'n' });
  });
});
