/**
 * `bench strategies --json`: every strategy of the registry with its parameters (kind, default, range)
 * and every preset with the settings it applies, in the order `bench strategies` lists them.
 */
import { z } from 'zod';
import { describeRange, paramEntries, type ParamSpec } from '../../core/params.js';
import { PRESETS } from '../../strategies/presets.js';
import { STRATEGIES } from '../../strategies/index.js';
import { VERSION } from '../paths.js';
import { documentHeader } from './document.js';

/** Bumped when a field changes meaning or goes away. */
export const STRATEGIES_JSON_FORMAT = 1;

const VALUE = z.union([z.number(), z.boolean(), z.string()]);

const PARAM = z.strictObject({
  name: z.string().describe('as --param NAME=VALUE and --grid take it'),
  kind: z.enum(['fraction', 'integer', 'boolean', 'choice', 'text']).describe('what values it takes'),
  default: VALUE.describe('the value a run gets when nothing sets it ("unlimited" for an integer without a limit)'),
  description: z.string().describe('what it does and where its default comes from'),
  range: z.string().describe('the values it takes, as bench strategies prints them'),
  min: z.number().nullable().describe('an integer\'s smallest value; null for other kinds'),
  max: z.number().nullable().describe('an integer\'s largest value; null when it has none, and for other kinds'),
  unlimited: z.boolean().describe('an integer that also takes "unlimited"'),
  values: z.array(z.string()).nullable().describe('a choice\'s values; null for other kinds'),
});

export const STRATEGIES_DOCUMENT = z
  .strictObject({
    ...documentHeader(['strategies'], STRATEGIES_JSON_FORMAT),
    strategies: z
      .array(
        z.strictObject({
          name: z.string().describe('as --strategy takes it'),
          seed: z.string().nullable().describe('the seed document it implements (000 to 004), null for the others'),
          summary: z.string().describe('what it does, in one line'),
          params: z.array(PARAM).describe('its parameters, in the order bench strategies lists them'),
        }),
      )
      .describe('every strategy, in the order -s all runs them'),
    presets: z
      .array(
        z.strictObject({
          name: z.string().describe('as --preset takes it'),
          strategy: z.string().describe('the strategy it runs'),
          params: z.record(z.string(), VALUE).describe('the parameters it sets, by name; the strategy\'s defaults fill in the rest'),
          summary: z.string().describe('what it does, in one line'),
          source: z.string().describe('where its settings come from'),
        }),
      )
      .describe('every preset: a strategy with the settings a system in the field runs'),
  })
  .describe('bench strategies --json: the strategies and presets with their parameters');

export type StrategiesDocument = z.infer<typeof STRATEGIES_DOCUMENT>;

function paramOf(name: string, spec: ParamSpec): z.infer<typeof PARAM> {
  const integer = spec.kind === 'integer' ? spec : undefined;
  return {
    name,
    kind: spec.kind,
    default: spec.default,
    description: spec.description,
    range: describeRange(spec),
    min: integer?.min ?? null,
    max: integer?.max ?? null,
    unlimited: integer?.unlimited ?? false,
    values: spec.kind === 'choice' ? [...spec.values] : null,
  };
}

export function strategiesDocument(): StrategiesDocument {
  return {
    kind: 'strategies',
    format: STRATEGIES_JSON_FORMAT,
    ctxbench: VERSION,
    strategies: Object.values(STRATEGIES).map((s) => ({
      name: s.name,
      seed: s.seed ?? null,
      summary: s.summary,
      params: paramEntries(s.params).map((p) => paramOf(p.name, p)),
    })),
    presets: Object.values(PRESETS).map((p) => ({ name: p.name, strategy: p.strategy.name, params: { ...p.params }, summary: p.summary, source: p.source })),
  };
}
