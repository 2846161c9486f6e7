/**
 * Turns runs into what the report template and the page script need: preformatted tables (summary
 * per scenario group, Pareto table, matrix, baseline diff) and chart-ready data (token curves, Pareto
 * points, run timelines). Pure, so it is tested without a template or DOM.
 */
import { gzipSync } from 'node:zlib';
import { aggregateRuns } from '../metrics/aggregate.js';
import type { BatchInfo, CalibrationRecord, RunResult } from '../core/run-records.js';
import { baselineDiff, candidateRuns, type BaselineDiff, type BaselineSource } from './baseline-diff.js';
import { columnsOf, runsByColumn, scenarioGroupsOf, type Column } from './columns.js';
import { chartOf, type ChartData } from './curves.js';
import { distinct, fmtCount, fmtInt, fmtPct, statusText } from './format.js';
import { facts, reportNotes, utcMinute, type Fact } from './header.js';
import { paretoOf, SUCCESS_DEFINITION, type Pareto } from './pareto.js';
import { probeCell, recallCell, summaryTable, type SummaryTable } from './summary-table.js';
import { sweepPlotsOf, type SweepPlot } from './sweep-plot.js';
import { timelineOf } from './timeline.js';

export type { BaselineSource } from './baseline-diff.js';

export interface ReportMeta {
  readonly title?: string | undefined;
  readonly generatedAt: Date;
  /** The ctxbench that renders the report. */
  readonly version: string;
  readonly database?: string | undefined;
  /** The batches the runs came from (version, commit, date, command), when known. */
  readonly batches?: readonly BatchInfo[] | undefined;
  /** What to diff the runs against (`bench report --baseline`). */
  readonly baseline?: BaselineSource | undefined;
  /** The token calibration the batches counted with (their calibration records), when known. */
  readonly calibration?: readonly CalibrationRecord[] | undefined;
}

/** The JSON the page script reads (schema of <script id="ctxbench-data">). */
export interface ReportData {
  readonly charts: ChartData[];
  /** Every run, in report order: [its scenario's entry in `ReportView.timelines`, its place there]; matrix links and chart series point here by index. */
  readonly runs: [scenario: number, at: number][];
  readonly pareto: ParetoChart;
  /** Success against each swept parameter, when a strategy ran at several settings. */
  readonly sweeps: SweepPlot[];
}

export interface ParetoChart {
  readonly axis: Pareto['axis'];
  readonly points: { label: string; color: string; cost: number; costText: string; success: number; front: boolean; recommended: boolean }[];
}

export interface ReportView {
  readonly title: string;
  readonly generatedAt: string;
  readonly version: string;
  readonly database: string | null;
  readonly empty: boolean;
  readonly facts: Fact[];
  /** What the backends assumed: the mock's settings, a live server's mode and cache use. */
  readonly notes: string[];
  /** The summary over all scenarios, then one per scenario group when there are several. */
  readonly summaries: SummaryGroup[];
  /** Whether there are several scenario groups to switch between. */
  readonly groupTabs: boolean;
  readonly pareto: Pareto & { readonly definition: string };
  readonly sweeps: SweepPlot[];
  readonly matrix: { columns: Column[]; rows: MatrixRow[]; size: string };
  readonly charts: ChartView[];
  /** What the scenario filter offers: scenario groups and recorded outcomes, when there are several. */
  readonly filter: { groups: string[]; outcomes: string[] };
  /** Many scenarios: the matrix and the curves start closed, so the page opens short. */
  readonly collapsed: boolean;
  readonly baseline: BaselineDiff | null;
  /** The timeline's run picker: one group per scenario. */
  readonly timeline: { scenario: string; runs: { index: number; label: string }[] }[];
  readonly data: ReportData;
  /**
   * Per scenario, in chart order, the timelines of its runs (TimelineRun[]) as gzipped JSON in base64:
   * every request of every run would make the page grow with the runs' length, so the page inflates
   * one scenario's when a reader opens one of its runs or hovers its chart. Embedded after the page
   * script (<script id="ctxbench-timelines">), so the first screen does not wait for them.
   */
  readonly timelines: string[];
}

export interface SummaryGroup {
  readonly id: string;
  readonly label: string;
  readonly scenarios: number;
  readonly first: boolean;
  readonly table: SummaryTable;
}

