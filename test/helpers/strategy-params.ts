/**
 * Parameter settings for property tests: any value in each parameter's documented range, as a
 * strategy's users may set it, or a preset's own settings.
 */
import fc from 'fast-check';
import { defaultParams, paramEntries, parseValue, type Params, type ParamSpec, type ParamValue } from '../../src/core/params.js';
import type { Selection } from '../../src/strategies/index.js';

/** Any value in a parameter's documented range. */
function paramValue(spec: ParamSpec): fc.Arbitrary<ParamValue> {
  switch (spec.kind) {
    case 'fraction':
      return fc.double({ min: 0.05, max: 1, noNaN: true });
    case 'integer': {
      const ints = fc.integer({ min: spec.min, max: Math.min(spec.max ?? spec.min + 20, spec.min + 20) });
      return spec.unlimited ? fc.oneof(ints, fc.constant('unlimited')) : ints;
    }
    case 'boolean':
      return fc.boolean();
    case 'choice':
      return fc.constantFrom(...spec.values);
    case 'text': {
      // Tool-name lists (the generator's tool names), kept to those the spec accepts.
      const lists = [spec.default, '', 'bash', 'read_file,write_file', 'bash, str_replace_editor,search', 'unknown_tool'];
      return fc.constantFrom(...new Set(lists.filter((v) => parseValue(spec, v) !== undefined)));
    }
  }
}

/** A strategy: any parameters in range; a preset: its own settings (what users run). */
export function paramsFor({ strategy, preset }: Selection): fc.Arbitrary<Params> {
  if (preset) return fc.constant({ ...defaultParams(strategy.params), ...preset.params });
  const record = Object.fromEntries(paramEntries(strategy.params).map((p) => [p.name, paramValue(p)]));
  return fc.record(record).filter((p) => strategy.checkParams?.(p) === undefined) as fc.Arbitrary<Params>;
}
