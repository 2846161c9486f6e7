/**
 * The regression gate's comparison: candidate runs against a baseline, like with like. A run whose
 * configuration changed is named, not measured; the others are compared per metric, with a tolerance
 * (absolute or relative) and a direction (which way is worse). The verdict also fails a gate that
 * could not compare what the baseline holds (missing runs, changed configurations).
 */
import { BETTER, DEFAULT_TOLERANCES, metricValue, NUMERIC_METRICS, type ComparedMetric, type RunMetrics, type Tolerance, type Tolerances } from '../metrics/run-metrics.js';
import type { RunStatus } from '../core/run-records.js';
import { configurationChanges, type RunConfiguration } from './configuration.js';
import type { TolerancesFor } from './tolerances.js';

export interface Finding {
  readonly key: string;
  readonly metric: ComparedMetric;
  readonly baseline: number | string;
  readonly candidate: number | string;
  /** candidate - baseline, for numeric metrics. */
  readonly delta: number | null;
  readonly kind: 'regression' | 'improvement';
}

/** A run configured otherwise than in the baseline, and how: ["masking.softThreshold 0.7 -> 0.5"]. */
export interface ConfigurationChange {
  readonly key: string;
  readonly changes: readonly string[];
}

export interface Comparison {
  readonly regressions: readonly Finding[];
  readonly improvements: readonly Finding[];
  /** Runs in the baseline the candidate does not have. */
  readonly missingFromCandidate: readonly string[];
  /** Runs the candidate has that the baseline does not. */
  readonly newInCandidate: readonly string[];
  /** Runs in both whose configuration differs: named, not compared. */
  readonly changed: readonly ConfigurationChange[];
  /** Runs in both compared metric by metric. */
  readonly compared: number;
  /** Runs in the baseline. */
  readonly baselineRuns: number;
  /** False when the baseline keeps no configurations (format 1): a changed one cannot be found. */
  readonly configurationKnown: boolean;
}

export interface CompareOptions {
  /** Per metric, or per strategy label (a tolerance file); default DEFAULT_TOLERANCES. */
  readonly tolerances?: Tolerances | TolerancesFor | undefined;
  /** The baseline's run configurations; undefined when it keeps none. */
  readonly baselineConfigs?: Readonly<Record<string, RunConfiguration>> | undefined;
  /** The candidate's run configurations; needed with baselineConfigs. */
  readonly candidateConfigs?: ReadonlyMap<string, RunConfiguration> | undefined;
}

/** How far `candidate` may be worse than `baseline` before it is a regression (and better before it is an improvement). */
export function allowance(tolerance: Tolerance, baseline: number): number {
  return tolerance.kind === 'abs' ? tolerance.value : tolerance.value * Math.abs(baseline);
}

const EPSILON = 1e-9;

/** A candidate's value where the baseline had one and the candidate has none. */
export const LOST = 'none';

/** The strategy label of a run key (`strategy|scenarioId`). */
export const strategyOf = (key: string): string => key.slice(0, key.indexOf('|'));

/**
 * How a run ended, best first: it completed; it ended for its context (the window, a provider cutting
 * the prompt, the strategy stopping it); it broke (an unpaired context, an error).
 */
const STATUS_RANK: Readonly<Record<RunStatus, number>> = { completed: 0, truncated: 1, overflow: 1, stopped: 1, invalid_context: 2, error: 2 };

/**
 * Compares each run in both sets whose configuration is the same (or unknown). A changed status
 * decides alone: a run that now ends better (completes; ends for its context where it broke) is an
 * improvement, any other change a regression (overflow -> error, overflow -> invalid_context, and
 * overflow -> stopped too: the gate cannot tell such a change was meant). The other metrics of a run
 * whose status changed are not compared (a run that stopped early uses fewer tokens, which is no
 * improvement). A metric the baseline has and the candidate lost (a price or a reference count gone)
 * is a regression.
 */
