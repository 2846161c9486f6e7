/**
 * How a set of generator options is named: the scenario id (also the file name `bench scenarios gen`
 * writes) and the `bench scenarios gen` command that regenerates the scenario. Both spell out only the
 * options that differ from their defaults.
 */
import { GENERATE_DEFAULTS, resolveGenerateOptions, type GenerateOptions } from './options.js';

/**
 * The scenario id encodes the knobs: `synthetic-s<steps>-seed<seed>`, then one short tag per option
 * that differs from its default (o output tokens, t heavy tail, x max output, f fact density,
 * p parallel, u follow-ups, m model, w window, b bash style).
 */
export function syntheticId(options: GenerateOptions = {}): string {
  const o = resolveGenerateOptions(options);
  const d = GENERATE_DEFAULTS;
  const parts = [`synthetic-s${o.steps}-seed${o.seed}`];
  if (o.outputTokens !== d.outputTokens) parts.push(`o${o.outputTokens}`);
  if (o.heavyTailShare !== d.heavyTailShare) parts.push(`t${o.heavyTailShare}`);
  if (o.maxOutputTokens !== d.maxOutputTokens) parts.push(`x${o.maxOutputTokens}`);
  if (o.factDensity !== d.factDensity) parts.push(`f${o.factDensity}`);
  if (o.parallelShare !== d.parallelShare) parts.push(`p${o.parallelShare}`);
  if (o.followUpShare !== d.followUpShare) parts.push(`u${o.followUpShare}`);
  if (o.model !== d.model) parts.push(`m${o.model.replace(/[^A-Za-z0-9._:@+-]+/g, '_')}`);
  if (o.contextWindow !== undefined) parts.push(`w${o.contextWindow}`);
  if (o.bashStyle !== undefined) parts.push(`b${o.bashStyle}`);
  return parts.join('-');
}

/** The `bench scenarios gen` flags that reproduce these options (defaults left out). */
export function generateCommand(options: GenerateOptions = {}): string {
  const o = resolveGenerateOptions(options);
  const d = GENERATE_DEFAULTS;
  const flags = [`--steps ${o.steps}`, `--seed ${o.seed}`];
  if (o.outputTokens !== d.outputTokens) flags.push(`--output-tokens ${o.outputTokens}`);
  if (o.heavyTailShare !== d.heavyTailShare) flags.push(`--heavy-tail ${o.heavyTailShare}`);
  if (o.maxOutputTokens !== d.maxOutputTokens) flags.push(`--max-output-tokens ${o.maxOutputTokens}`);
  if (o.factDensity !== d.factDensity) flags.push(`--fact-density ${o.factDensity}`);
  if (o.parallelShare !== d.parallelShare) flags.push(`--parallel ${o.parallelShare}`);
  if (o.followUpShare !== d.followUpShare) flags.push(`--follow-ups ${o.followUpShare}`);
  if (o.model !== d.model) flags.push(`--model ${o.model}`);
  if (o.contextWindow !== undefined) flags.push(`--window ${o.contextWindow}`);
  if (o.bashStyle !== undefined) flags.push(`--bash-style ${o.bashStyle}`);
  return `bench scenarios gen ${flags.join(' ')}`;
}
