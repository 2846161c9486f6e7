/**
 * What `bench check` prints and writes: the findings table, what was not compared and why, the
 * verdict, a markdown summary (PR comment or $GITHUB_STEP_SUMMARY) and github-action-benchmark's JSON
 * (customSmallerIsBetter).
 */
import { markdownText } from '../core/markdown.js';
import type { FileKind } from '../core/output-file.js';
import { aggregateMetrics, costText, type MetricsAggregate } from '../metrics/aggregate.js';
import { unitOf, type ComparedMetric, type RunMetrics } from '../metrics/run-metrics.js';
import { passed, strategyOf, type Comparison, type Finding, type GateVerdict } from './compare.js';

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

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function countsLine(c: Comparison): string {
  return (
    `${plural(c.regressions.length, 'regression')}, ${plural(c.improvements.length, 'improvement')} over ${plural(c.compared, 'run')} compared` +
    `; ${c.missingFromCandidate.length} missing from the candidate, ${c.changed.length} with a changed configuration, ${c.newInCandidate.length} not in the baseline`
  );
}

/** At most `shown` items, then how many more: "a, b, c, d, e and 7 more". */
function shortList(items: readonly string[], shown = 5): string {
  const head = items.slice(0, shown).join(', ');
  return items.length > shown ? `${head} and ${items.length - shown} more` : head;
}

/** Distinct configuration changes shown; the rest are counted. */
const CHANGES_SHOWN = 10;

/**
 * One line per distinct change, with the runs it concerns: "configuration changed:
 * masking.softThreshold 0.7 -> 0.5 (12 runs: masking|a, ... and 7 more)"; the first few changes, then a count.
 */
function changeLines(c: Comparison): string[] {
  const runsOf = new Map<string, string[]>();
  for (const { key, changes } of c.changed) for (const change of changes) runsOf.set(change, [...(runsOf.get(change) ?? []), key]);
  const lines = [...runsOf].slice(0, CHANGES_SHOWN).map(([change, keys]) => `configuration changed: ${change} (${plural(keys.length, 'run')}: ${shortList(keys)})`);
  const more = runsOf.size - CHANGES_SHOWN;
  return more > 0 ? [...lines, `configuration changed: ${plural(more, 'more setting')}`] : lines;
}

/** "12 of 180 baseline runs missing: a, b, c, d, e and 7 more", or undefined when none is. */
function missingLine(c: Comparison): string | undefined {
  const missing = c.missingFromCandidate;
  return missing.length === 0 ? undefined : `${missing.length} of ${plural(c.baselineRuns, 'baseline run')} missing: ${shortList(missing)}`;
}

/** "2 runs not in the baseline: a, b", or undefined when there are none. */
function addedLine(c: Comparison): string | undefined {
  return c.newInCandidate.length === 0 ? undefined : `${plural(c.newInCandidate.length, 'run')} not in the baseline: ${shortList(c.newInCandidate)}`;
}

/** The verdict of a check, and the command that makes the checked batch the baseline (when there is one to name). */
export interface GateOutcome {
  readonly verdict: GateVerdict;
  readonly update?: string | undefined;
}

const rewrite = (update: string | undefined, what: string): string => (update === undefined ? '' : `; ${what}: ${update}`);

/** Said once when the baseline keeps no configurations (format 1). */
const unknownConfigurationLine = (update: string | undefined): string =>
  `Configurations unknown: the baseline is format 1, which keeps none, so a changed setting cannot be named${rewrite(update, 'rewrite it')}`;

/** What was not compared and why, before any number: configurations unknown or changed, runs missing or not in the baseline. */
export function notComparedLines(c: Comparison, update: string | undefined): string[] {
  return [
    ...(c.configurationKnown ? [] : [unknownConfigurationLine(update)]),
    ...changeLines(c),
    ...[missingLine(c), addedLine(c)].filter((line) => line !== undefined),
  ];
}