/** What the page's scenario filter matches a matrix row or a chart on. */
interface ScenarioFacets {
  readonly group: string;
  readonly outcome: string;
  /** Whether some run of the scenario did not complete. */
  readonly failed: boolean;
}

interface MatrixRow extends ScenarioFacets {
  readonly scenarioId: string;
  readonly title: string;
  /** False when the title is the id, so it isn't printed twice. */
  readonly showId: boolean;
  readonly cells: { runs: CellRun[] }[];
}

interface CellRun {
  /** Index into ReportData.runs: the cell links to its timeline. */
  readonly index: number;
  readonly statusClass: string;
  readonly status: string;
  readonly failure: string;
  readonly steps: string;
  readonly inputTokens: string;
  readonly peakPct: string;
  readonly restarts: string;
  /** A reactive replay's re-reads ("3 re-reads, 12,345 tokens"); "" for a forced one. */
  readonly rereads: string;
  /** Probes passed and reference recall, or "" when the run has neither. */
  readonly success: string;
  readonly successTitle: string;
}

interface ChartView extends ScenarioFacets {
  readonly domId: string;
  readonly scenarioId: string;
  readonly title: string;
  readonly showId: boolean;
}

export function buildView(runs: readonly RunResult[], meta: ReportMeta): ReportView {
  const columns = columnsOf(runs);
  const { columns: distinctColumns, columnOf } = columns;
  const scenarios = [...new Map(runs.map((r) => [r.config.scenarioId, r.config.scenarioTitle])).entries()];
  const indexOf = new Map(runs.map((r, i) => [r, i]));
  const runIndex = (r: RunResult): number => indexOf.get(r)!;
  const groupOf = scenarioGroupsOf(runs);

  const facets = new Map(
    scenarios.map(([scenarioId]): [string, ScenarioFacets] => {
      const own = runs.filter((r) => r.config.scenarioId === scenarioId);
      return [scenarioId, { group: groupOf(own[0]!), outcome: own[0]!.config.outcome ?? 'unknown', failed: own.some((r) => r.summary.status !== 'completed') }];
    }),
  );
  const matrixRows = scenarios.map(([scenarioId, title]) => ({
    ...facets.get(scenarioId)!,
    scenarioId,
    title,
    showId: title !== scenarioId,
    cells: distinctColumns.map((col) => ({
      runs: runs.filter((r) => r.config.scenarioId === scenarioId && columnOf(r) === col).map((r) => cellRun(r, runIndex(r))),
    })),
  }));

  // Series follow the column order, so a strategy has the same place in every chart's legend.
  const rank = (r: RunResult): number => distinctColumns.indexOf(columnOf(r));
  const charts = scenarios.map(([scenarioId, title], i) => {
    const scenarioRuns = runs.filter((r) => r.config.scenarioId === scenarioId).sort((a, b) => rank(a) - rank(b));
    return chartOf(`chart-${i}`, scenarioId, title, scenarioRuns, columnOf, runIndex);
  });
  const byColumn = runsByColumn(columns, runs);
  const pareto = paretoOf(byColumn, (meta.batches ?? []).map((b) => b.command));
  const sweeps = sweepPlotsOf(byColumn, pareto);

  const summaries = summaryGroups(runs, columnOf, groupOf);
  const timelines = packedTimelines(runs, scenarios.map(([id]) => id), columnOf);
  return {
    title: meta.title ?? 'ctxbench report',
    generatedAt: utcMinute(meta.generatedAt),
    version: meta.version,
    database: meta.database ?? null,
    empty: runs.length === 0,
    facts: facts(runs, meta.batches ?? [], meta.version, meta.calibration),
    notes: reportNotes(runs, meta.calibration ?? []),
    summaries,
    groupTabs: summaries.length > 1,
    pareto: { ...pareto, definition: SUCCESS_DEFINITION },
    sweeps,
    matrix: { columns: distinctColumns, rows: matrixRows, size: `${fmtCount(matrixRows.length, 'scenario')} × ${fmtCount(distinctColumns.length, 'configuration')}` },
    charts: charts.map(({ domId, scenarioId, title }) => ({ ...facets.get(scenarioId)!, domId, scenarioId, title, showId: title !== scenarioId })),
    filter: { groups: several([...facets.values()].map((f) => f.group)), outcomes: several([...facets.values()].map((f) => f.outcome)) },
    collapsed: scenarios.length > COLLAPSE_OVER,
    baseline: meta.baseline && runs.length ? baselineDiff(meta.baseline, candidateRuns(runs, meta.database)) : null,
    timeline: scenarios.map(([scenarioId, title]) => ({
      scenario: title === scenarioId ? title : `${title} (${scenarioId})`,
      runs: runs.filter((r) => r.config.scenarioId === scenarioId).map((r) => ({ index: runIndex(r), label: `${columnOf(r).label}: ${statusText(r)}` })),
    })),
    timelines: timelines.blobs,
    data: {
      charts,
      runs: timelines.runs,
      pareto: {
        axis: pareto.axis,
        points: pareto.points.map(({ label, color, cost, costText, success, front, recommended }) => ({ label, color, cost, costText, success, front, recommended })),
      },
      sweeps,
    },
  };
}

