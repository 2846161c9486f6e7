/**
 * The tables `bench run` prints when it finishes: one row per run, then one row per run configuration
 * (a strategy, told apart by its parameters when a sweep ran several settings: report/columns.ts).
 */
import { aggregateRuns, costText, type ProbeTotals, type RecallTotal, type RunsAggregate } from '../metrics/aggregate.js';
import { columnsOf, runsByColumn } from '../report/columns.js';
import type { RunResult } from '../core/run-records.js';
import { describeOutcome } from './progress.js';
import { formatPct, formatTable } from './table.js';

export function runTable(runs: readonly RunResult[]): string {
  const { columnOf } = columnsOf(runs);
  return formatTable(
    [
      { header: 'strategy' },
      { header: 'scenario' },
      { header: 'window', align: 'right' },
      { header: 'steps', align: 'right' },
      { header: 'sessions', align: 'right' },
      { header: 'restarts', align: 'right' },
      { header: 'input tokens', align: 'right' },
      { header: 'peak ctx', align: 'right' },
      { header: 'result' },
    ],
    runs.map((r) => [
      columnOf(r).label,
      r.config.scenarioId,
      r.config.window,
      `${r.summary.steps}/${r.summary.totalSteps}`,
      r.summary.sessions,
      r.summary.restarts,
      r.summary.inputTokens,
      formatPct(r.summary.peakContextPct),
      describeOutcome(r),
    ]),
  );
}

