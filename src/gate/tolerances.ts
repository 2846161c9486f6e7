/**
 * How much worse each metric may get, per run: the defaults (run-metrics.ts), under a tolerance file's
 * defaults and per-strategy overrides (as Lighthouse CI's assertions), under the `--tolerance` flags.
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CtxbenchError } from '../core/errors.js';
import { withoutByteOrderMark } from '../core/text-file.js';
import { DEFAULT_TOLERANCES, NUMERIC_METRICS, unitOf, type NumericMetric, type Tolerance, type Tolerances } from '../metrics/run-metrics.js';

/** The tolerances of the runs of one strategy label (a strategy or preset, a sweep's setting in brackets). */
export type TolerancesFor = (label: string) => Tolerances;

type Some = Partial<Record<NumericMetric, Tolerance>>;

export interface ToleranceFile {
  /** Over the built-in defaults, for every run. */
  readonly defaults: Some;
  /** Over those, for the runs whose label matches `pattern` (`*` any characters, `?` one), in file order. */
  readonly strategies: readonly { readonly pattern: string; readonly tolerances: Some }[];
}

const EXAMPLE = 'e.g. inputTokens=rel:5% or peakContextPct=abs:0.05';
const SHAPE = 'abs:X or rel:Y';

/**
 * "abs:X" or "rel:Y" (rel accepts 0.05 or 5%) for `metric`; else what was expected instead. What
 * reads as a slip of units is refused rather than taken: `rel:15` (1500%, meant as 15%) and an abs of
 * more than 1 on a fraction (`abs:5` on peakContextPct: 500 points).
 */
function parseTolerance(text: string, metric: NumericMetric): Tolerance | string {
  const match = /^\s*(abs|rel)\s*:\s*([0-9.eE+-]+)\s*(%?)\s*$/.exec(text);
  if (!match) return SHAPE;
  const [, kind, number, percent] = match;
  if (percent && kind !== 'rel') return 'a plain number for abs: (a % suffix is only for rel:)';
  const value = Number(number) / (percent ? 100 : 1);
  if (!Number.isFinite(value) || value < 0) return 'a tolerance of at least 0';
  if (kind === 'rel' && !percent && value > 1) return `a fraction for rel: without % (rel:${number} is ${Number((value * 100).toPrecision(12))}%; write rel:${number}% for ${number} percent)`;
  if (kind === 'abs' && unitOf(metric) === 'fraction' && value > 1) return `at most abs:1 on ${metric}, a fraction (abs:0.05 is 5 points)`;
  return { kind: kind as Tolerance['kind'], value };
}

/** Parses `--tolerance metric=abs:X|rel:Y` flags over `defaults`. */
export function parseTolerances(specs: readonly string[], defaults: Tolerances = DEFAULT_TOLERANCES): Tolerances {
  return { ...defaults, ...parseFlags(specs) };
}

function parseFlags(specs: readonly string[]): Some {
  const out: Some = {};
  for (const spec of specs) {
    const invalid = (expected: string): CtxbenchError => new CtxbenchError('OPTION_INVALID', `--tolerance ${spec}: expected ${expected}`);
    const match = /^\s*([A-Za-z]+)\s*=(.*)$/.exec(spec);
    if (!match) throw invalid(`metric=abs:X or metric=rel:Y, ${EXAMPLE}`);
    const [, metric, text] = match;
    if (!(NUMERIC_METRICS as readonly string[]).includes(metric!)) throw invalid(`a metric among ${NUMERIC_METRICS.join(', ')}`);
    const tolerance = parseTolerance(text!, metric as NumericMetric);
    if (typeof tolerance === 'string') throw invalid(tolerance === SHAPE ? `metric=abs:X or metric=rel:Y, ${EXAMPLE}` : tolerance);
    out[metric as NumericMetric] = tolerance;
  }
  return out;
}

const toleranceOf = (metric: NumericMetric) =>
  z.string().transform((text, ctx) => {
    const parsed = parseTolerance(text, metric);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', message: `expected ${parsed}${parsed === SHAPE ? ', e.g. rel:5% or abs:0.05' : ''} (got ${JSON.stringify(text)})` });
      return z.NEVER;
    }
    return parsed;
  });
const metrics = z.strictObject(Object.fromEntries(NUMERIC_METRICS.map((m) => [m, toleranceOf(m).optional()])) as Record<NumericMetric, z.ZodOptional<ReturnType<typeof toleranceOf>>>);
const fileSchema = z.strictObject({ defaults: metrics.optional(), strategies: z.record(z.string(), metrics).optional() });

/** A tolerance file's text (YAML, or JSON by a .json name), validated; a problem is one line naming the file and field. */
export function parseToleranceFile(text: string, file: string): ToleranceFile {
  const bad = (problem: string): CtxbenchError => new CtxbenchError('OPTION_INVALID', `${file}: ${problem}`);
  const json = /\.json$/i.test(file);
  let data: unknown;
  try {
    data = json ? JSON.parse(withoutByteOrderMark(text)) : parseYaml(withoutByteOrderMark(text));
  } catch (error) {
    throw bad(`not valid ${json ? 'JSON' : 'YAML'} (${(error as Error).message.split('\n')[0]})`);
  }
  const parsed = fileSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      const known = field === '' ? 'defaults, strategies' : NUMERIC_METRICS.join(', ');
      throw bad(`${field === '' ? '' : `${field}: `}unknown ${field === '' ? 'key' : 'metric'} ${issue.keys.join(', ')} (known: ${known})`);
    }
    throw bad(`${field === '' ? '(top level)' : field}: ${issue.message}`);
  }
  const clean = (some: Partial<Record<NumericMetric, Tolerance | undefined>>): Some =>
    Object.fromEntries(Object.entries(some).filter(([, t]) => t !== undefined)) as Some;
  return {
    defaults: clean(parsed.data.defaults ?? {}),
    strategies: Object.entries(parsed.data.strategies ?? {}).map(([pattern, some]) => ({ pattern, tolerances: clean(some) })),
  };
}

const globRegExp = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);

/**
 * The file's strategy entries that match none of `labels` (the runs' strategy labels of both sides):
 * a typo or a stale entry, which would otherwise apply to nothing without a word.
 */
export function unmatchedStrategies(file: ToleranceFile, labels: Iterable<string>): string[] {
  const all = [...labels];
  return file.strategies.filter(({ pattern }) => !all.some((label) => globRegExp(pattern).test(label))).map(({ pattern }) => pattern);
}

/**
 * The tolerances of each strategy label: the built-in defaults, then the file's defaults, then each of
 * its strategy entries that matches the label (a later one over an earlier one), then the flags.
 */
export function tolerancesFor(file: ToleranceFile | undefined, flags: readonly string[] = []): TolerancesFor {
  const fromFlags = parseFlags(flags);
  const base = { ...DEFAULT_TOLERANCES, ...file?.defaults };
  const overrides = (file?.strategies ?? []).map(({ pattern, tolerances }) => ({ matches: globRegExp(pattern), tolerances }));
  const cache = new Map<string, Tolerances>();
  return (label) => {
    let tolerances = cache.get(label);
    if (tolerances === undefined) {
      const matching = overrides.filter((o) => o.matches.test(label)).map((o) => o.tolerances);
      cache.set(label, (tolerances = Object.assign({}, base, ...matching, fromFlags) as Tolerances));
    }
    return tolerances;
  };
}
