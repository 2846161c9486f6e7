/**
 * The tables `bench run` prints when it finishes: one row per run, then one row per strategy.
 */
import type { RunResult } from '../runner/types.js';
import { describeOutcome } from './progress.js';
import { formatPct, formatTable } from './table.js';

export function runTable(runs: readonly RunResult[]): string {
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
      r.config.strategy,
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

export function strategyTable(runs: readonly RunResult[]): string {
  const strategies = [...new Set(runs.map((r) => r.config.strategy))];
  return formatTable(
    [
      { header: 'strategy' },
      { header: 'runs', align: 'right' },
      { header: 'steps', align: 'right' },
      { header: 'sessions', align: 'right' },
      { header: 'restarts', align: 'right' },
      { header: 'total input tokens', align: 'right' },
      { header: 'overhead tokens', align: 'right' },
      { header: 'LLM calls', align: 'right' },
      { header: 'peak ctx', align: 'right' },
      { header: 'overflowed' },
    ],
    strategies.map((name) => {
      const own = runs.filter((r) => r.config.strategy === name);
      const sum = (f: (r: RunResult) => number): number => own.reduce((acc, r) => acc + f(r), 0);
      const overflowed = own.filter((r) => r.summary.status === 'overflow').length;
      const failed = own.filter((r) => r.summary.status !== 'completed' && r.summary.status !== 'overflow').length;
      const verdict = overflowed === 0 ? 'no' : `yes (${overflowed} of ${own.length})`;
      return [
        name,
        own.length,
        `${sum((r) => r.summary.steps)}/${sum((r) => r.summary.totalSteps)}`,
        sum((r) => r.summary.sessions),
        sum((r) => r.summary.restarts),
        sum((r) => r.summary.inputTokens),
        sum((r) => r.summary.overheadTokens),
        sum((r) => r.summary.llmCalls),
        formatPct(Math.max(...own.map((r) => r.summary.peakContextPct))),
        failed > 0 ? `${verdict}; ${failed} failed otherwise` : verdict,
      ];
    }),
  );
}

/**
 * How far the local token counts are from the provider usage the scenarios recorded, over the steps
 * that sent the recorded history unchanged (the raw baseline's, mostly). Undefined without data.
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
  const encoding = compared[0]!.config.encoding;
  const direction = signed < 0 ? 'below' : 'above';
  return (
    `Token counts vs recorded provider usage (${encoding}, raw replay, ${steps} steps of ${compared.length} scenarios): ` +
    `mean absolute error ${(abs / steps).toFixed(1)}%, local counts ${Math.abs(signed / steps).toFixed(1)}% ${direction} the provider's on average.`
  );
}
