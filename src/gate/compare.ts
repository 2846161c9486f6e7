/**
 * The regression gate's comparison: candidate runs against a baseline, per run and metric, with a
 * tolerance per metric (absolute or relative) and a direction (which way is worse).
 */
import { CtxbenchError } from '../core/errors.js';
import {
  BETTER,
  DEFAULT_TOLERANCES,
  metricValue,
  NUMERIC_METRICS,
  type ComparedMetric,
  type NumericMetric,
  type RunMetrics,
  type Tolerance,
  type Tolerances,
} from '../metrics/run-metrics.js';

/** Parses `--tolerance metric=abs:X|rel:Y` flags (rel accepts 0.05 or 5%) over the defaults. */
export function parseTolerances(specs: readonly string[], defaults: Tolerances = DEFAULT_TOLERANCES): Tolerances {
  const out: Record<NumericMetric, Tolerance> = { ...defaults };
  for (const spec of specs) {
    const invalid = (expected: string): CtxbenchError => new CtxbenchError('OPTION_INVALID', `--tolerance ${spec}: expected ${expected}`);
    const match = /^\s*([A-Za-z]+)\s*=\s*(abs|rel)\s*:\s*([0-9.eE+-]+)\s*(%?)\s*$/.exec(spec);
    if (!match) throw invalid('metric=abs:X or metric=rel:Y, e.g. inputTokens=rel:5% or peakContextPct=abs:0.05');
    const [, metric, kind, number, percent] = match;
    if (!(NUMERIC_METRICS as readonly string[]).includes(metric!)) throw invalid(`a metric among ${NUMERIC_METRICS.join(', ')}`);
    let value = Number(number);
    if (percent) {
      if (kind !== 'rel') throw invalid('a plain number for abs: (a % suffix is only for rel:)');
      value /= 100;
    }
    if (!Number.isFinite(value) || value < 0) throw invalid('a tolerance of at least 0');
    out[metric as NumericMetric] = { kind: kind as Tolerance['kind'], value };
  }
  return out;
}

export interface Finding {
  readonly key: string;
  readonly metric: ComparedMetric;
  readonly baseline: number | string;
  readonly candidate: number | string;
  /** candidate - baseline, for numeric metrics. */
  readonly delta: number | null;
  readonly kind: 'regression' | 'improvement';
}

export interface Comparison {
  readonly regressions: readonly Finding[];
  readonly improvements: readonly Finding[];
  /** Runs in the baseline the candidate does not have (not a regression, but reported). */
  readonly missingFromCandidate: readonly string[];
  /** Runs the candidate has that the baseline does not. */
  readonly newInCandidate: readonly string[];
  /** Runs in both. */
  readonly compared: number;
}

/** How far `candidate` may be worse than `baseline` before it is a regression (and better before it is an improvement). */
export function allowance(tolerance: Tolerance, baseline: number): number {
  return tolerance.kind === 'abs' ? tolerance.value : tolerance.value * Math.abs(baseline);
}

const EPSILON = 1e-9;

/**
 * Compares each run in both sets. A changed status decides alone: completed -> anything else is a
 * regression, anything else -> completed an improvement; the other metrics of a run whose status
 * changed are not compared (a run that stopped early uses fewer tokens, which is no improvement).
 */
export function compareRuns(
  baseline: Readonly<Record<string, RunMetrics>>,
  candidate: ReadonlyMap<string, RunMetrics> | Readonly<Record<string, RunMetrics>>,
  tolerances: Tolerances = DEFAULT_TOLERANCES,
): Comparison {
  const cand = candidate instanceof Map ? candidate : new Map(Object.entries(candidate));
  const regressions: Finding[] = [];
  const improvements: Finding[] = [];
  const baseKeys = Object.keys(baseline).sort();
  const missingFromCandidate = baseKeys.filter((key) => !cand.has(key));
  const newInCandidate = [...cand.keys()].filter((key) => !(key in baseline)).sort();
  let compared = 0;
  for (const key of baseKeys) {
    const b = baseline[key]!;
    const c = cand.get(key);
    if (c === undefined) continue;
    compared += 1;
    if (b.status !== c.status) {
      const finding = { key, metric: 'status', baseline: b.status, candidate: c.status, delta: null } as const;
      if (b.status === 'completed') regressions.push({ ...finding, kind: 'regression' });
      else if (c.status === 'completed') improvements.push({ ...finding, kind: 'improvement' });
      continue;
    }
    for (const metric of NUMERIC_METRICS) {
      const bv = metricValue(b, metric);
      const cv = metricValue(c, metric);
      if (bv === null || cv === null) continue;
      const delta = cv - bv;
      const worseBy = BETTER[metric] === 'lower' ? delta : -delta;
      const allowed = allowance(tolerances[metric], bv) + EPSILON * Math.max(1, Math.abs(bv));
      if (worseBy > allowed) regressions.push({ key, metric, baseline: bv, candidate: cv, delta, kind: 'regression' });
      else if (-worseBy > allowed) improvements.push({ key, metric, baseline: bv, candidate: cv, delta, kind: 'improvement' });
    }
  }
  return { regressions, improvements, missingFromCandidate, newInCandidate, compared };
}