/** The verdict as one line, with the fix for each failure: "FAIL: 3 of 10 baseline runs missing (...)"; undefined for a plain pass. */
export function verdictLine(c: Comparison, { verdict, update }: GateOutcome): string | undefined {
  const accepted = c.changed.length > 0 && !verdict.changesFail;
  // A batch that lacks baseline runs would drop them from a baseline made of it.
  const makeBaseline = c.missingFromCandidate.length === 0 ? 'make this batch the baseline' : 'run the whole matrix and make that batch the baseline';
  if (passed(verdict)) return accepted ? `Accepted: ${plural(c.changed.length, 'run')} with a changed configuration, not compared${rewrite(update, makeBaseline)}` : undefined;
  const nonePresent = c.missingFromCandidate.length === c.baselineRuns;
  const reasons = [
    ...(verdict.regressed ? [plural(c.regressions.length, 'regression')] : []),
    ...(verdict.missingFails
      ? [`${c.missingFromCandidate.length} of ${c.baselineRuns} baseline runs missing (${nonePresent ? 'nothing was compared' : 'pass --allow-missing to gate the runs present'})`]
      : []),
    ...(verdict.changesFail && c.compared === 0
      ? [`${plural(c.changed.length, 'run')} with a changed configuration and none compared (nothing was gated${rewrite(update, `if intended, ${makeBaseline}`)})`]
      : verdict.changesFail
        ? [`${plural(c.changed.length, 'run')} with a changed configuration (if intended: pass --accept-changes${rewrite(update, `then ${makeBaseline}`)})`]
        : []),
  ];
  return `FAIL: ${reasons.join('; ')}`;
}

/** The terminal report: a table of findings, changed configurations, the runs missing on either side, the counts, the verdict. */
export function formatText(c: Comparison, gate: GateOutcome): string {
  const lines: string[] = [];
  const rows = findingRows(c);
  if (rows.length > 0) {
    const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const right = new Set([3, 4, 5]);
    const line = (cells: readonly string[]): string =>
      cells.map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
    lines.push(line(HEADERS), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), '');
  }
  lines.push(...notComparedLines(c, gate.update), countsLine(c));
  const verdict = verdictLine(c, gate);
  if (verdict !== undefined) lines.push(verdict);
  return `${lines.join('\n')}\n`;
}

type RunsByKey = ReadonlyMap<string, RunMetrics> | Readonly<Record<string, RunMetrics>>;

/** Each strategy's aggregate over runs keyed `strategy|scenarioId`, sorted by strategy. */
export function aggregateByStrategy(runs: RunsByKey): { strategy: string; totals: MetricsAggregate }[] {
  const entries = runs instanceof Map ? [...runs.entries()] : Object.entries(runs);
  const groups = new Map<string, RunMetrics[]>();
  for (const [key, metrics] of entries) {
    const strategy = strategyOf(key);
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

/** Run keys, strategy labels and notes come from recordings and flags: written as text, never as markup. */
const cell = markdownText;

/** A markdown summary ctxbench wrote: this one (`## ctxbench check: ...`) or the report's (`## ctxbench report`). */
export const MARKDOWN_SUMMARY: FileKind = {
  name: 'a markdown summary',
  matches: (head) => head.toString('utf8').startsWith('## ctxbench '),
};

/** A markdown summary: verdict, what was not compared and why, findings, and per-strategy totals (baseline -> candidate). */
export function formatMarkdown(
  c: Comparison,
  baseline: Readonly<Record<string, RunMetrics>>,
  candidate: ReadonlyMap<string, RunMetrics>,
  gate: GateOutcome,
): string {
  const lines = [`## ctxbench check: ${passed(gate.verdict) ? 'pass' : 'FAIL'}`, ''];
  const verdict = verdictLine(c, gate);
  if (verdict !== undefined) lines.push(`**${cell(verdict)}**`, '');
  lines.push(countsLine(c), '');
  const notes = notComparedLines(c, gate.update);
  if (notes.length > 0) lines.push(...notes.map((note) => `- ${cell(note)}`), '');
  const rows = findingRows(c);
  if (rows.length > 0) {
    lines.push(`| ${HEADERS.slice(1).join(' | ')} | |`, '|---|---|--:|--:|--:|---|');
    for (const r of rows) lines.push(`| ${r.slice(1).map(cell).join(' | ')} | ${r[0] === 'REGRESSION' ? '❌ regression' : '✅ improvement'} |`);
    lines.push('');
  }
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
