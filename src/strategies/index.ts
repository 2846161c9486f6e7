/**
 * The strategy registry: one line per strategy. `bench strategies` and `--strategy` read it.
 */
import { CtxbenchError } from '../core/errors.js';
import { masking } from './masking.js';
import { raw } from './raw.js';
import type { StrategyDefinition } from './types.js';

export const STRATEGIES = { raw, masking } as const satisfies Record<string, StrategyDefinition>;

export type StrategyName = keyof typeof STRATEGIES;

export const STRATEGY_NAMES = Object.keys(STRATEGIES) as StrategyName[];

export function getStrategy(name: string): StrategyDefinition {
  const found = (STRATEGIES as Record<string, StrategyDefinition>)[name];
  if (!found) {
    throw new CtxbenchError('STRATEGY_UNKNOWN', `--strategy ${name}: unknown strategy (known: ${STRATEGY_NAMES.join(', ')}, or "all")`);
  }
  return found;
}

/** Expands repeated / comma-separated --strategy values and "all" into unique definitions, in order. */
export function selectStrategies(values: readonly string[]): StrategyDefinition[] {
  const names = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const expanded = names.flatMap((n) => (n === 'all' ? STRATEGY_NAMES : [n]));
  return [...new Set(expanded)].map(getStrategy);
}
