/**
 * Totals of a run configuration (or any set of runs): the one place the terminal summary, the report,
 * its exports and the gate add runs up, so they cannot disagree. The gate holds only a baseline's
 * per-run metrics, so those are aggregated first (aggregateMetrics) and the runs' aggregate
 * (aggregateRuns) adds what only a RunResult has.
 */
import type { RecoveryCounts, RunResult, RunStatus } from '../core/run-records.js';
import { isLocalPrice } from './cost.js';
import { runMetrics, type RunMetrics } from './run-metrics.js';

/** The dollars of the runs that have a price. */
export interface CostTotal {
  /** The sum over the priced runs; null when no run is priced. */
  readonly usd: number | null;
  readonly pricedRuns: number;
  /** Some runs are priced, not all: usd is a lower bound of the whole cost. */
  readonly partial: boolean;
  /** Every run is priced at a local model's $0 (an Ollama run): it reads "local". False when unknown (a baseline keeps no price model). */
  readonly local: boolean;
}

/** Recorded references still in the context when the recorded agent used them, summed over runs. */
export interface RecallTotal {
  readonly present: number;
  readonly total: number;
}

/** What a baseline's per-run metrics add up to. Means over no runs are 0. */
export interface MetricsAggregate {
  readonly runs: number;
  readonly completed: number;
  readonly overflowed: number;
  /** Replayed every step, but the provider cut prompts (status truncated). */
  readonly truncated: number;
  /** Ended otherwise: invalid context, stopped or error. */
  readonly otherFailed: number;
  /** The statuses of those runs, each once, in run order. */
  readonly otherStatuses: readonly RunStatus[];
  /** Agent steps replayed. */
  readonly steps: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly overheadTokens: number;
  /** Prompt-cache hits summed over the runs that know theirs; null when none does (a provider that reports none). */
  readonly cachedInputTokens: number | null;
  /** Those hits as a share of the same runs' input tokens; null when no run knows its hits, or they sent nothing. */
  readonly cachedShare: number | null;
  readonly cost: CostTotal;
  /** Fraction of the window at a run's fullest request: the largest, and the mean over runs. */
  readonly peakContext: { readonly max: number; readonly mean: number };
  readonly probes: { readonly passed: number; readonly total: number };
  readonly referenceRecall: RecallTotal;
}

/** Where the probes' facts were (see metrics/probe-verdict.ts), and whether the model was asked. */
export interface ProbeTotals {
  readonly passed: number;
  readonly total: number;
  readonly verbatim: number;
  readonly summary: number;
  readonly recoverable: number;
  /** Some run asked the model (a live run): passed counts its correct answers. */
  readonly answered: boolean;
}

/** What runs add up to: their metrics' aggregate and what only the runs record. */
export interface RunsAggregate extends MetricsAggregate {
  readonly totalSteps: number;
  readonly sessions: number;
  readonly restarts: number;
  readonly llmCalls: number;
  /** The mean over runs of a run's mean prompt as a fraction of the window. */
  readonly meanContextPct: number;
  readonly probes: ProbeTotals;
  /** Reference recall of the runs whose recorded task was resolved, and of those whose task was not. */
  readonly recallByOutcome: { readonly resolved: RecallTotal; readonly unresolved: RecallTotal };
  /** What forgetting cost the reactive runs among them (summed); null when every run was replayed forced. */
  readonly recovery: RecoveryTotal | null;
}

/** Reactive replay's re-reads and references, summed over the reactive runs. */
export interface RecoveryTotal extends RecoveryCounts {
  readonly runs: number;
  /** The recorded turns of those runs: the re-reads' share of them is the extra steps. */
  readonly totalSteps: number;
}

function recoveryOf(runs: readonly RunResult[]): RecoveryTotal | null {
  const reactive = runs.filter((r) => r.summary.recovery !== undefined);
  if (reactive.length === 0) return null;
  const total = (pick: (counts: RecoveryCounts) => number): number => sum(reactive, (r) => pick(r.summary.recovery!));
  return {
    runs: reactive.length,
    totalSteps: sum(reactive, (r) => r.summary.totalSteps),
    rereads: total((c) => c.rereads),
    rereadInputTokens: total((c) => c.rereadInputTokens),
    summaryReferences: total((c) => c.summaryReferences),
    lostReferences: total((c) => c.lostReferences),
    capHits: total((c) => c.capHits),
  };
}

