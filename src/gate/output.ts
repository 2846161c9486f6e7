/**
 * What `bench check` prints and writes: the findings table, a markdown summary (PR comment or
 * $GITHUB_STEP_SUMMARY) and github-action-benchmark's JSON (customSmallerIsBetter).
 */
import { unitOf, type ComparedMetric, type RunMetrics } from '../metrics/run-metrics.js';
import type { Comparison, Finding } from './compare.js';

/** A metric's value in its unit (run-metrics.ts): a status as written, a percentage, dollars, a count. */
export function formatValue(metric: ComparedMetric, value: number | string): string {
  if (typeof value === 'string') return value;
  const unit = unitOf(metric);
  if (unit === 'fraction') return `${(value * 100).toFixed(1)}%`;
  if (unit === 'usd') return `$${value.toFixed(4)}`;
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(2);
}

export function formatDelta(finding: Finding): string {
  const { metric, delta, baseline } = finding;
  if (delta === null || typeof baseline !== 'number') return '';
  const sign = delta > 0 ? '+' : delta < 0 ? '-' : '±';
  if (unitOf(metric) === 'fraction') return `${sign}${Math.abs(delta * 100).toFixed(1)} pp`;
  const abs = formatValue(metric, Math.abs(delta));
  return baseline === 0 ? `${sign}${abs}` : `${sign}${abs} (${sign}${Math.abs((delta / baseline) * 100).toFixed(1)}%)`;
}

const HEADERS = ['', 'metric', 'run', 'baseline', 'candidate', 'delta'] as const;

function findingRows(comparison: Comparison): string[][] {
  return [...comparison.regressions, ...comparison.improvements].map((f) => [
    f.kind === 'regression' ? 'REGRESSION' : 'improvement',
    f.metric,
    f.key,
    formatValue(f.metric, f.baseline),
    formatValue(f.metric, f.candidate),
    formatDelta(f),
  ]);
}

export function countsLine(c: Comparison): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  return (
    `${plural(c.regressions.length, 'regression')}, ${plural(c.improvements.length, 'improvement')} over ${plural(c.compared, 'run')} compared` +
    `; ${c.missingFromCandidate.length} missing from the candidate, ${c.newInCandidate.length} not in the baseline`
  );
}

/** The terminal report: a table of findings, the runs missing on either side, then the counts. */
export function formatText(c: Comparison): string {
  const lines: string[] = [];
  const rows = findingRows(c);
  if (rows.length > 0) {
    const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const right = new Set([3, 4, 5]);
    const line = (cells: readonly string[]): string =>
      cells.map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
    lines.push(line(HEADERS), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), '');
  }
  if (c.missingFromCandidate.length > 0) lines.push(`Missing from the candidate: ${c.missingFromCandidate.join(', ')}`);
  if (c.newInCandidate.length > 0) lines.push(`Not in the baseline: ${c.newInCandidate.join(', ')}`);
  lines.push(countsLine(c));
  return `${lines.join('\n')}\n`;
}

export interface StrategyAggregate {
  readonly strategy: string;
  readonly runs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly overheadTokens: number;
  /** null when any run's price is unknown. */
  readonly costUsd: number | null;
  readonly meanPeakContextPct: number;
  readonly probesLost: number;
  readonly notCompleted: number;
}

/** Per-strategy sums (means for peak context) over runs keyed `strategy|scenarioId`, sorted by strategy. */
export function aggregateByStrategy(runs: ReadonlyMap<string, RunMetrics> | Readonly<Record<string, RunMetrics>>): StrategyAggregate[] {
  const entries = runs instanceof Map ? [...runs.entries()] : Object.entries(runs);
  const groups = new Map<string, RunMetrics[]>();
  for (const [key, metrics] of entries) {
    const strategy = key.slice(0, key.indexOf('|'));
    groups.set(strategy, [...(groups.get(strategy) ?? []), metrics]);
  }
  const sum = (list: readonly RunMetrics[], f: (m: RunMetrics) => number): number => list.reduce((t, m) => t + f(m), 0);
  return [...groups.keys()].sort().map((strategy) => {
    const list = groups.get(strategy)!;
    return {
      strategy,
      runs: list.length,
      inputTokens: sum(list, (m) => m.inputTokens),
      outputTokens: sum(list, (m) => m.outputTokens),
      overheadTokens: sum(list, (m) => m.overheadTokens),
      costUsd: list.every((m) => m.costUsd !== null) ? sum(list, (m) => m.costUsd!) : null,
      meanPeakContextPct: sum(list, (m) => m.peakContextPct) / list.length,
      probesLost: sum(list, (m) => m.probesTotal - m.probesPassed),
      notCompleted: list.filter((m) => m.status !== 'completed').length,
    };
  });
}

