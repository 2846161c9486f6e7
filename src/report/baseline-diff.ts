/**
 * The report's baseline diff: the runs against an older batch or a `bench baseline` file, compared as
 * `bench check` compares them (same metrics, directions and default tolerances), plus per-metric
 * totals over the runs both have, so a reader sees the size of a change and not only its verdicts.
 */
import { allowance, compareRuns, type Comparison, type Finding } from '../gate/compare.js';
import {
  BETTER,
  COMPARED_METRICS,
  DEFAULT_TOLERANCES,
  metricValue,
  type ComparedMetric,
  type NumericMetric,
  type RunMetrics,
} from '../metrics/run-metrics.js';
import { countsLine, formatDelta, formatValue } from '../gate/output.js';
import { fmtInt } from './format.js';

/** A baseline as loaded: where it came from, and its metrics keyed `strategy|scenarioId`. */
export interface BaselineSource {
  /** The file as the user named it. */
  readonly file: string;
  /** What it holds: which batch or baseline, when, made by which command. */
  readonly description: string;
  readonly runs: Readonly<Record<string, RunMetrics>>;
}

export type Change = 'regression' | 'improvement' | 'same';

export interface MetricTotal {
  readonly metric: string;
  readonly baseline: string;
  readonly candidate: string;
  readonly delta: string;
  /** Which way the total moved beyond `bench check`'s default tolerance, by the metric's better direction. */
  readonly change: Change;
  readonly regressions: number;
  readonly improvements: number;
}

export interface FindingRow {
  readonly kind: 'regression' | 'improvement';
  readonly run: string;
  readonly metric: string;
  readonly baseline: string;
  readonly candidate: string;
  readonly delta: string;
}

export interface BaselineDiff {
  readonly file: string;
  readonly description: string;
  readonly comparison: Comparison;
  readonly regressions: number;
  readonly improvements: number;
  /** "3 regressions", "1 improvement". */
  readonly regressionsText: string;
  readonly improvementsText: string;
  /** `bench check`'s counts line. */
  readonly counts: string;
  readonly totals: MetricTotal[];
  readonly findings: FindingRow[];
  readonly missing: string[];
  readonly added: string[];
}

export function baselineDiff(source: BaselineSource, candidate: ReadonlyMap<string, RunMetrics>): BaselineDiff {
  const comparison = compareRuns(source.runs, candidate);
  const both = Object.keys(source.runs).filter((key) => candidate.has(key));
  const pairs = both.map((key) => ({ before: source.runs[key]!, after: candidate.get(key)! }));
  const count = (metric: ComparedMetric, findings: readonly Finding[]): number => findings.filter((f) => f.metric === metric).length;
  const totals = COMPARED_METRICS.map((metric): MetricTotal => {
    const [before, after] = metric === 'status' ? completedTotals(pairs) : numericTotals(metric, pairs);
    const delta = after - before;
    const higherIsBetter = metric === 'status' || BETTER[metric] === 'higher';
    // Coloured at the gate's tolerance, so a total reads as changed only when a run's value would.
    const allowed = metric === 'status' ? 0 : allowance(DEFAULT_TOLERANCES[metric], before) + 1e-9 * Math.max(1, Math.abs(before));
    const change: Change = Math.abs(delta) <= allowed ? 'same' : delta > 0 === higherIsBetter ? 'improvement' : 'regression';
    const shown: ComparedMetric = metric === 'status' ? 'steps' : metric; // completed runs print as a count
    const finding: Finding = { key: '', metric: shown, baseline: before, candidate: after, delta, kind: 'improvement' };
    return {
      metric: metric === 'status' ? 'completed runs' : metric,
      baseline: formatValue(shown, before),
      candidate: formatValue(shown, after),
      delta: formatDelta(finding),
      change,
      regressions: count(metric, comparison.regressions),
      improvements: count(metric, comparison.improvements),
    };
  });
  const row = (f: Finding): FindingRow => ({
    kind: f.kind,
    run: f.key,
    metric: f.metric,
    baseline: formatValue(f.metric, f.baseline),
    candidate: formatValue(f.metric, f.candidate),
    delta: formatDelta(f),
  });
  return {
    file: source.file,
    description: source.description,
    comparison,
    regressions: comparison.regressions.length,
    improvements: comparison.improvements.length,
    regressionsText: plural(comparison.regressions.length, 'regression'),
    improvementsText: plural(comparison.improvements.length, 'improvement'),
    counts: countsLine(comparison),
    totals,
    findings: [...comparison.regressions.map(row), ...comparison.improvements.map(row)],
    missing: [...comparison.missingFromCandidate],
    added: [...comparison.newInCandidate],
  };
}

type Pair = { readonly before: RunMetrics; readonly after: RunMetrics };

function completedTotals(pairs: readonly Pair[]): [number, number] {
  const done = (m: RunMetrics): number => (m.status === 'completed' ? 1 : 0);
  return [pairs.reduce((n, p) => n + done(p.before), 0), pairs.reduce((n, p) => n + done(p.after), 0)];
}

/** Sums; the peak context as a mean and reference recall as kept / used over the runs that have both values. */
function numericTotals(metric: NumericMetric, pairs: readonly Pair[]): [number, number] {
  const valid = pairs.filter((p) => metricValue(p.before, metric) !== null && metricValue(p.after, metric) !== null);
  const total = (side: 'before' | 'after'): number => {
    if (metric === 'referenceRecall') {
      const used = valid.reduce((n, p) => n + p[side].referenceTotal!, 0);
      return used === 0 ? 0 : valid.reduce((n, p) => n + p[side].referencePresent!, 0) / used;
    }
    const values = valid.map((p) => metricValue(p[side], metric)!);
    const summed = values.reduce((n, v) => n + v, 0);
    return metric === 'peakContextPct' ? (values.length ? summed / values.length : 0) : summed;
  };
  return [total('before'), total('after')];
}

const plural = (n: number, word: string): string => `${fmtInt(n)} ${word}${n === 1 ? '' : 's'}`;
