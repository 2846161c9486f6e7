/**
 * The strategy registry: one line per strategy. `bench strategies`, `--strategy` and `--preset`
 * read it, and the pairing property test runs every entry.
 */
import { CtxbenchError } from '../core/errors.js';
import type { StrategyDefinition } from '../core/strategy.js';
import { checkpointRestartStrategy } from './checkpoint-restart.js';
import { clearToolResultsStrategy } from './clear-tool-results.js';
import { continuationStrategy } from './continuation.js';
import { hybridStrategy } from './hybrid.js';
import { maskingStrategy } from './masking.js';
import { offloadStrategy } from './offload.js';
import { PRESETS, type Preset } from './presets.js';
import { progressiveRemovalStrategy } from './progressive-removal.js';
import { rawStrategy } from './raw.js';
import { summarizationStrategy } from './summarization.js';
import { windowStrategy } from './window.js';

/** Every built-in strategy, in the order `bench strategies` and `-s all` list them. */
export const STRATEGIES: Readonly<Record<string, StrategyDefinition>> = Object.fromEntries(
  [
    rawStrategy,
    maskingStrategy,
    checkpointRestartStrategy,
    continuationStrategy,
    windowStrategy,
    clearToolResultsStrategy,
    hybridStrategy,
    progressiveRemovalStrategy,
    offloadStrategy,
    summarizationStrategy,
  ].map((s) => [s.name, s]),
);

export const STRATEGY_NAMES = Object.keys(STRATEGIES);
export const PRESET_NAMES = Object.keys(PRESETS);

export function getStrategy(name: string): StrategyDefinition {
  const found = STRATEGIES[name];
  if (!found) {
    if (PRESETS[name]) throw new CtxbenchError('STRATEGY_UNKNOWN', `--strategy ${name}: a preset, not a strategy: pass --preset ${name}`);
    const presets = PRESET_NAMES.length > 0 ? `; presets, with --preset: ${PRESET_NAMES.join(', ')}` : '';
    throw new CtxbenchError('STRATEGY_UNKNOWN', `--strategy ${name}: unknown strategy (strategies: ${STRATEGY_NAMES.join(', ')}${presets}; or "all")`);
  }
  return found;
}

export function getPreset(name: string): Preset {
  const found = PRESETS[name];
  if (!found) {
    const known = PRESET_NAMES.length > 0 ? PRESET_NAMES.join(', ') : 'none yet';
    throw new CtxbenchError('STRATEGY_UNKNOWN', `--preset ${name}: unknown preset (known: ${known})`);
  }
  return found;
}

/** A matrix column: a strategy, or a preset of one. */
export interface Selection {
  /** The name runs are stored and shown under: the strategy's, or the preset's. */
  readonly name: string;
  readonly strategy: StrategyDefinition;
  readonly preset?: Preset | undefined;
}

const split = (values: readonly string[]): string[] => values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);

/**
 * Expands repeated / comma-separated --strategy and --preset values into unique selections, in
 * order. "all" (as a strategy) means every strategy and every preset.
 */
export function select(strategies: readonly string[], presets: readonly string[] = []): Selection[] {
  const names = split(strategies);
  const all = names.includes('all');
  const strategyNames = all ? STRATEGY_NAMES : names;
  const presetNames = all ? [...PRESET_NAMES, ...split(presets)] : split(presets);
  const out = new Map<string, Selection>();
  for (const name of strategyNames) out.set(name, { name, strategy: getStrategy(name) });
  for (const name of presetNames) {
    const preset = getPreset(name);
    out.set(name, { name, strategy: preset.strategy, preset });
  }
  if (out.size === 0) throw new CtxbenchError('OPTION_INVALID', '--strategy: no strategy or preset named (e.g. -s masking, -s raw,masking, --preset goose, or -s all)');
  return [...out.values()];
}
