/**
 * The strategy an adapter runs: a built-in or a preset by name, or a definition made with
 * `defineStrategy`, with its parameters given as values (an object, as code passes them, not
 * `--param` text), each checked against its spec like a flag is.
 */
import { CtxbenchError } from '../core/errors.js';
import { defaultParams, describeRange, parseValue, type Params, type ParamSpec, type ParamValue } from '../core/params.js';
import type { StrategyDefinition } from '../core/strategy.js';
import { PRESETS } from '../strategies/presets.js';
import { PRESET_NAMES, STRATEGIES, STRATEGY_NAMES } from '../strategies/index.js';

/** A built-in strategy's or preset's name (`'masking'`, `'jetbrains-masking'`), or a strategy of your own. */
export type StrategyChoice<P extends Params = Params> = string | StrategyDefinition<P>;

/** Which strategy an adapter runs, and how. */
export interface StrategyOptions<P extends Params = Params> {
  /** A built-in strategy or preset by name, or one made with `defineStrategy`. */
  readonly strategy: StrategyChoice<P>;
  /** Parameter values (`{ softThreshold: 0.6 }`); default: the strategy's own (a preset's settings). */
  readonly params?: Partial<P>;
}

/** The strategy to run and every one of its parameters, checked. */
export interface ChosenStrategy {
  readonly strategy: StrategyDefinition;
  readonly params: Params;
}

/** Is `value` of the type `spec` takes (a number for a fraction, `'unlimited'` too where allowed)? */
function ofKind(spec: ParamSpec, value: ParamValue): boolean {
  switch (spec.kind) {
    case 'fraction':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' || (spec.unlimited === true && value === 'unlimited');
    case 'boolean':
      return typeof value === 'boolean';
    case 'choice':
    case 'text':
      return typeof value === 'string';
  }
}

/** The definition `choice` names, and the settings its name brings (a preset's). */
function definitionOf(choice: StrategyChoice): { strategy: StrategyDefinition; base: Params } {
  if (typeof choice !== 'string') {
    if (typeof choice?.create !== 'function' || typeof choice.name !== 'string') {
      throw new CtxbenchError('OPTION_INVALID', 'strategy: expected a strategy name or a definition made with defineStrategy');
    }
    return { strategy: choice, base: {} };
  }
  const builtIn = STRATEGIES[choice];
  if (builtIn) return { strategy: builtIn, base: {} };
  const preset = PRESETS[choice];
  if (preset) return { strategy: preset.strategy, base: preset.params };
  throw new CtxbenchError('OPTION_INVALID', `strategy: unknown strategy "${choice}" (strategies: ${STRATEGY_NAMES.join(', ')}; presets: ${PRESET_NAMES.join(', ')})`);
}

/**
 * The strategy `choice` names with `params` on top of its defaults (and of a preset's settings): an
 * unknown name, a parameter it does not have, or a value out of its range is one line naming it.
 */
export function chooseStrategy({ strategy: choice, params = {} }: StrategyOptions): ChosenStrategy {
  const { strategy, base } = definitionOf(choice);
  const values: Record<string, ParamValue> = { ...defaultParams(strategy.params), ...base };
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const spec = Object.hasOwn(strategy.params, name) ? strategy.params[name] : undefined;
    if (!spec) {
      const known = Object.keys(strategy.params).join(', ') || 'none';
      throw new CtxbenchError('PARAM_INVALID', `params.${name}: ${strategy.name} has no such parameter (its parameters: ${known})`);
    }
    const parsed = ofKind(spec, value) ? parseValue(spec, String(value)) : undefined;
    if (parsed === undefined) throw new CtxbenchError('PARAM_INVALID', `params.${name}: ${JSON.stringify(value)} is not ${describeRange(spec)}`);
    values[name] = parsed;
  }
  const problem = strategy.checkParams?.(values);
  if (problem !== undefined) throw new CtxbenchError('PARAM_INVALID', `params: ${strategy.name}: ${problem}`);
  return { strategy, params: Object.freeze(values) };
}
