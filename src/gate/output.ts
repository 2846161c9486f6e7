/**
 * What `bench check` prints and writes: the findings table, a markdown summary (PR comment or
 * $GITHUB_STEP_SUMMARY) and github-action-benchmark's JSON (customSmallerIsBetter).
 */
import type { FileKind } from '../core/output-file.js';
import { aggregateMetrics, costText, type MetricsAggregate } from '../metrics/aggregate.js';
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

type RunsByKey = ReadonlyMap<string, RunMetrics> | Readonly<Record<string, RunMetrics>>;

/** Each strategy's aggregate over runs keyed `strategy|scenarioId`, sorted by strategy. */
export function aggregateByStrategy(runs: RunsByKey): { strategy: string; totals: MetricsAggregate }[] {
  const entries = runs instanceof Map ? [...runs.entries()] : Object.entries(runs);
  const groups = new Map<string, RunMetrics[]>();
  for (const [key, metrics] of entries) {
    const strategy = key.slice(0, key.indexOf('|'));
    groups.set(strategy, [...(groups.get(strategy) ?? []), metrics]);
  }
  return [...groups.keys()].sort().map((strategy) => ({ strategy, totals: aggregateMetrics(groups.get(strategy)!) }));
}

export interface BenchmarkEntry {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly extra?: string;
}

const probesLost = (a: MetricsAggregate): number => a.probes.total - a.probes.passed;
const notCompleted = (a: MetricsAggregate): number => a.runs - a.completed;

/**
 * github-action-benchmark's customSmallerIsBetter input: every value here is better when smaller. A
 * cost goes in only when every run is priced: a lower bound would chart as a saving.
 */
/** A file of benchmarkJson's entries: a JSON array, empty or of objects whose first field is `name`. */
export const BENCHMARK_JSON: FileKind = {
  name: 'a benchmark JSON',
  matches: (head) => /^\[\s*(?:\]|\{\s*"name"\s*:)/.test(head.toString('utf8')),
};

export function benchmarkJson(runs: RunsByKey): BenchmarkEntry[] {
  const out: BenchmarkEntry[] = [];
  for (const { strategy, totals: a } of aggregateByStrategy(runs)) {
    const extra = `${a.runs} runs`;
    out.push(
      { name: `${strategy}: input tokens`, unit: 'tokens', value: a.inputTokens, extra },
      { name: `${strategy}: output tokens`, unit: 'tokens', value: a.outputTokens, extra },
      { name: `${strategy}: overhead tokens`, unit: 'tokens', value: a.overheadTokens, extra },
    );
    if (a.cost.pricedRuns === a.runs) out.push({ name: `${strategy}: cost`, unit: 'USD', value: round(a.cost.usd!, 6), extra });
    out.push(
      { name: `${strategy}: mean peak context`, unit: '% of window', value: round(a.peakContext.mean * 100, 2), extra },
      { name: `${strategy}: probes lost`, unit: 'probes', value: probesLost(a), extra },
      { name: `${strategy}: runs not completed`, unit: 'runs', value: notCompleted(a), extra },
    );
  }
  return out;
}

const round = (n: number, digits: number): number => Number(n.toFixed(digits));

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** A markdown summary ctxbench wrote: this one (`## ctxbench check: ...`) or the report's (`## ctxbench report`). */
export const MARKDOWN_SUMMARY: FileKind = {
  name: 'a markdown summary',
  matches: (head) => head.toString('utf8').startsWith('## ctxbench '),
};

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
  const before = new Map(aggregateByStrategy(baseline).map((a) => [a.strategy, a.totals]));
  const after = aggregateByStrategy(candidate);
  if (after.length > 0) {
    const shown = (value: number | undefined, metric: ComparedMetric): string => (value === undefined ? '–' : formatValue(metric, value));
    const pair = (b: MetricsAggregate | undefined, a: MetricsAggregate, value: (totals: MetricsAggregate) => number, metric: ComparedMetric): string =>
      `${shown(b && value(b), metric)} → ${shown(value(a), metric)}`;
    const cost = (totals: MetricsAggregate | undefined): string => (totals ? costText(totals.cost, (usd) => formatValue('costUsd', usd), '–') : '–');
    lines.push(
      '| strategy | runs | input tokens | output tokens | cost | mean peak context | probes lost | not completed |',
      '|---|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const { strategy, totals: a } of after) {
      const b = before.get(strategy);
      lines.push(
        `| ${cell(strategy)} | ${a.runs} | ${pair(b, a, (t) => t.inputTokens, 'inputTokens')} | ${pair(b, a, (t) => t.outputTokens, 'outputTokens')} | ` +
          `${cost(b)} → ${cost(a)} | ${pair(b, a, (t) => t.peakContext.mean, 'peakContextPct')} | ` +
          `${pair(b, a, probesLost, 'probesPassed')} | ${pair(b, a, notCompleted, 'steps')} |`,
      );
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}