function packedTimelines(runs: readonly RunResult[], scenarioIds: readonly string[], columnOf: (run: RunResult) => Column): { blobs: string[]; runs: ReportData['runs'] } {
  const place = new Map<RunResult, [number, number]>();
  const blobs = scenarioIds.map((scenarioId, s) => {
    const own = runs.filter((r) => r.config.scenarioId === scenarioId);
    own.forEach((r, at) => place.set(r, [s, at]));
    // Deflated for size only: the page reads it with the browser's DecompressionStream, no library.
    return gzipSync(JSON.stringify(own.map((r) => timelineOf(r, columnOf(r)))), { level: 9 }).toString('base64');
  });
  return { blobs, runs: runs.map((r) => place.get(r)!) };
}

/** Scenarios a page shows open: the bundled suite's, and a few more. */
const COLLAPSE_OVER = 20;

/** The distinct values, sorted, when there are at least two to choose from. */
function several(values: readonly string[]): string[] {
  const unique = distinct(values).sort();
  return unique.length > 1 ? unique : [];
}

/** All scenarios first, then each scenario group (scenarioGroupsOf) when there are several. */
function summaryGroups(runs: readonly RunResult[], columnOf: (run: RunResult) => Column, groupOf: (run: RunResult) => string): SummaryGroup[] {
  const table = (own: readonly RunResult[]): SummaryTable => {
    const columns = distinct(own.map(columnOf));
    return summaryTable(own, columns.map((col) => ({ col, runs: own.filter((r) => columnOf(r) === col) })));
  };
  const count = (own: readonly RunResult[]): number => distinct(own.map((r) => r.config.scenarioId)).length;
  const groups = distinct(runs.map(groupOf));
  const all: SummaryGroup = { id: 'summary-all', label: 'All scenarios', scenarios: count(runs), first: true, table: table(runs) };
  if (groups.length < 2) return [all];
  return [
    all,
    ...groups.map((group, i) => {
      const own = runs.filter((r) => groupOf(r) === group);
      return { id: `summary-group-${i}`, label: group, scenarios: count(own), first: false, table: table(own) };
    }),
  ];
}

/** Recall is measured over the steps a run reached: one that stopped early says how many those were. */
const coverage = ({ summary }: RunResult): string =>
  summary.status === 'completed' || summary.steps >= summary.totalSteps ? '' : ` over the ${fmtInt(summary.steps)} of ${fmtInt(summary.totalSteps)} steps reached`;

function cellRun(run: RunResult, index: number): CellRun {
  const { summary } = run;
  const aggregate = aggregateRuns([run]);
  const probes = probeCell(aggregate.probes);
  const recall = recallCell(aggregate.referenceRecall);
  return {
    index,
    statusClass: summary.status,
    status: statusText(run),
    failure: summary.failure ?? '',
    steps: `${fmtInt(summary.steps)} / ${fmtInt(summary.totalSteps)}`,
    inputTokens: fmtInt(summary.inputTokens),
    peakPct: fmtPct(summary.peakContextPct),
    restarts: fmtCount(summary.restarts, 'restart'),
    rereads: summary.recovery ? `${fmtInt(summary.recovery.rereads)} re-reads, ${fmtInt(summary.recovery.rereadInputTokens)} tokens` : '',
    success: [aggregate.probes.total ? `probes ${probes.text} (${probes.detail})` : '', recall.value === null ? '' : `ref recall ${recall.text}${coverage(run)}`]
      .filter((part) => part !== '')
      .join(' · '),
    successTitle: probes.title ?? '',
  };
}