const sum = <T>(items: readonly T[], pick: (item: T) => number): number => items.reduce((acc, item) => acc + pick(item), 0);
const mean = <T>(items: readonly T[], pick: (item: T) => number): number => (items.length === 0 ? 0 : sum(items, pick) / items.length);

const isOtherFailure = (status: RunStatus): boolean => status !== 'completed' && status !== 'overflow' && status !== 'truncated';

function recallOf(metrics: readonly RunMetrics[]): RecallTotal {
  return { present: sum(metrics, (m) => m.referencePresent ?? 0), total: sum(metrics, (m) => m.referenceTotal ?? 0) };
}

/** Cache hits and their share of input, over the runs that know their hits. */
function cachedOf(metrics: readonly RunMetrics[]): Pick<MetricsAggregate, 'cachedInputTokens' | 'cachedShare'> {
  const known = metrics.filter((m) => m.cachedInputTokens !== null);
  if (known.length === 0) return { cachedInputTokens: null, cachedShare: null };
  const cached = sum(known, (m) => m.cachedInputTokens!);
  const input = sum(known, (m) => m.inputTokens);
  return { cachedInputTokens: cached, cachedShare: input === 0 ? null : cached / input };
}

function costOf(metrics: readonly RunMetrics[]): CostTotal {
  const priced = metrics.flatMap((m) => (m.costUsd === null ? [] : [m.costUsd]));
  return {
    usd: priced.length === 0 ? null : sum(priced, (usd) => usd),
    pricedRuns: priced.length,
    partial: priced.length > 0 && priced.length < metrics.length,
    local: false,
  };
}

/** The aggregate of per-run metrics (a baseline's, or runs' through runMetrics). */
export function aggregateMetrics(metrics: readonly RunMetrics[]): MetricsAggregate {
  const statuses = metrics.map((m) => m.status);
  const others = statuses.filter(isOtherFailure);
  return {
    runs: metrics.length,
    completed: statuses.filter((s) => s === 'completed').length,
    overflowed: statuses.filter((s) => s === 'overflow').length,
    truncated: statuses.filter((s) => s === 'truncated').length,
    otherFailed: others.length,
    otherStatuses: [...new Set(others)],
    steps: sum(metrics, (m) => m.steps),
    inputTokens: sum(metrics, (m) => m.inputTokens),
    outputTokens: sum(metrics, (m) => m.outputTokens),
    overheadTokens: sum(metrics, (m) => m.overheadTokens),
    ...cachedOf(metrics),
    cost: costOf(metrics),
    peakContext: { max: metrics.reduce((max, m) => Math.max(max, m.peakContextPct), 0), mean: mean(metrics, (m) => m.peakContextPct) },
    probes: { passed: sum(metrics, (m) => m.probesPassed), total: sum(metrics, (m) => m.probesTotal) },
    referenceRecall: recallOf(metrics),
  };
}

/** The aggregate of runs, e.g. one configuration's. */
export function aggregateRuns(runs: readonly RunResult[]): RunsAggregate {
  const metrics = runs.map(runMetrics);
  const base = aggregateMetrics(metrics);
  const total = (pick: (run: RunResult) => number): number => sum(runs, pick);
  const recallWhere = (outcome: string): RecallTotal => recallOf(metrics.filter((_, i) => runs[i]!.config.outcome === outcome));
  return {
    ...base,
    cost: { ...base.cost, local: runs.length > 0 && runs.every((r) => isLocalPrice(r.config.priceModel)) },
    totalSteps: total((r) => r.summary.totalSteps),
    sessions: total((r) => r.summary.sessions),
    restarts: total((r) => r.summary.restarts),
    llmCalls: total((r) => r.summary.llmCalls),
    meanContextPct: mean(runs, (r) => r.summary.meanContextPct),
    probes: {
      ...base.probes,
      verbatim: total((r) => r.summary.probes.verbatim),
      summary: total((r) => r.summary.probes.summary),
      recoverable: total((r) => r.summary.probes.recoverable),
      answered: runs.some((r) => r.summary.probes.answered !== undefined),
    },
    recallByOutcome: { resolved: recallWhere('resolved'), unresolved: recallWhere('unresolved') },
    recovery: recoveryOf(runs),
  };
}

/** A cost as text: `none` when no run is priced, "local" for runs on a local model, else its dollars, a "+" after them when they are a lower bound. */
export function costText(cost: CostTotal, dollars: (usd: number) => string, none = '-'): string {
  if (cost.local) return 'local';
  return cost.usd === null ? none : `${dollars(cost.usd)}${cost.partial ? '+' : ''}`;
}
