import { describe, expect, expectTypeOf, it } from 'vitest';
import { CtxbenchError } from './errors.js';
import { defaultParams, type ParamSpecs } from './params.js';
import { defineStrategy, resolveStrategyParams, type StrategyDefinition, type StrategyParams, type StrategyRun } from './strategy.js';

const passThrough: StrategyRun = { beforeRequest: ({ messages }) => ({ messages }) };

/** Every kind of parameter, as an outside strategy would declare them. */
const example = defineStrategy({
  name: 'keep-last-rounds',
  summary: 'Keeps the last K tool rounds.',
  params: {
    keepRounds: { kind: 'integer', default: 5, min: 1, max: 100, description: 'Tool rounds kept.' },
    trigger: { kind: 'fraction', default: 0.8, description: 'Act above this share of the window.' },
    maxRuns: { kind: 'integer', default: 'unlimited', min: 0, unlimited: true, description: 'How often.' },
    mode: { kind: 'choice', default: 'drop', values: ['drop', 'mask'], description: 'What happens to older rounds.' },
    notes: { kind: 'boolean', default: false, description: 'Keep a list of touched files.' },
    tools: { kind: 'text', default: '', description: 'Tools never touched.' },
  },
  checkParams: (p) => (p.keepRounds > 50 && p.mode === 'mask' ? 'keepRounds above 50 needs mode=drop' : undefined),
  thresholds: (p) => [{ label: 'trigger', fraction: p.trigger }],
  create: () => passThrough,
});

describe('defineStrategy', () => {
  it('types every hook parameter from the specs: no casts, a choice is its literal union', () => {
    type P = StrategyParams<typeof example>;
    expectTypeOf<P>().toEqualTypeOf<{
      readonly keepRounds: number;
      readonly trigger: number;
      readonly maxRuns: number | 'unlimited';
      readonly mode: 'drop' | 'mask';
      readonly notes: boolean;
      readonly tools: string;
    }>();
    expectTypeOf(example.create).parameter(0).toEqualTypeOf<P>();
    // A typed definition goes wherever any definition goes (the registry, the runner).
    expectTypeOf(example).toMatchTypeOf<StrategyDefinition>();
  });

  it('keeps the specs in declaration order and fills the optional parts', () => {
    expect(Object.keys(example.params)).toEqual(['keepRounds', 'trigger', 'maxRuns', 'mode', 'notes', 'tools']);
    const bare = defineStrategy({ name: 'bare', summary: 'No parameters.', create: () => passThrough });
    expect(bare.params).toEqual({});
    expect(bare.thresholds({})).toEqual([]);
    expect(bare.checkParams).toBeUndefined();
    expect(example.thresholds(defaultParams(example.params) as StrategyParams<typeof example>)).toEqual([{ label: 'trigger', fraction: 0.8 }]);
  });

  it('is frozen, and its specs are its own copy', () => {
    const params: ParamSpecs = { n: { kind: 'integer', default: 1, min: 0, description: 'n' } };
    const defined = defineStrategy({ name: 'copy', summary: 's', params, create: () => passThrough });
    expect(Object.isFrozen(defined)).toBe(true);
    expect(Object.isFrozen(defined.params)).toBe(true);
    expect(defined.params).not.toBe(params);
  });

  it('refuses, named, what is no strategy: no spec, a name that is none, a create that is no function', () => {
    const attempt = (spec: unknown) => () => defineStrategy(spec as never);
    expect(attempt(null)).toThrow('defineStrategy: expected a strategy ({ name, summary, params, create })');
    for (const name of [undefined, '', 'a b', 'x.y']) expect(attempt({ name, summary: 's', create: () => passThrough })).toThrow(`defineStrategy: name ${JSON.stringify(name)} must start with a letter`);
    expect(attempt({ name: 'five', summary: 's', create: 5 })).toThrow('strategy five: create must be a function');
    expect(attempt({ name: 'five', summary: 's' })).toThrow('strategy five: create must be a function');
  });

  describe('checks the specs once, naming the strategy and the parameter', () => {
    const define = (params: unknown) => () => defineStrategy({ name: 'broken', summary: 's', params: params as ParamSpecs, create: () => passThrough });
    it.each([
      [{ t: { kind: 'fraction', default: 1.5, description: 'd' } }, 'strategy broken: parameter t: default 1.5 is not a fraction in (0, 1]'],
      [{ n: { kind: 'integer', default: 3, min: 5, description: 'd' } }, 'parameter n: default 3 is not an integer >= 5'],
      [{ n: { kind: 'integer', default: 'unlimited', min: 0, description: 'd' } }, 'parameter n: default "unlimited" needs unlimited: true'],
      [{ m: { kind: 'choice', default: 'c', values: ['a', 'b'], description: 'd' } }, 'parameter m: default "c" is not one of a, b'],
      [{ 'a.b': { kind: 'boolean', default: true, description: 'd' } }, 'parameter name "a.b" must start with a letter'],
      // Plain JS: what the types would have refused.
      [{ k: { kind: 'float', default: 1, description: 'd' } }, 'parameter k: kind "float" is not one of fraction, integer, boolean, choice, text'],
      [{ n: { kind: 'integer', default: 5, min: 10, max: 0, description: 'd' } }, 'parameter n: an integer parameter needs a whole min, and a max (if any) not below it'],
      [{ k: null }, 'parameter k: expected a spec ({ kind, default, description })'],
    ] as const)('%j', (params, message) => {
      expect(define(params)).toThrow(CtxbenchError);
      expect(define(params)).toThrow(message);
    });
  });
});

describe('resolveStrategyParams', () => {
  it('is the defaults, with --param style assignments on top, typed', () => {
    const p = resolveStrategyParams(example, ['keepRounds=7', 'mode=mask', 'maxRuns=none']);
    expect(p).toEqual({ keepRounds: 7, trigger: 0.8, maxRuns: 'unlimited', mode: 'mask', notes: false, tools: '' });
    expectTypeOf(p.mode).toEqualTypeOf<'drop' | 'mask'>();
    expect(resolveStrategyParams(example)).toEqual(defaultParams(example.params));
  });

  it('refuses a value out of range, an unknown parameter, and a setting checkParams refuses', () => {
    expect(() => resolveStrategyParams(example, ['keepRounds=0'])).toThrow('--param keepRounds=0: keep-last-rounds.keepRounds must be an integer in [1, 100]');
    expect(() => resolveStrategyParams(example, ['nope=1'])).toThrow('no selected strategy has a parameter "nope"');
    expect(() => resolveStrategyParams(example, ['keepRounds=60', 'mode=mask'])).toThrow('keep-last-rounds: keepRounds above 50 needs mode=drop');
  });
});
