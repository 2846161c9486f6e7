/**
 * The report's other outputs, from the same numbers as the HTML page: JSON (for tools), CSV (one row
 * per run, for spreadsheets) and markdown (for a PR comment or a CI job summary).
 */
import { aggregateRuns } from '../metrics/aggregate.js';
import { runMetrics } from '../metrics/run-metrics.js';
import { formatMarkdown } from '../gate/output.js';
import type { FileKind } from '../core/output-file.js';
import type { CalibrationRecord, RunResult } from '../core/run-records.js';
import { columnsOf, runsByColumn, scenarioGroupOf } from './columns.js';
import { markdownCode, markdownText } from '../core/markdown.js';
import { plain } from './format.js';
import { paretoOf, runSuccess, SUCCESS_DEFINITION } from './pareto.js';
import { baselineDiff, candidateRuns } from './baseline-diff.js';
import { replayText } from '../gate/configuration.js';
import { facts, reportNotes } from './header.js';
import { buildView, type ReportMeta } from './view.js';

/**
 * Bumped when a field of the JSON output changes meaning or goes away (2: a partly priced costUsd is
 * the priced runs' sum, no longer null; 3: cachedInputTokens is null when unknown, a live provider
 * that reports no prompt-cache hits, and over the runs that know theirs otherwise).
 */
export const REPORT_JSON_FORMAT = 3;

