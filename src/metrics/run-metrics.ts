/**
 * The per-run metrics, each declared once: how a run's value is read, whether a baseline file keeps
 * it, whether `bench check` compares it (which way is better, how much worse it may get by default)
 * and its unit (how it prints). The baseline's fields, the compared metrics, their directions and
 * default tolerances are read off this table, in its order.
 */
import type { RunResult, RunStatus } from '../core/run-records.js';
import { probesPassed } from './probe-verdict.js';

export type Direction = 'lower' | 'higher';

export interface Tolerance {
  readonly kind: 'abs' | 'rel';
  /** abs: in the metric's unit (fractions for peakContextPct and referenceRecall); rel: a fraction of the baseline. */
  readonly value: number;
}

/** How a value prints: a run status as written, a count, a fraction (as a percentage), dollars. */
export type MetricUnit = 'status' | 'count' | 'fraction' | 'usd';

interface MetricSpec {
  readonly unit: MetricUnit;
  /** A run's value, for the metrics a baseline file keeps (in this table's order); absent for a derived one. */
  readonly of?: (run: RunResult) => RunStatus | number | null;
  /** The value may be null: the run has none (no recorded references, no price, no cache count from the provider). */
  readonly nullable?: true;
  /** A derived metric: the share `part / whole` of two stored metrics; none when either is null or the whole is 0. */
  readonly ratio?: readonly [part: string, whole: string];
  /** `bench check` compares it: 'status' by the status rule (gate/compare.ts), otherwise by direction and tolerance. */
  readonly check?: 'status' | { readonly better: Direction; readonly tolerance: Tolerance };
}

const rel = (value: number): Tolerance => ({ kind: 'rel', value });
const abs = (value: number): Tolerance => ({ kind: 'abs', value });

/** Every per-run metric, in the baseline file's order (a derived one where bench check lists it). */
export const RUN_METRICS = {
  status: { unit: 'status', of: (run) => run.summary.status, check: 'status' },
  // Fewer steps replayed: the run ended earlier.
  steps: { unit: 'count', of: (run) => run.summary.steps, check: { better: 'higher', tolerance: abs(0) } },
  inputTokens: { unit: 'count', of: (run) => run.summary.inputTokens, check: { better: 'lower', tolerance: rel(0.02) } },
  outputTokens: { unit: 'count', of: (run) => run.summary.outputTokens, check: { better: 'lower', tolerance: rel(0.02) } },
  overheadTokens: { unit: 'count', of: (run) => run.summary.overheadTokens, check: { better: 'lower', tolerance: rel(0.02) } },
  // Input tokens that hit the prompt cache; null when a live provider reported no cache count.
  cachedInputTokens: { unit: 'count', of: (run): number | null => run.summary.cachedInputTokens ?? null, nullable: true },
  // The share of input billed at the cache price, compared rather than the count, which falls whenever input falls.
  cachedShare: { unit: 'fraction', ratio: ['cachedInputTokens', 'inputTokens'] as const, check: { better: 'higher', tolerance: abs(0.01) } },
  // Fraction of the window at the fullest request.
  peakContextPct: { unit: 'fraction', of: (run) => run.summary.peakContextPct, check: { better: 'lower', tolerance: abs(0.02) } },
  // Probes answered verbatim, from a summary or recoverable from the offload store.
  probesPassed: { unit: 'count', of: (run) => probesPassed(run.summary.probes), check: { better: 'higher', tolerance: abs(0) } },
  probesTotal: { unit: 'count', of: (run) => run.summary.probes.total },
  // Recorded references still in context when used; null when the scenario records none.
  referencePresent: { unit: 'count', of: (run) => run.summary.referenceRecall?.present ?? null, nullable: true },
  referenceTotal: { unit: 'count', of: (run) => run.summary.referenceRecall?.total ?? null, nullable: true },
  // Compared rather than its parts.
  referenceRecall: { unit: 'fraction', ratio: ['referencePresent', 'referenceTotal'] as const, check: { better: 'higher', tolerance: abs(0.005) } },
  // Reactive replay: requests the agent made to re-read what a strategy took out, and their prompt tokens; null for a forced replay.
  rereads: { unit: 'count', of: (run) => run.summary.recovery?.rereads ?? null, nullable: true, check: { better: 'lower', tolerance: abs(0) } },
  rereadInputTokens: { unit: 'count', of: (run) => run.summary.recovery?.rereadInputTokens ?? null, nullable: true, check: { better: 'lower', tolerance: rel(0.02) } },
  // null when the price model's price is unknown.
  costUsd: { unit: 'usd', of: (run) => run.summary.costUsd ?? null, nullable: true, check: { better: 'lower', tolerance: rel(0.02) } },
} satisfies Record<string, MetricSpec>;

