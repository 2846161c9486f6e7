/**
 * The report's baseline diff: the runs against an older batch or a `bench baseline` file, compared as
 * `bench check` compares them (same metrics, directions and default tolerances, changed configurations
 * named first and not compared), plus per-metric totals over the runs compared, so a reader sees the
 * size of a change and not only its verdicts.
 */
import type { RunResult } from '../core/run-records.js';
import { configsByKey, metricsByKey } from '../gate/baseline.js';
import type { RunConfiguration } from '../gate/configuration.js';
import { allowance, compareRuns, gateVerdict, type Comparison, type Finding } from '../gate/compare.js';
import {
  BETTER,
  COMPARED_METRICS,
  DEFAULT_TOLERANCES,
  isRatio,
  metricValue,
  ratioParts,
  type ComparedMetric,
  type NumericMetric,
  type RunMetrics,
} from '../metrics/run-metrics.js';
import { countsLine, formatDelta, formatValue, notComparedLines, type GateOutcome } from '../gate/output.js';
import { fmtInt } from './format.js';

/** A baseline as loaded: where it came from, and its metrics keyed `strategy|scenarioId`. */
export interface BaselineSource {
  /** The file as the user named it. */
  readonly file: string;
  /** What it holds: which batch or baseline, when, made by which command. */
  readonly description: string;
  readonly runs: Readonly<Record<string, RunMetrics>>;
  /** Each run's configuration; undefined for a baseline file of format 1, which kept none. */
  readonly configs?: Readonly<Record<string, RunConfiguration>> | undefined;
  /** The command that makes the reported batch the new baseline (a baseline file's source); undefined for a database. */
  readonly update?: string | undefined;
}

/** The reported runs, keyed as a baseline keys them. */
export interface CandidateRuns {
  readonly metrics: ReadonlyMap<string, RunMetrics>;
  readonly configs: ReadonlyMap<string, RunConfiguration>;
}

/** The runs' metrics and configurations by key; `database` names them in the error for two runs of one key. */
export function candidateRuns(runs: readonly RunResult[], database: string | undefined): CandidateRuns {
  const where = database ?? 'the reported runs';
  return { metrics: metricsByKey(runs, where), configs: configsByKey(runs, where) };
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
  /** The verdict `bench check` would give with its defaults (no --allow-missing, no --accept-changes). */
  readonly gate: GateOutcome;
  /** What the reader must know before the numbers: configurations unknown or changed, runs missing or added. */
  readonly notes: string[];
  readonly regressions: number;
  readonly improvements: number;
  /** "3 regressions", "1 improvement". */
  readonly regressionsText: string;
  readonly improvementsText: string;
  /** `bench check`'s counts line. */
  readonly counts: string;
  readonly totals: MetricTotal[];
  readonly findings: FindingRow[];
}

export function baselineDiff(source: BaselineSource, candidate: CandidateRuns): BaselineDiff {
  const comparison = compareRuns(source.runs, candidate.metrics, { baselineConfigs: source.configs, candidateConfigs: candidate.configs });
  const changed = new Set(comparison.changed.map((c) => c.key));
  const both = Object.keys(source.runs).filter((key) => candidate.metrics.has(key) && !changed.has(key));
  const pairs = both.map((key) => ({ before: source.runs[key]!, after: candidate.metrics.get(key)! }));
  const count = (metric: ComparedMetric, findings: readonly Finding[]): number => findings.filter((f) => f.metric === metric).length;
  // A metric no run has on both sides (re-reads of forced replays) has nothing to total.
  const totaled = COMPARED_METRICS.filter((m) => m === 'status' || pairs.some((p) => metricValue(p.before, m) !== null && metricValue(p.after, m) !== null));
  const totals = totaled.map((metric): MetricTotal => {
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
    gate: { verdict: gateVerdict(comparison), update: source.update },
    notes: notComparedLines(comparison, source.update),
    regressions: comparison.regressions.length,
    improvements: comparison.improvements.length,
    regressionsText: plural(comparison.regressions.length, 'regression'),
    improvementsText: plural(comparison.improvements.length, 'improvement'),
    counts: countsLine(comparison),
    totals,
    findings: [...comparison.regressions.map(row), ...comparison.improvements.map(row)],
  };
}

type Pair = { readonly before: RunMetrics; readonly after: RunMetrics };

function completedTotals(pairs: readonly Pair[]): [number, number] {
  const done = (m: RunMetrics): number => (m.status === 'completed' ? 1 : 0);
  return [pairs.reduce((n, p) => n + done(p.before), 0), pairs.reduce((n, p) => n + done(p.after), 0)];
}

/** Sums; the peak context as a mean and a share (reference recall, cached share) as part / whole over the runs that have both values. */
function numericTotals(metric: NumericMetric, pairs: readonly Pair[]): [number, number] {
  const valid = pairs.filter((p) => metricValue(p.before, metric) !== null && metricValue(p.after, metric) !== null);
  const total = (side: 'before' | 'after'): number => {
    if (isRatio(metric)) {
      const [part, whole] = ratioParts(metric);
      const sum = (field: typeof part): number => valid.reduce((n, p) => n + (p[side][field] as number), 0);
      return sum(whole) === 0 ? 0 : sum(part) / sum(whole);
    }
    const values = valid.map((p) => metricValue(p[side], metric)!);
    const summed = values.reduce((n, v) => n + v, 0);
    return metric === 'peakContextPct' ? (values.length ? summed / values.length : 0) : summed;
  };
  return [total('before'), total('after')];
}

const plural = (n: number, word: string): string => `${fmtInt(n)} ${word}${n === 1 ? '' : 's'}`;
