/**
 * Strategy parameters: one spec per parameter (the seed's default, a documented range), declared as
 * data, parsed from `--param name=value` or `--param strategy.name=value` and validated before any run
 * starts. A strategy declares its specs as an object keyed by parameter name; `ParamsOf` turns that
 * object into the TypeScript type of the values the strategy receives, so no strategy casts.
 */
import { CtxbenchError } from './errors.js';

export type ParamValue = number | boolean | string;
export type Params = Readonly<Record<string, ParamValue>>;

interface SpecDoc {
  /** One sentence for `bench strategies` and `--help`: what it does, the source of its default. */
  readonly description: string;
}
/** A share of the context window, in (0, 1]. */
export interface FractionSpec extends SpecDoc {
  readonly kind: 'fraction';
  readonly default: number;
}
/** A whole number in [min, max]; with `unlimited`, also the word "unlimited" (or "none"). */
export interface IntegerSpec extends SpecDoc {
  readonly kind: 'integer';
  readonly default: number | 'unlimited';
  readonly min: number;
  readonly max?: number;
  readonly unlimited?: boolean;
}
export interface BooleanSpec extends SpecDoc {
  readonly kind: 'boolean';
  readonly default: boolean;
}
/** One of a few named modes. */
export interface ChoiceSpec extends SpecDoc {
  readonly kind: 'choice';
  readonly default: string;
  readonly values: readonly string[];
}
/** Free text (e.g. a list of tool names); `pattern` bounds it, `format` says so in errors. */
export interface TextSpec extends SpecDoc {
  readonly kind: 'text';
  readonly default: string;
  readonly pattern?: RegExp;
  readonly format?: string;
}
export type ParamSpec = FractionSpec | IntegerSpec | BooleanSpec | ChoiceSpec | TextSpec;

/** A strategy's parameters, keyed by name, in the order `bench strategies` lists them. */
export type ParamSpecs = Readonly<Record<string, ParamSpec>>;

/** Every kind of parameter a strategy can declare. */
export const PARAM_KINDS: readonly ParamSpec['kind'][] = ['fraction', 'integer', 'boolean', 'choice', 'text'];

/** The value a spec admits: `{ kind: 'choice', values: ['a', 'b'] }` gives `'a' | 'b'`. */
export type ParamValueOf<S extends ParamSpec> = S extends { readonly kind: 'fraction' }
  ? number
  : S extends { readonly kind: 'integer'; readonly unlimited: true }
    ? number | 'unlimited'
    : S extends { readonly kind: 'integer' }
      ? number
      : S extends { readonly kind: 'boolean' }
        ? boolean
        : S extends { readonly kind: 'choice'; readonly values: readonly (infer V extends string)[] }
          ? V
          : string;

/** The parameter values a strategy with these specs receives, every one present and in range. */
export type ParamsOf<S extends ParamSpecs> = { readonly [K in keyof S]: ParamValueOf<S[K]> };

/** The specs in declaration order, each with its name. */
export const paramEntries = (specs: ParamSpecs): (ParamSpec & { readonly name: string })[] =>
  Object.entries(specs).map(([name, spec]) => ({ ...spec, name }));

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

export function defaultParams(specs: ParamSpecs): Params {
  return Object.fromEntries(Object.entries(specs).map(([name, s]) => [name, s.default]));
}

/**
 * Why a spec is malformed (its default outside its own range, a choice whose default is not among its
 * values), or undefined: a strategy definition is checked once, when it is defined.
 */
export function specProblem(name: string, spec: ParamSpec): string | undefined {
  if (!/^[A-Za-z][\w-]*$/.test(name)) return `parameter name "${name}" must start with a letter and hold only letters, digits, _ and -`;
  // What the types promise, checked for a definition written in plain JS.
  if (typeof spec !== 'object' || spec === null) return `${name}: expected a spec ({ kind, default, description })`;
  if (!PARAM_KINDS.includes(spec.kind)) return `${name}: kind ${JSON.stringify(spec.kind)} is not one of ${PARAM_KINDS.join(', ')}`;
  if (spec.kind === 'integer' && (!Number.isInteger(spec.min) || (spec.max !== undefined && (!Number.isInteger(spec.max) || spec.max < spec.min)))) {
    return `${name}: an integer parameter needs a whole min, and a max (if any) not below it`;
  }
  if (spec.kind === 'integer' && spec.default === 'unlimited' && !spec.unlimited) return `${name}: default "unlimited" needs unlimited: true`;
  if (parseValue(spec, String(spec.default)) === undefined) return `${name}: default ${JSON.stringify(spec.default)} is not ${describeRange(spec)}`;
  return undefined;
}

/** A `checkParams` for two thresholds that must not cross: param `lower` must be below param `upper`. */
export function checkBelow<const L extends string, const U extends string>(lower: L, upper: U): (params: Readonly<Record<L | U, number>>) => string | undefined {
  return (p) => (p[lower] < p[upper] ? undefined : `${lower} (${p[lower]}) must be below ${upper} (${p[upper]})`);
}

export interface ParamOwner {
  /** The name `--param owner.name=value` uses: a strategy's or a preset's. */
  readonly name: string;
  /** Other prefixes that reach it (a preset answers to its strategy's name too). */
  readonly aliases?: readonly string[];
  readonly params: ParamSpecs;
  checkParams?(params: Params): string | undefined;
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
      const spec = Object.hasOwn(owner.params, a.name) ? owner.params[a.name] : undefined;
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
    const known = target.map((o) => `${o.name}: ${Object.keys(o.params).join(', ') || '(none)'}`).join('; ');
    throw badParam(a.raw, `no selected strategy has a parameter "${a.name}" (${known})`);
  }
  return out;
}