export function compareRuns(
  baseline: Readonly<Record<string, RunMetrics>>,
  candidate: ReadonlyMap<string, RunMetrics> | Readonly<Record<string, RunMetrics>>,
  options: CompareOptions = {},
): Comparison {
  const cand = candidate instanceof Map ? candidate : new Map(Object.entries(candidate));
  const { tolerances = DEFAULT_TOLERANCES, baselineConfigs, candidateConfigs } = options;
  const tolerancesOf = typeof tolerances === 'function' ? tolerances : () => tolerances;
  const regressions: Finding[] = [];
  const improvements: Finding[] = [];
  const changed: ConfigurationChange[] = [];
  const baseKeys = Object.keys(baseline).sort();
  const missingFromCandidate = baseKeys.filter((key) => !cand.has(key));
  const newInCandidate = [...cand.keys()].filter((key) => !(key in baseline)).sort();
  let compared = 0;
  for (const key of baseKeys) {
    const b = baseline[key]!;
    const c = cand.get(key);
    if (c === undefined) continue;
    const was = baselineConfigs?.[key];
    const now = candidateConfigs?.get(key);
    const changes = was && now ? configurationChanges(key, was, now) : [];
    if (changes.length > 0) {
      changed.push({ key, changes });
      continue;
    }
    compared += 1;
    if (b.status !== c.status) {
      const finding = { key, metric: 'status', baseline: b.status, candidate: c.status, delta: null } as const;
      if (STATUS_RANK[c.status as RunStatus] < STATUS_RANK[b.status as RunStatus]) improvements.push({ ...finding, kind: 'improvement' });
      else regressions.push({ ...finding, kind: 'regression' });
      continue;
    }
    for (const metric of NUMERIC_METRICS) {
      const bv = metricValue(b, metric);
      const cv = metricValue(c, metric);
      if (bv === null) continue;
      if (cv === null) {
        regressions.push({ key, metric, baseline: bv, candidate: LOST, delta: null, kind: 'regression' });
        continue;
      }
      const delta = cv - bv;
      const worseBy = BETTER[metric] === 'lower' ? delta : -delta;
      const allowed = allowance(tolerancesOf(strategyOf(key))[metric], bv) + EPSILON * Math.max(1, Math.abs(bv));
      if (worseBy > allowed) regressions.push({ key, metric, baseline: bv, candidate: cv, delta, kind: 'regression' });
      else if (-worseBy > allowed) improvements.push({ key, metric, baseline: bv, candidate: cv, delta, kind: 'improvement' });
    }
  }
  return {
    regressions,
    improvements,
    missingFromCandidate,
    newInCandidate,
    changed,
    compared,
    baselineRuns: baseKeys.length,
    configurationKnown: baselineConfigs !== undefined && candidateConfigs !== undefined,
  };
}

/** What `bench check` lets pass that it would fail otherwise. */
export interface GateFlags {
  /** Baseline runs missing from the candidate are listed, not failed (some must still be there). */
  readonly allowMissing?: boolean | undefined;
  /** Runs with a changed configuration are listed, not failed (some run must still be compared). */
  readonly acceptChanges?: boolean | undefined;
}

/** What fails the gate: regressions, and what kept it from comparing like with like. */
export interface GateVerdict {
  /** Some run got worse beyond its tolerance. */
  readonly regressed: boolean;
  /** Baseline runs are missing from the candidate, unless allowed; always when none of them is there. */
  readonly missingFails: boolean;
  /** Runs have a changed configuration, unless accepted; always when no run was left to compare. */
  readonly changesFail: boolean;
}

export function gateVerdict(c: Comparison, flags: GateFlags = {}): GateVerdict {
  const missing = c.missingFromCandidate.length;
  return {
    regressed: c.regressions.length > 0,
    missingFails: missing > 0 && (!flags.allowMissing || missing === c.baselineRuns),
    // Accepting every change of a batch whose every run changed would pass a gate that compared nothing.
    changesFail: c.changed.length > 0 && (!flags.acceptChanges || c.compared === 0),
  };
}

export const passed = (v: GateVerdict): boolean => !v.regressed && !v.missingFails && !v.changesFail;