const pct = (part: number, whole: number): string => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`);
const recall = ({ present, total }: RecallTotal): string => pct(present, total);

/**
 * Probes passed / asked, with where the facts were in the context: v(erbatim), s(ummary), r(ecoverable
 * from the offload store). Live runs pass a probe on the model's answer, so they say "answered".
 */
function probeCell({ passed, total, verbatim, summary, recoverable, answered }: ProbeTotals): string {
  if (total === 0) return '-';
  return `${passed}/${total} (${answered ? 'answered; in context ' : ''}v${verbatim} s${summary} r${recoverable})`;
}

/** Whether runs overflowed, then how many the provider truncated and how many failed otherwise. */
function overflowCell(a: RunsAggregate): string {
  const verdict = a.overflowed === 0 ? 'no' : `yes (${a.overflowed} of ${a.runs})`;
  const truncated = a.truncated > 0 ? `; ${a.truncated} truncated` : '';
  return `${verdict}${truncated}${a.otherFailed > 0 ? `; ${a.otherFailed} failed otherwise` : ''}`;
}

/** The cached share of input; "n/a" when no run knows its cache hits (a provider that reports none, e.g. Ollama). */
const cachedCell = (a: RunsAggregate): string =>
  a.cachedInputTokens === null ? 'n/a' : a.cachedShare === null ? '-' : `${(100 * a.cachedShare).toFixed(1)}%`;

/** Each run configuration's label and aggregate, in column order. */
const perStrategy = (runs: readonly RunResult[]): [string, RunsAggregate][] =>
  runsByColumn(columnsOf(runs), runs).map(({ col, runs: own }) => [col.label, aggregateRuns(own)]);

/** Per strategy: what the runs did and what they cost. */
export function strategyTable(runs: readonly RunResult[]): string {
  return formatTable(
    [
      { header: 'strategy' },
      { header: 'runs', align: 'right' },
      { header: 'steps', align: 'right' },
      { header: 'sessions', align: 'right' },
      { header: 'restarts', align: 'right' },
      { header: 'total input tokens', align: 'right' },
      { header: 'cached', align: 'right' },
      { header: 'overhead', align: 'right' },
      { header: 'LLM calls', align: 'right' },
      { header: 'cost', align: 'right' },
      { header: 'peak ctx', align: 'right' },
      { header: 'mean ctx', align: 'right' },
      { header: 'overflowed' },
    ],
    perStrategy(runs).map(([name, a]) => [
      name,
      a.runs,
      `${a.steps}/${a.totalSteps}`,
      a.sessions,
      a.restarts,
      a.inputTokens,
      cachedCell(a),
      a.overheadTokens,
      a.llmCalls,
      costText(a.cost, (usd) => `$${usd.toFixed(2)}`),
      formatPct(a.peakContext.max),
      formatPct(a.meanContextPct),
      overflowCell(a),
    ]),
  );
}

/**
 * Per strategy: what the task kept. Probes passed (v: verbatim in the context, s: kept by a summary,
 * r: recoverable from the offload store), and reference recall, overall and by recorded outcome.
 */
export function successTable(runs: readonly RunResult[]): string {
  return formatTable(
    [
      { header: 'strategy' },
      { header: 'completed', align: 'right' },
      { header: 'probes passed' },
      { header: 'ref recall', align: 'right' },
      { header: 'ref recall (resolved)', align: 'right' },
      { header: 'ref recall (unresolved)', align: 'right' },
    ],
    perStrategy(runs).map(([name, a]) => [
      name,
      `${a.completed}/${a.runs}`,
      probeCell(a.probes),
      recall(a.referenceRecall),
      recall(a.recallByOutcome.resolved),
      recall(a.recallByOutcome.unresolved),
    ]),
  );
}

/** How far the replay's token counts are from the provider usage the scenarios recorded (the usage line's numbers). */
export interface UsageAgreement {
  readonly encoding: string;
  /** Counts were scaled by a token calibration factor. */
  readonly calibrated: boolean;
  readonly steps: number;
  readonly scenarios: number;
  /** Mean signed percentage error: negative = below the provider's count. */
  readonly meanPctError: number;
  /** Mean absolute percentage error over the steps. */
  readonly meanAbsPctError: number;
}

/**
 * Per strategy, for a reactive replay: what forgetting cost. Re-reads (the agent's extra requests, and
 * their share of the recorded turns), their prompt tokens (and share of the billed input), references
 * trusted to a strategy's summary, references lost, and re-reads a cap stopped. Undefined when no run
 * was reactive.
 */
export function recoveryTable(runs: readonly RunResult[]): string | undefined {
  const rows = perStrategy(runs).filter(([, a]) => a.recovery !== null);
  if (rows.length === 0) return undefined;
  return formatTable(
    [
      { header: 'strategy' },
      { header: 're-reads', align: 'right' },
      { header: 'extra steps', align: 'right' },
      { header: 're-read input tokens', align: 'right' },
      { header: 'of input', align: 'right' },
      { header: 'refs held by summary', align: 'right' },
      { header: 'refs lost', align: 'right' },
      { header: 'capped', align: 'right' },
    ],
    rows.map(([name, a]) => {
      const r = a.recovery!;
      return [
        name,
        r.rereads,
        r.totalSteps === 0 ? '-' : `+${formatPct(r.rereads / r.totalSteps)}`,
        r.rereadInputTokens,
        a.inputTokens === 0 ? '-' : formatPct(r.rereadInputTokens / a.inputTokens),
        r.summaryReferences,
        r.lostReferences,
        r.capHits,
      ];
    }),
  );
}

/**
 * How far the replay's token counts are from the provider usage the scenarios recorded, over the
 * steps that sent the recorded history unchanged (the raw baseline's). Undefined without data.
 */
export function usageAgreement(runs: readonly RunResult[]): UsageAgreement | undefined {
  const compared = runs.filter((r) => r.config.strategy === 'raw' && r.summary.usageComparison);
  if (compared.length === 0) return undefined;
  let steps = 0;
  let abs = 0;
  let signed = 0;
  for (const r of compared) {
    const c = r.summary.usageComparison!;
    steps += c.comparedSteps;
    abs += c.meanAbsPctError * c.comparedSteps;
    signed += c.meanPctError * c.comparedSteps;
  }
  return {
    encoding: compared[0]!.config.encoding,
    calibrated: compared.some((r) => r.config.calibrationFactor !== undefined),
    steps,
    scenarios: compared.length,
    meanPctError: signed / steps,
    meanAbsPctError: abs / steps,
  };
}

/** The usage agreement as the line `bench run` prints; undefined without data. */
export function usageLine(runs: readonly RunResult[]): string | undefined {
  const usage = usageAgreement(runs);
  if (usage === undefined) return undefined;
  const direction = usage.meanPctError < 0 ? 'below' : 'above';
  return (
    `Replayed token counts vs recorded provider usage (${usage.encoding}${usage.calibrated ? ', calibrated' : ''}, raw replay, ${usage.steps} steps of ${usage.scenarios} scenarios): ` +
    `mean absolute error ${usage.meanAbsPctError.toFixed(1)}%, ${Math.abs(usage.meanPctError).toFixed(1)}% ${direction} the provider's on average.`
  );
}
