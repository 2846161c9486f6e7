/**
 * Strategy parameters: one spec per parameter (the seed's default, a documented range), parsed from
 * `--param name=value` or `--param strategy.name=value` and validated before any run starts.
 */
import { CtxbenchError } from './errors.js';

export type ParamValue = number | boolean | string;
export type Params = Readonly<Record<string, ParamValue>>;

interface SpecBase {
  readonly name: string;
  readonly description: string;
}
export type ParamSpec = SpecBase &
  (
    | { readonly kind: 'fraction'; readonly default: number }
    | { readonly kind: 'integer'; readonly default: number | 'unlimited'; readonly min: number; readonly max?: number; readonly unlimited?: boolean }
    | { readonly kind: 'boolean'; readonly default: boolean }
    | { readonly kind: 'choice'; readonly default: string; readonly values: readonly string[] }
    /** Free text (e.g. a list of tool names); `pattern` bounds it, `format` says so in errors. */
    | { readonly kind: 'text'; readonly default: string; readonly pattern?: RegExp; readonly format?: string }
  );

/** A parsed `--param` flag. */
export interface ParamAssignment {
  readonly raw: string;
  readonly strategy?: string | undefined;
  readonly name: string;
  readonly value: string;
}

const badParam = (raw: string, problem: string): CtxbenchError =>
  new CtxbenchError('PARAM_INVALID', `--param ${raw}: ${problem}`);

export function parseAssignment(raw: string): ParamAssignment {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw badParam(raw, 'expected name=value (e.g. softThreshold=0.6 or masking.softThreshold=0.6)');
  const key = raw.slice(0, eq).trim();
  const value = raw.slice(eq + 1).trim();
  const dot = key.indexOf('.');
  return dot > 0 ? { raw, strategy: key.slice(0, dot), name: key.slice(dot + 1), value } : { raw, name: key, value };
}

export function describeRange(spec: ParamSpec): string {
  switch (spec.kind) {
    case 'fraction':
      return 'a fraction in (0, 1]';
    case 'integer': {
      const range = spec.max === undefined ? `an integer >= ${spec.min}` : `an integer in [${spec.min}, ${spec.max}]`;
      return spec.unlimited ? `${range} or "unlimited"` : range;
    }
    case 'boolean':
      return 'true or false';
    case 'choice':
      return `one of ${spec.values.join(', ')}`;
    case 'text':
      return spec.format ?? 'any text';
  }
}

/** Parses one value against its spec; undefined when it is out of range or of the wrong kind. */
export function parseValue(spec: ParamSpec, text: string): ParamValue | undefined {
  switch (spec.kind) {
    case 'fraction': {
      const n = Number(text);
      return text !== '' && Number.isFinite(n) && n > 0 && n <= 1 ? n : undefined;
    }
    case 'integer': {
      if (spec.unlimited && /^(unlimited|none)$/i.test(text)) return 'unlimited';
      const n = Number(text);
      const fits = Number.isInteger(n) && n >= spec.min && (spec.max === undefined || n <= spec.max);
      return text !== '' && fits ? n : undefined;
    }
    case 'boolean':
      return /^(true|1|yes)$/i.test(text) ? true : /^(false|0|no)$/i.test(text) ? false : undefined;
    case 'choice':
      return spec.values.includes(text) ? text : undefined;
    case 'text':
      return spec.pattern === undefined || spec.pattern.test(text) ? text : undefined;
  }
}

export function defaultParams(specs: readonly ParamSpec[]): Params {
  return Object.fromEntries(specs.map((s) => [s.name, s.default]));
}

/** A `checkParams` for two thresholds that must not cross: param `lower` must be below param `upper`. */
export function checkBelow(lower: string, upper: string): (params: Params) => string | undefined {
  return (p) => ((p[lower] as number) < (p[upper] as number) ? undefined : `${lower} (${p[lower]}) must be below ${upper} (${p[upper]})`);
}

export interface ParamOwner {
  /** The name `--param owner.name=value` uses: a strategy's or a preset's. */
  readonly name: string;
  /** Other prefixes that reach it (a preset answers to its strategy's name too). */
  readonly aliases?: readonly string[];
  readonly params: readonly ParamSpec[];
  readonly checkParams?: (params: Params) => string | undefined;
  /** Values that replace the defaults before any --param (a preset's settings). */
  readonly base?: Params;
}

/**
 * Resolves every selected strategy's parameters: defaults, then the assignments aimed at it (an
 * unprefixed name applies to every selected strategy that has it). An assignment that reaches no
 * selected strategy is an error, so a typo never silently runs the defaults.
 */
export function resolveParams(owners: readonly ParamOwner[], assignments: readonly ParamAssignment[]): Map<string, Params> {
  const out = new Map<string, Params>();
  const used = new Set<ParamAssignment>();
  for (const owner of owners) {
    const params: Record<string, ParamValue> = { ...defaultParams(owner.params), ...owner.base };
    const names = [owner.name, ...(owner.aliases ?? [])];
    for (const a of assignments) {
      if (a.strategy !== undefined && !names.includes(a.strategy)) continue;
      const spec = owner.params.find((s) => s.name === a.name);
      if (!spec) continue;
      const value = parseValue(spec, a.value);
      if (value === undefined) throw badParam(a.raw, `${owner.name}.${a.name} must be ${describeRange(spec)}`);
      params[a.name] = value;
      used.add(a);
    }
    const problem = owner.checkParams?.(params);
    if (problem) throw new CtxbenchError('PARAM_INVALID', `--param: ${owner.name}: ${problem}`);
    out.set(owner.name, Object.freeze(params));
  }
  for (const a of assignments) {
    if (used.has(a)) continue;
    const target = a.strategy === undefined ? owners : owners.filter((o) => o.name === a.strategy || o.aliases?.includes(a.strategy!));
    if (a.strategy !== undefined && target.length === 0) {
      throw badParam(a.raw, `strategy "${a.strategy}" is not selected (selected: ${owners.map((o) => o.name).join(', ')})`);
    }
    const known = target.map((o) => `${o.name}: ${o.params.map((s) => s.name).join(', ') || '(none)'}`).join('; ');
    throw badParam(a.raw, `no selected strategy has a parameter "${a.name}" (${known})`);
  }
  return out;
}