type Specs = typeof RUN_METRICS;
export type MetricName = keyof Specs;
/** The metrics a baseline file keeps per run. */
export type StoredMetric = { [K in MetricName]: Specs[K] extends { of: unknown } ? K : never }[MetricName];
/** What `bench check` compares. */
export type ComparedMetric = { [K in MetricName]: Specs[K] extends { check: unknown } ? K : never }[MetricName];
/** The compared metrics with a direction and a tolerance: all but status. */
export type NumericMetric = { [K in MetricName]: Specs[K] extends { check: { better: Direction } } ? K : never }[MetricName];
/** The derived metrics: a share of two stored ones. */
export type RatioMetric = { [K in MetricName]: Specs[K] extends { ratio: readonly [StoredMetric, StoredMetric] } ? K : never }[MetricName];

/** A run's metrics as a baseline file keeps them. */
export type RunMetrics = { readonly [K in StoredMetric]: ReturnType<Specs[K]['of']> };

export type Tolerances = Readonly<Record<NumericMetric, Tolerance>>;

const spec = (metric: MetricName): MetricSpec => RUN_METRICS[metric];
const NAMES = Object.keys(RUN_METRICS) as MetricName[];

/** The keys of RunMetrics in file order. */
export const METRIC_FIELDS: readonly StoredMetric[] = NAMES.filter((m): m is StoredMetric => spec(m).of !== undefined);
/** What `bench check` compares, in its order. */
export const COMPARED_METRICS: readonly ComparedMetric[] = NAMES.filter((m): m is ComparedMetric => spec(m).check !== undefined);
/** The compared metrics but status, which has a rule of its own. */
export const NUMERIC_METRICS: readonly NumericMetric[] = COMPARED_METRICS.filter((m): m is NumericMetric => spec(m).check !== 'status');
/** The stored metrics that may be null. */
export const NULLABLE_METRICS: ReadonlySet<StoredMetric> = new Set(METRIC_FIELDS.filter((m) => spec(m).nullable));

const checkOf = (metric: NumericMetric) => RUN_METRICS[metric].check;
/** Which way is better for each numeric metric. */
export const BETTER = Object.fromEntries(NUMERIC_METRICS.map((m) => [m, checkOf(m).better])) as Readonly<Record<NumericMetric, Direction>>;
/** How much worse each numeric metric may get before `bench check` calls it a regression. */
export const DEFAULT_TOLERANCES = Object.fromEntries(NUMERIC_METRICS.map((m) => [m, checkOf(m).tolerance])) as Tolerances;

export const unitOf = (metric: MetricName): MetricUnit => RUN_METRICS[metric].unit;

/** "rel:2%" or "abs:0.02", as `--tolerance` takes it. */
export const toleranceText = (t: Tolerance): string => (t.kind === 'rel' ? `rel:${Number((t.value * 100).toPrecision(12))}%` : `abs:${t.value}`);

/** A run's metrics, in file order. */
export function runMetrics(run: RunResult): RunMetrics {
  return Object.fromEntries(METRIC_FIELDS.map((m) => [m, spec(m).of!(run)])) as RunMetrics;
}

export const isRatio = (metric: MetricName): metric is RatioMetric => spec(metric).ratio !== undefined;

/** The stored metrics a derived one is the share of: [part, whole]. */
export const ratioParts = (metric: RatioMetric): readonly [StoredMetric, StoredMetric] => RUN_METRICS[metric].ratio;

/** A compared metric's value for a run; null when it has none (no price, no recorded references, no cache count). */
export function metricValue(metrics: RunMetrics, metric: NumericMetric): number | null {
  if (!isRatio(metric)) return metrics[metric];
  const [partField, wholeField] = ratioParts(metric);
  const part = metrics[partField] as number | null;
  const whole = metrics[wholeField] as number | null;
  return part === null || whole === null || whole === 0 ? null : part / whole;
}