/** A file reportJson wrote: a JSON object whose first fields are `format` (a number) and `generatedAt`. */
export const REPORT_JSON: FileKind = {
  name: 'a JSON report',
  matches: (head) => /^\{\s*"format"\s*:\s*\d+\s*,\s*"generatedAt"\s*:/.test(head.toString('utf8')),
};

/**
 * What a batch's runs add up to, as the JSON outputs give it (`bench report -o x.json`, `bench run
 * --json`): the notes (calibration warnings, the backends' assumptions), the recommendation, per
 * configuration its totals, success and place on the Pareto front, and per run its settings, metrics
 * and success.
 */
export function reportSummary(runs: readonly RunResult[], calibration: readonly CalibrationRecord[]) {
  const columns = columnsOf(runs);
  const groups = runsByColumn(columns, runs);
  const pareto = paretoOf(groups);
  const points = new Map(pareto.points.map((p) => [p.label, p]));
  const configurations = groups.map(({ col, runs: own }) => {
    const a = aggregateRuns(own);
    const point = points.get(col.label);
    return {
      configuration: col.label,
      strategy: own[0]!.config.strategy,
      baseStrategy: own[0]!.config.baseStrategy,
      runs: a.runs,
      completed: a.completed,
      overflowed: a.overflowed,
      truncated: a.truncated,
      steps: a.steps,
      totalSteps: a.totalSteps,
      sessions: a.sessions,
      restarts: a.restarts,
      probesPassed: a.probes.passed,
      probesTotal: a.probes.total,
      probesVerbatim: a.probes.verbatim,
      probesSummary: a.probes.summary,
      probesRecoverable: a.probes.recoverable,
      probesAnswered: a.probes.answered,
      referencePresent: a.referenceRecall.present,
      referenceTotal: a.referenceRecall.total,
      recallByOutcome: a.recallByOutcome,
      inputTokens: a.inputTokens,
      // Over the runs that know their cache hits; null when none does.
      cachedInputTokens: a.cachedInputTokens,
      outputTokens: a.outputTokens,
      overheadTokens: a.overheadTokens,
      llmCalls: a.llmCalls,
      // Over the priced runs: the whole cost when pricedRuns equals runs, a lower bound when fewer; null when none.
      costUsd: a.cost.usd,
      pricedRuns: a.cost.pricedRuns,
      peakContextPct: a.peakContext.max,
      meanPeakContextPct: a.peakContext.mean,
      meanContextPct: a.meanContextPct,
      success: point?.success ?? null,
      paretoFront: point?.front ?? false,
      recovery: a.recovery,
    };
  });
  return {
    notes: reportNotes(runs, calibration),
    recommended: { configuration: pareto.recommended, rule: pareto.rule, costAxis: pareto.axis, note: pareto.note },
    successDefinition: SUCCESS_DEFINITION,
    configurations,
    runs: runs.map((r) => ({
      runId: r.runId,
      batchId: r.batchId,
      scenarioId: r.config.scenarioId,
      scenarioGroup: scenarioGroupOf(r),
      outcome: r.config.outcome ?? null,
      configuration: columns.columnOf(r).label,
      strategy: r.config.strategy,
      strategySource: r.config.strategySource ?? null,
      backend: r.config.backend,
      model: r.config.model,
      window: r.config.window,
      params: r.config.params,
      ...runMetrics(r),
      replay: replayText(r.config.replay),
      recovery: r.summary.recovery ?? null,
      failedStep: r.summary.failedStep ?? null,
      failure: r.summary.failure ?? null,
      totalSteps: r.summary.totalSteps,
      sessions: r.summary.sessions,
      restarts: r.summary.restarts,
      llmCalls: r.summary.llmCalls,
      meanContextPct: r.summary.meanContextPct,
      success: runSuccess(r),
    })),
  };
}

export function reportJson(runs: readonly RunResult[], meta: ReportMeta): string {
  const { notes, ...summary } = reportSummary(runs, meta.calibration ?? []);
  const baseline = meta.baseline && runs.length ? baselineDiff(meta.baseline, candidateRuns(runs, meta.database)) : null;
  const out = {
    format: REPORT_JSON_FORMAT,
    generatedAt: meta.generatedAt.toISOString(),
    ctxbench: meta.version,
    batches: (meta.batches ?? []).map((b) => ({ ...b, createdAt: b.createdAt.toISOString(), gitSha: b.gitSha ?? null })),
    facts: Object.fromEntries(facts(runs, meta.batches ?? [], meta.version, meta.calibration).map((f) => [f.label, f.value])),
    notes,
    ...summary,
    baseline: baseline && {
      file: baseline.file,
      description: baseline.description,
      regressions: baseline.comparison.regressions,
      improvements: baseline.comparison.improvements,
      missingFromCandidate: baseline.comparison.missingFromCandidate,
      newInCandidate: baseline.comparison.newInCandidate,
      configurationChanged: baseline.comparison.changed,
    },
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

const CSV_COLUMNS = [
  'run_id', 'batch_id', 'scenario_id', 'scenario_group', 'configuration', 'strategy', 'base_strategy', 'strategy_file', 'strategy_digest', 'backend', 'model', 'window',
  'status', 'failed_step', 'steps', 'total_steps', 'sessions', 'restarts', 'input_tokens', 'cached_input_tokens', 'output_tokens',
  'overhead_tokens', 'llm_calls', 'cost_usd', 'peak_context_pct', 'mean_context_pct', 'probes_passed', 'probes_total',
  'ref_present', 'ref_total', 'success', 'replay', 'rereads', 'reread_input_tokens', 'ref_summary', 'ref_lost',
] as const;

/**
 * RFC 4180 quoting; text that a spreadsheet would run as a formula (=, +, -, @ first) gets a leading
 * apostrophe, since scenario ids come from recordings anyone can write.
 */
function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A file reportCsv wrote: its header row starts with the first columns. */
export const REPORT_CSV: FileKind = {
  name: 'a CSV report',
  matches: (head) => head.toString('utf8').startsWith(`${CSV_COLUMNS.slice(0, 3).join(',')},`),
};

export function reportCsv(runs: readonly RunResult[]): string {
  const { columnOf } = columnsOf(runs);
  const rows = runs.map((r) => {
    const { config: c, summary: s } = r;
    // The values derived from the summary (probes passed, peak, nulls) as the baseline and the JSON's runs have them.
    const m = runMetrics(r);
    const row: Record<(typeof CSV_COLUMNS)[number], string | number | null | undefined> = {
      run_id: r.runId,
      batch_id: r.batchId,
      scenario_id: c.scenarioId,
      scenario_group: scenarioGroupOf(r),
      configuration: columnOf(r).label,
      strategy: c.strategy,
      base_strategy: c.baseStrategy,
      strategy_file: c.strategySource?.file,
      strategy_digest: c.strategySource?.digest,
      backend: c.backend,
      model: c.model,
      window: c.window,
      status: s.status,
      failed_step: s.failedStep,
      steps: s.steps,
      total_steps: s.totalSteps,
      sessions: s.sessions,
      restarts: s.restarts,
      input_tokens: s.inputTokens,
      cached_input_tokens: s.cachedInputTokens,
      output_tokens: s.outputTokens,
      overhead_tokens: s.overheadTokens,
      llm_calls: s.llmCalls,
      cost_usd: m.costUsd,
      peak_context_pct: m.peakContextPct,
      mean_context_pct: s.meanContextPct,
      probes_passed: m.probesPassed,
      probes_total: s.probes.total,
      ref_present: m.referencePresent,
      ref_total: m.referenceTotal,
      success: runSuccess(r),
      replay: r.config.replay?.mode ?? 'forced',
      rereads: s.recovery?.rereads,
      reread_input_tokens: s.recovery?.rereadInputTokens,
      ref_summary: s.recovery?.summaryReferences,
      ref_lost: s.recovery?.lostReferences,
    };
    return CSV_COLUMNS.map((name) => csvCell(row[name])).join(',');
  });
  return `${[CSV_COLUMNS.join(','), ...rows].join('\r\n')}\r\n`;
}

const mdCell = (text: string): string => markdownText(plain(text));

/** What the page says first, in markdown: what ran, the recommendation, the summary table, the baseline verdict. */
export function reportMarkdown(runs: readonly RunResult[], meta: ReportMeta): string {
  const view = buildView(runs, meta);
  const lines = [`## ${mdCell(view.title)}`, ''];
  lines.push(view.facts.map((f) => `**${mdCell(f.label)}**: ${mdCell(f.value)}`).join(' · '), '');
  for (const note of view.notes) lines.push(`> ${mdCell(note)}`, '');
  if (view.pareto.recommended) lines.push(`**Recommended default: ${mdCell(view.pareto.recommended)}.** ${mdCell(view.pareto.rule)}${view.pareto.note ? ` ${mdCell(view.pareto.note)}` : ''}`, '');
  // Nothing recommended: the rule says why, as the page and the JSON do.
  else if (view.pareto.rule) lines.push(`**${mdCell(view.pareto.rule)}**`, '');
  const table = view.summaries[0]?.table;
  if (table) {
    const headers = ['strategy', ...table.columns.map((c) => c.label)];
    lines.push(`| ${headers.map(mdCell).join(' | ')} |`, `|---|${table.columns.map(() => '--:').join('|')}|`);
    for (const row of table.rows) {
      const cells = row.cells.map((c) => {
        const text = mdCell(c.detail ? `${c.text} (${c.detail})` : c.text);
        return c.best ? `**${text}**` : text;
      });
      lines.push(`| ${[mdCell(row.label), ...cells].join(' | ')} |`);
    }
    const bold = table.rows.some((row) => row.cells.some((c) => c.best));
    lines.push('', ...(bold ? [`Bold: ${mdCell(table.bestNote.replace(/^Green: /, ''))}`, ''] : []));
  }
  if (view.baseline && meta.baseline) {
    lines.push(`Baseline: ${markdownCode(view.baseline.file)}, ${mdCell(view.baseline.description)}`, '');
    lines.push(formatMarkdown(view.baseline.comparison, meta.baseline.runs, candidateRuns(runs, meta.database).metrics, view.baseline.gate));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
