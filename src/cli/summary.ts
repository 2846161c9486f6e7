/**
 * The tables `bench run` prints when it finishes: one row per run, then one row per run configuration
 * (a strategy, told apart by its parameters when a sweep ran several settings: report/columns.ts).
 */
import { probesPassed } from '../metrics/probe-verdict.js';
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

/**
 * Probes passed / asked, with where the facts were in the context: v(erbatim), s(ummary), r(ecoverable
 * from the offload store). Live runs pass a probe on the model's answer, so they say "answered".
 */
function probeCell(runs: readonly RunResult[]): string {
  const total = runs.reduce((n, r) => n + r.summary.probes.total, 0);
  if (total === 0) return '-';
  const sum = (k: 'verbatim' | 'summary' | 'recoverable'): number => runs.reduce((n, r) => n + r.summary.probes[k], 0);
  const [v, s, r] = [sum('verbatim'), sum('summary'), sum('recoverable')];
  const passed = runs.reduce((n, run) => n + probesPassed(run.summary.probes), 0);
  const asked = runs.some((run) => run.summary.probes.answered !== undefined);
  return `${passed}/${total} (${asked ? 'answered; in context ' : ''}v${v} s${s} r${r})`;
}

function costCell(runs: readonly RunResult[]): string {
  const known = runs.filter((r) => r.summary.costUsd !== undefined);
  if (known.length === 0) return '-';
  const total = known.reduce((n, r) => n + r.summary.costUsd!, 0);
  return `$${total.toFixed(2)}${known.length < runs.length ? '+' : ''}`;
}

const perStrategy = (runs: readonly RunResult[]): [string, RunResult[]][] =>
  runsByColumn(columnsOf(runs), runs).map(({ col, runs: own }) => [col.label, own]);

const total = (runs: readonly RunResult[], f: (r: RunResult) => number): number => runs.reduce((acc, r) => acc + f(r), 0);

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
    perStrategy(runs).map(([name, own]) => {
      const overflowed = own.filter((r) => r.summary.status === 'overflow').length;
      const failed = own.filter((r) => r.summary.status !== 'completed' && r.summary.status !== 'overflow').length;
      const verdict = overflowed === 0 ? 'no' : `yes (${overflowed} of ${own.length})`;
      const input = total(own, (r) => r.summary.inputTokens);
      return [
        name,
        own.length,
        `${total(own, (r) => r.summary.steps)}/${total(own, (r) => r.summary.totalSteps)}`,
        total(own, (r) => r.summary.sessions),
        total(own, (r) => r.summary.restarts),
        input,
        pct(total(own, (r) => r.summary.cachedInputTokens), input),
        total(own, (r) => r.summary.overheadTokens),
        total(own, (r) => r.summary.llmCalls),
        costCell(own),
        formatPct(Math.max(...own.map((r) => r.summary.peakContextPct))),
        formatPct(total(own, (r) => r.summary.meanContextPct) / own.length),
        failed > 0 ? `${verdict}; ${failed} failed otherwise` : verdict,
      ];
    }),
  );
}

/**
 * Per strategy: what the task kept. Probes passed (v: verbatim in the context, s: kept by a summary,
 * r: recoverable from the offload store), and reference recall, overall and by recorded outcome.
 */
export function successTable(runs: readonly RunResult[]): string {
  const recall = (own: readonly RunResult[]): string =>
    pct(total(own, (r) => r.summary.referenceRecall?.present ?? 0), total(own, (r) => r.summary.referenceRecall?.total ?? 0));
  return formatTable(
    [
      { header: 'strategy' },
      { header: 'completed', align: 'right' },
      { header: 'probes passed' },
      { header: 'ref recall', align: 'right' },
      { header: 'ref recall (resolved)', align: 'right' },
      { header: 'ref recall (unresolved)', align: 'right' },
    ],
    perStrategy(runs).map(([name, own]) => [
      name,
      `${own.filter((r) => r.summary.status === 'completed').length}/${own.length}`,
      probeCell(own),
      recall(own),
      recall(own.filter((r) => r.config.outcome === 'resolved')),
      recall(own.filter((r) => r.config.outcome === 'unresolved')),
    ]),
  );
}

/**
 * How far the replay's token counts are from the provider usage the scenarios recorded, over the
 * steps that sent the recorded history unchanged (the raw baseline's). Undefined without data.
 */
export function usageLine(runs: readonly RunResult[]): string | undefined {
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
  const calibrated = compared.some((r) => r.config.calibrationFactor !== undefined) ? ', calibrated' : '';
  const direction = signed < 0 ? 'below' : 'above';
  return (
    `Replayed token counts vs recorded provider usage (${compared[0]!.config.encoding}${calibrated}, raw replay, ${steps} steps of ${compared.length} scenarios): ` +
    `mean absolute error ${(abs / steps).toFixed(1)}%, ${Math.abs(signed / steps).toFixed(1)}% ${direction} the provider's on average.`
  );
}