export interface BenchmarkEntry {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly extra?: string;
}

/** github-action-benchmark's customSmallerIsBetter input: every value here is better when smaller. */
export function benchmarkJson(runs: ReadonlyMap<string, RunMetrics> | Readonly<Record<string, RunMetrics>>): BenchmarkEntry[] {
  const out: BenchmarkEntry[] = [];
  for (const a of aggregateByStrategy(runs)) {
    const extra = `${a.runs} runs`;
    out.push(
      { name: `${a.strategy}: input tokens`, unit: 'tokens', value: a.inputTokens, extra },
      { name: `${a.strategy}: output tokens`, unit: 'tokens', value: a.outputTokens, extra },
      { name: `${a.strategy}: overhead tokens`, unit: 'tokens', value: a.overheadTokens, extra },
    );
    if (a.costUsd !== null) out.push({ name: `${a.strategy}: cost`, unit: 'USD', value: round(a.costUsd, 6), extra });
    out.push(
      { name: `${a.strategy}: mean peak context`, unit: '% of window', value: round(a.meanPeakContextPct * 100, 2), extra },
      { name: `${a.strategy}: probes lost`, unit: 'probes', value: a.probesLost, extra },
      { name: `${a.strategy}: runs not completed`, unit: 'runs', value: a.notCompleted, extra },
    );
  }
  return out;
}

const round = (n: number, digits: number): number => Number(n.toFixed(digits));

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** A markdown summary: verdict, findings, missing runs, and per-strategy totals (baseline -> candidate). */
export function formatMarkdown(
  c: Comparison,
  baseline: Readonly<Record<string, RunMetrics>>,
  candidate: ReadonlyMap<string, RunMetrics>,
): string {
  const lines = [`## ctxbench check: ${c.regressions.length === 0 ? 'pass' : 'FAIL'}`, '', countsLine(c), ''];
  const rows = findingRows(c);
  if (rows.length > 0) {
    lines.push(`| ${HEADERS.slice(1).join(' | ')} | |`, '|---|---|--:|--:|--:|---|');
    for (const r of rows) lines.push(`| ${r.slice(1).map(cell).join(' | ')} | ${r[0] === 'REGRESSION' ? '❌ regression' : '✅ improvement'} |`);
    lines.push('');
  }
  if (c.missingFromCandidate.length > 0) lines.push(`Missing from the candidate: ${c.missingFromCandidate.map((k) => `\`${k}\``).join(', ')}`, '');
  if (c.newInCandidate.length > 0) lines.push(`Not in the baseline: ${c.newInCandidate.map((k) => `\`${k}\``).join(', ')}`, '');
  const before = new Map(aggregateByStrategy(baseline).map((a) => [a.strategy, a]));
  const after = aggregateByStrategy(candidate);
  if (after.length > 0) {
    const pair = (b: number | null | undefined, a: number | null, metric: ComparedMetric): string =>
      `${b === undefined || b === null ? '–' : formatValue(metric, b)} → ${a === null ? '–' : formatValue(metric, a)}`;
    lines.push(
      '| strategy | runs | input tokens | output tokens | cost | mean peak context | probes lost | not completed |',
      '|---|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const a of after) {
      const b = before.get(a.strategy);
      lines.push(
        `| ${cell(a.strategy)} | ${a.runs} | ${pair(b?.inputTokens, a.inputTokens, 'inputTokens')} | ${pair(b?.outputTokens, a.outputTokens, 'outputTokens')} | ` +
          `${pair(b?.costUsd, a.costUsd, 'costUsd')} | ${pair(b?.meanPeakContextPct, a.meanPeakContextPct, 'peakContextPct')} | ` +
          `${pair(b?.probesLost, a.probesLost, 'probesPassed')} | ${pair(b?.notCompleted, a.notCompleted, 'steps')} |`,
      );
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}
