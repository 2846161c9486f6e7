/**
 * Turns runs into what the report template and the page script need: preformatted table rows and
 * chart-ready data (aligned series, lines, markers). Pure, so it is tested without a template or DOM.
 */
import { describeMock } from '../llm/mock.js';
import { priceFor } from '../metrics/cost.js';
import { probesPassed } from '../metrics/probes.js';
import type { EventRecord, ParamValue, Params, RunResult, RunStatus } from '../runner/types.js';

export interface ReportMeta {
  readonly title?: string | undefined;
  readonly generatedAt: Date;
  readonly version: string;
  readonly database?: string | undefined;
}

/** The JSON the page script reads (schema of <script id="ctxbench-data">). */
export interface ReportData {
  readonly charts: ChartData[];
}

export interface ChartData {
  readonly domId: string;
  readonly scenarioId: string;
  readonly title: string;
  /** Step numbers, shared by every series. */
  readonly x: number[];
  readonly series: SeriesData[];
  readonly lines: LineData[];
  readonly markers: MarkerData[];
}

export type SeriesData = StrategySeries | RecordedSeries;

export interface StrategySeries {
  readonly kind: 'strategy';
  readonly label: string;
  readonly color: string;
  /** Prompt tokens per x; null where the run sent no agent request at that step. */
  readonly y: (number | null)[];
  readonly session: (number | null)[];
  /**
   * What the strategy did and what happened, by step (what a step did is its events: no separate
   * field); identical events of a step are one entry with a count. Masking is counted, in `masked`.
   */
  readonly events: { step: number; kind: string; detail: string; count?: number }[];
  /** [step, tool outputs masked at it]: masking happens at most steps and its details would fill the page. */
  readonly masked: [number, number][];
}

export interface RecordedSeries {
  readonly kind: 'recorded';
  readonly label: string;
  readonly color: string;
  readonly y: (number | null)[];
}

export interface LineData {
  readonly kind: 'window' | 'threshold';
  readonly label: string;
  readonly value: number;
  readonly color: string;
}

export interface MarkerData {
  readonly kind: 'overflow' | 'restart' | 'failure';
  /** Index into ChartData.series. */
  readonly series: number;
  readonly x: number;
  readonly y: number;
}

export interface ReportView {
  readonly title: string;
  readonly generatedAt: string;
  readonly version: string;
  readonly database: string | null;
  readonly empty: boolean;
  readonly facts: { label: string; value: string }[];
  /** What the backends assumed: the mock's settings, a live server's mode and cache use. */
  readonly notes: string[];
  readonly summary: SummaryTable;
  readonly matrix: { columns: Column[]; rows: MatrixRow[] };
  readonly charts: ChartView[];
  readonly data: ReportData;
}

/**
 * One matrix column / chart series: a strategy, told apart by whatever else varies between its runs.
 * `label` is the whole name ("codex (summarization)"); tables print `name` and `sub` apart.
 */
interface Column {
  readonly label: string;
  readonly name: string;
  /** The strategy a preset runs and what else sets this column apart, or "". */
  readonly sub: string;
  readonly color: string;
}

/** Which end of a summary column is best. */
type Better = 'max' | 'min';

interface SummaryTable {
  readonly groups: { label: string; span: number }[];
  readonly columns: SummaryHeader[];
  readonly rows: SummaryRow[];
  /** How the best values were picked, printed under the table. */
  readonly bestNote: string;
}

interface SummaryHeader {
  /** Index of the column's cells in a body row (0 is the strategy). */
  readonly index: number;
  readonly label: string;
  readonly title: string;
  /** The first click sorts best first. */
  readonly first: 'asc' | 'desc';
}

interface SummaryRow extends Column {
  readonly cells: SummaryCell[];
}

interface SummaryCell {
  readonly text: string;
  /** Secondary detail printed small after the value (probes: v/s/r), or "". */
  readonly detail: string;
  readonly title: string;
  /** The number the column sorts by ("" when there is none: such rows sort last). */
  readonly sort: string;
  readonly best: boolean;
  readonly bad: boolean;
}

interface MatrixRow {
  readonly scenarioId: string;
  readonly title: string;
  /** False when the title is the id, so it isn't printed twice. */
  readonly showId: boolean;
  readonly cells: { runs: CellRun[] }[];
}

interface CellRun {
  readonly statusClass: string;
  readonly status: string;
  readonly failure: string;
  readonly steps: string;
  readonly inputTokens: string;
  readonly peakPct: string;
  readonly restarts: string;
  /** Probes passed and reference recall, or "" when the run has neither. */
  readonly success: string;
  readonly successTitle: string;
}

interface ChartView {
  readonly domId: string;
  readonly scenarioId: string;
  readonly title: string;
  readonly showId: boolean;
  readonly eventRows: { label: string; color: string; step: string; session: string; kind: string; detail: string }[];
}

/** Distinct per column and stable across charts; red is left out because it means overflow. */
const PALETTE = ['#2f6db5', '#e07b19', '#3a9a4a', '#8e5bb0', '#14999b', '#b5912d', '#d1589c', '#7a5a45'];
const WINDOW_COLOR = '#c62828';
const RECORDED_COLOR = '#6b7280';
const DETAIL_MAX = 200;
const STATUS_TEXT: Record<RunStatus, string> = {
  completed: 'completed',
  overflow: 'overflow',
  invalid_context: 'invalid context',
  stopped: 'stopped',
  error: 'error',
};

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const fmtInt = (n: number): string => int.format(n);
const fmtPct = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;

export function buildView(runs: readonly RunResult[], meta: ReportMeta): ReportView {
  const { columns: distinctColumns, columnOf } = columnsOf(runs);
  const scenarios = [...new Map(runs.map((r) => [r.config.scenarioId, r.config.scenarioTitle])).entries()];

  const matrixRows = scenarios.map(([scenarioId, title]) => ({
    scenarioId,
    title,
    showId: title !== scenarioId,
    cells: distinctColumns.map((col) => ({
      runs: runs.filter((r) => r.config.scenarioId === scenarioId && columnOf(r) === col).map(cellRun),
    })),
  }));

  // Series follow the column order, so a strategy has the same place in every chart's legend.
  const rank = (r: RunResult): number => distinctColumns.indexOf(columnOf(r));
  const charts = scenarios.map(([scenarioId, title], i) => {
    const scenarioRuns = runs.filter((r) => r.config.scenarioId === scenarioId).sort((a, b) => rank(a) - rank(b));
    return chartOf(`chart-${i}`, scenarioId, title, scenarioRuns, columnOf);
  });

  return {
    title: meta.title ?? 'ctxbench report',
    generatedAt: `${meta.generatedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    version: meta.version,
    database: meta.database ?? null,
    empty: runs.length === 0,
    facts: facts(runs, scenarios.length),
    notes: backendNotes(runs),
    summary: summaryTable(runs, distinctColumns.map((col) => ({ col, runs: runs.filter((r) => columnOf(r) === col) }))),
    matrix: { columns: distinctColumns, rows: matrixRows },
    charts: charts.map(({ view }) => view),
    data: { charts: charts.map(({ data }) => data) },
  };
}

const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** A preset is named with the strategy it runs: "codex (summarization)". */
const baseOf = (r: RunResult): string =>
  r.config.baseStrategy && r.config.baseStrategy !== r.config.strategy ? r.config.baseStrategy : '';
const strategyName = (r: RunResult): string => (baseOf(r) ? `${r.config.strategy} (${baseOf(r)})` : r.config.strategy);

function facts(runs: readonly RunResult[], scenarioCount: number): { label: string; value: string }[] {
  const list = (pick: (r: RunResult) => string): string => distinct(runs.map(pick)).join(', ') || '—';
  return [
    { label: 'Runs', value: fmtInt(runs.length) },
    { label: 'Scenarios', value: fmtInt(scenarioCount) },
    { label: 'Strategies', value: list(strategyName) },
    { label: 'Backends', value: list((r) => r.config.backend) },
    { label: 'Models', value: list((r) => r.config.model) },
    { label: 'Windows', value: list((r) => fmtInt(r.config.window)) },
    { label: 'Encodings', value: list((r) => r.config.encoding) },
    { label: 'Token calibration', value: calibrationFact(runs) },
    { label: 'Prices', value: priceFact(runs) },
    ...usageFact(runs),
  ];
}

/** The factor each model's local counts were scaled by, or "uncalibrated"; "none" when no run was. */
function calibrationFact(runs: readonly RunResult[]): string {
  if (runs.length === 0) return '—';
  if (runs.every((r) => r.config.calibrationFactor === undefined)) return 'none (local tokenizer counts as they are)';
  return distinct(runs.map((r) => r.config.model))
    .map((model) => {
      const factors = distinct(runs.filter((r) => r.config.model === model).map((r) => r.config.calibrationFactor));
      return `${model} ${factors.map((f) => (f === undefined ? 'uncalibrated' : `×${f.toFixed(3)}`)).join(' / ')}`;
    })
    .join(', ');
}

const usd = (n: number): string => `$${n.toFixed(2)}`;

/** Whose list prices the costs use, with the rates, or that a cost is unknown. */
function priceFact(runs: readonly RunResult[]): string {
  const models = distinct(runs.map((r) => r.config.priceModel));
  const priced = models.filter((model) => runs.some((r) => r.config.priceModel === model && r.summary.costUsd !== undefined));
  const rates = priced.map((model) => {
    const price = priceFor(model);
    return price ? `${model} ${usd(price.input)} / ${usd(price.cachedInput)} / ${usd(price.output)}` : model;
  });
  const parts = [
    ...(rates.length ? [`${rates.join(', ')} per 1M tokens of input / cached input / output`] : []),
    ...models.filter((model) => !priced.includes(model)).map((model) => `${model} unknown (no cost)`),
  ];
  return parts.join('; ') || '—';
}

/**
 * How far local token counts are from the provider usage the scenarios recorded, as the terminal
 * summary states it: over the raw replays' steps (the recorded history sent unchanged), weighted by
 * compared steps; other strategies' runs when no raw run compared any.
 */
function usageFact(runs: readonly RunResult[]): { label: string; value: string }[] {
  const compared = runs.filter((r) => r.summary.usageComparison);
  const raw = compared.filter((r) => r.config.strategy === 'raw');
  const used = raw.length ? raw : compared;
  const steps = sum(used, (r) => r.summary.usageComparison!.comparedSteps);
  if (steps === 0) return [];
  // Already in percent (compareUsage multiplies by 100), unlike the context fractions.
  const error = sum(used, (r) => r.summary.usageComparison!.meanAbsPctError * r.summary.usageComparison!.comparedSteps) / steps;
  const calibrated = used.some((r) => r.config.calibrationFactor !== undefined) ? 'calibrated ' : '';
  return [
    {
      label: 'Token count error',
      value: `${error.toFixed(1)}% mean absolute vs recorded provider usage (${calibrated}${raw.length ? 'raw replay, ' : ''}${fmtInt(steps)} steps)`,
    },
  ];
}

const share = (part: number, whole: number): string => (part === whole ? '' : ` (${fmtInt(part)} of ${fmtInt(whole)} runs)`);

/** One note per backend setting: the mock's assumptions with its recall, summary length and seed; a live server's mode. */
function backendNotes(runs: readonly RunResult[]): string[] {
  const groups = new Map<string, RunResult[]>();
  for (const run of runs) {
    const key = JSON.stringify([run.config.backend, run.config.backendOptions]);
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups.values()].map((own) => {
    const { backend, backendOptions } = own[0]!.config;
    const of = share(own.length, runs.length);
    if (backend === 'mock') {
      // Runs stored without the mock's settings say so rather than print "undefined".
      const settings: Record<string, ParamValue> = {};
      for (const key of ['recall', 'summaryTokens', 'seed']) settings[key] = backendOptions[key] ?? 'unrecorded';
      return describeMock(settings).replace(/^Mock LLM:/, `Mock LLM${of}:`);
    }
    return liveNote(backend, backendOptions, own, of);
  });
}

function liveNote(backend: string, options: Params, runs: readonly RunResult[], of: string): string {
  const parts: string[] = [];
  // The page names no URL (it is self-contained, and a reader shouldn't take one for a link): host and path only.
  if (typeof options['url'] === 'string') parts.push(`server ${options['url'].replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/$/, '')}`);
  if (options['live'] !== undefined) {
    parts.push(`live mode ${String(options['live'])}${options['live'] === 'measure' ? ' (one output token per agent step)' : ''}`);
  }
  const rest = Object.entries(options).filter(([k]) => !['url', 'live', 'model'].includes(k));
  if (rest.length) parts.push(rest.map(([k, v]) => `${k}=${String(v)}`).join(', '));
  const requests = runs.reduce((n, r) => n + r.steps.length, 0);
  const cached = runs.reduce((n, r) => n + r.steps.filter((s) => s.cached === true).length, 0);
  parts.push(`${fmtInt(cached)} of ${fmtInt(requests)} requests answered from the record/replay cache`);
  return `${backend}${of}: ${parts.join('; ')}.`;
}

function formatParams(params: Params): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
}

/**
 * Columns are strategies; when runs of one strategy on one scenario differ in params, backend, model,
 * window or encoding, the differing parts join the label so two configurations never share a cell.
 */
function columnsOf(runs: readonly RunResult[]): { columns: Column[]; columnOf: (run: RunResult) => Column } {
  const parts = (r: RunResult) => ({
    params: formatParams(r.config.params),
    backend: r.config.backend,
    model: r.config.model,
    window: `${fmtInt(r.config.window)} window`,
    encoding: r.config.encoding,
  });
  // Only what differs within one scenario and strategy: strategies differ in params by nature, and
  // scenarios recorded with different models differ in model and window, neither a reason to split.
  const varying = (strategy: string, name: keyof ReturnType<typeof parts>): boolean =>
    distinct(runs.map((r) => r.config.scenarioId)).some(
      (scenarioId) =>
        distinct(
          runs
            .filter((r) => r.config.strategy === strategy && r.config.scenarioId === scenarioId)
            .map((r) => parts(r)[name]),
        ).length > 1,
    );
  // The baseline goes first so every other column reads as a comparison against it.
  const ordered = [...runs].sort((a, b) => Number(b.config.strategy === 'raw') - Number(a.config.strategy === 'raw'));
  const columns = new Map<string, Column>();
  const byRun = new Map<RunResult, Column>();
  for (const run of ordered) {
    const extra = Object.entries(parts(run))
      .filter(([name, value]) => varying(run.config.strategy, name as keyof ReturnType<typeof parts>) && value !== '')
      .map(([, value]) => value);
    const name = run.config.strategy;
    const sub = [baseOf(run), ...extra].filter((part) => part !== '').join(' · ');
    const label = sub ? `${name} (${sub})` : name;
    if (!columns.has(label)) columns.set(label, { label, name, sub: sub ? `(${sub})` : '', color: PALETTE[columns.size % PALETTE.length]! });
    byRun.set(run, columns.get(label)!);
  }
  return { columns: [...columns.values()], columnOf: (run) => byRun.get(run)! };
}

interface CellValue {
  readonly text: string;
  /** What the column sorts and compares by, at the precision shown; null for none. */
  readonly value: number | null;
  readonly detail?: string;
  readonly title?: string;
  readonly bad?: boolean;
  /** False when the value is a lower bound (a cost with unknown parts): sorted, never best. */
  readonly comparable?: boolean;
}

interface SummaryColumn {
  readonly group: string;
  readonly label: string;
  readonly title: string;
  readonly better?: Better;
  /** Best among every row, not only the strategies that completed every run (the completion column). */
  readonly allRows?: boolean;
  readonly show?: boolean;
  cell(runs: readonly RunResult[]): CellValue;
}

const sum = (runs: readonly RunResult[], pick: (r: RunResult) => number): number => runs.reduce((acc, r) => acc + pick(r), 0);
/** A fraction at the 0.1% the page prints, so two values that read alike compare alike. */
const roundPct = (fraction: number): number => Math.round(fraction * 1000) / 1000;
const pctCell = (part: number, whole: number, title = ''): CellValue =>
  whole === 0 ? { text: '—', value: null, title } : { text: fmtPct(part / whole), value: roundPct(part / whole), title };
const intCell = (n: number): CellValue => ({ text: fmtInt(n), value: n });

/** Probes still answerable at their step / probes asked (unreached ones count as lost). */
function probeCell(runs: readonly RunResult[]): CellValue & { passed: number; total: number } {
  const total = sum(runs, (r) => r.summary.probes.total);
  const [v, s, r] = (['verbatim', 'summary', 'recoverable'] as const).map((k) => sum(runs, (run) => run.summary.probes[k])) as [number, number, number];
  const passed = sum(runs, (run) => probesPassed(run.summary.probes));
  if (total === 0) return { text: '—', value: null, passed, total };
  const asked = runs.some((run) => run.summary.probes.answered !== undefined);
  const where = `${v} verbatim in the context, ${s} kept by a summary, ${r} recoverable from the offload store`;
  return {
    text: `${fmtInt(passed)}/${fmtInt(total)}`,
    value: passed / total,
    detail: `${asked ? 'answered; ' : ''}v${v} s${s} r${r}`,
    title: asked ? `${passed} answered correctly by the model; in the context: ${where}` : `${where}, ${total - passed} lost`,
    passed,
    total,
  };
}

const recallCell = (runs: readonly RunResult[]): CellValue =>
  pctCell(
    sum(runs, (r) => r.summary.referenceRecall?.present ?? 0),
    sum(runs, (r) => r.summary.referenceRecall?.total ?? 0),
  );

function costCell(runs: readonly RunResult[]): CellValue {
  const known = runs.filter((r) => r.summary.costUsd !== undefined);
  if (known.length === 0) return { text: '-', value: null, title: 'no price known for the price model' };
  const total = sum(known, (r) => r.summary.costUsd!);
  const text = total > 0 && total < 0.01 ? `$${total.toPrecision(2)}` : usd(total);
  if (known.length === runs.length) return { text, value: Number(text.slice(1)) };
  return { text: `${text}+`, value: Number(text.slice(1)), comparable: false, title: `${known.length} of ${runs.length} runs priced` };
}

/** Soft hyphens where a "-" is written: a long header may break there when the table needs the room. */
const shy = (label: string): string => label.replace(/-/g, '\u00AD');

function summaryColumns(runs: readonly RunResult[]): SummaryColumn[] {
  const withOutcome = (outcome: string): boolean => runs.some((r) => r.config.outcome === outcome && r.summary.referenceRecall);
  const count = (own: readonly RunResult[], status: RunStatus): number => own.filter((r) => r.summary.status === status).length;
  const all: SummaryColumn[] = [
    {
      group: 'Runs',
      label: shy('Com-pleted'),
      title: 'runs that replayed every recorded step',
      better: 'max',
      allRows: true,
      cell: (own) => ({ text: `${fmtInt(count(own, 'completed'))}/${fmtInt(own.length)}`, value: count(own, 'completed') / own.length }),
    },
    {
      group: 'Runs',
      label: shy('Over-flow'),
      title: 'runs whose context exceeded the window',
      cell: (own) => ({ ...intCell(count(own, 'overflow')), bad: count(own, 'overflow') > 0 }),
    },
    {
      group: 'Runs',
      label: 'Other',
      title: 'runs that ended with invalid context, stopped or error',
      show: runs.some((r) => r.summary.status !== 'completed' && r.summary.status !== 'overflow'),
      cell: (own) => {
        const other = own.filter((r) => r.summary.status !== 'completed' && r.summary.status !== 'overflow');
        return { ...intCell(other.length), title: distinct(other.map((r) => STATUS_TEXT[r.summary.status])).join(', ') };
      },
    },
    {
      group: 'What the task kept',
      label: 'Probes passed',
      title: 'planted facts still answerable at the step that needs them: v verbatim in the context, s kept by a summary, r recoverable from the offload store',
      better: 'max',
      cell: probeCell,
    },
    {
      group: 'What the task kept',
      label: 'Ref recall',
      title: 'references the recorded agent used that were still in the context when it used them',
      better: 'max',
      cell: recallCell,
    },
    {
      group: 'What the task kept',
      label: shy('re-solved'),
      title: 'reference recall on scenarios whose recorded task was resolved',
      better: 'max',
      show: withOutcome('resolved'),
      cell: (own) => recallCell(own.filter((r) => r.config.outcome === 'resolved')),
    },
    {
      group: 'What the task kept',
      label: shy('unre-solved'),
      title: 'reference recall on scenarios whose recorded task was not resolved',
      better: 'max',
      show: withOutcome('unresolved'),
      cell: (own) => recallCell(own.filter((r) => r.config.outcome === 'unresolved')),
    },
    {
      group: 'Cost',
      label: 'Input tokens',
      title: 'prompt tokens of every request, auxiliary ones included',
      better: 'min',
      cell: (own) => intCell(sum(own, (r) => r.summary.inputTokens)),
    },
    {
      group: 'Cost',
      label: 'Cached',
      title: 'share of input tokens that repeat the previous request’s prefix in the same session (prompt-cache hits, billed at the cached price)',
      better: 'max',
      cell: (own) => pctCell(sum(own, (r) => r.summary.cachedInputTokens), sum(own, (r) => r.summary.inputTokens)),
    },
    {
      group: 'Cost',
      label: shy('Over-head'),
      title: 'prompt and completion tokens of auxiliary calls (summaries, checkpoints): the strategy’s own cost',
      better: 'min',
      cell: (own) => intCell(sum(own, (r) => r.summary.overheadTokens)),
    },
    {
      group: 'Cost',
      label: 'LLM calls',
      title: 'requests sent: agent steps plus auxiliary calls',
      better: 'min',
      cell: (own) => intCell(sum(own, (r) => r.summary.llmCalls)),
    },
    {
      group: 'Cost',
      label: 'Cost',
      title: 'dollars at the price model’s list prices; - when its price is unknown, + when only some runs are priced',
      better: 'min',
      cell: costCell,
    },
    {
      group: 'Context',
      label: 'Mean',
      title: 'mean over runs of the mean prompt tokens per agent request, as a share of the window',
      better: 'min',
      cell: (own) => {
        const mean = sum(own, (r) => r.summary.meanContextPct) / own.length;
        return { text: fmtPct(mean), value: roundPct(mean) };
      },
    },
    {
      group: 'Context',
      label: 'Mean peak',
      title: 'mean over runs of the largest prompt, as a share of the window',
      better: 'min',
      cell: (own) => {
        const mean = sum(own, peakFraction) / own.length;
        return { text: fmtPct(mean), value: roundPct(mean) };
      },
    },
    { group: 'Context', label: shy('Re-starts'), title: 'new sessions started by the strategy', cell: (own) => intCell(sum(own, (r) => r.summary.restarts)) },
    { group: 'Context', label: shy('Ses-sions'), title: 'sessions over all runs', cell: (own) => intCell(sum(own, (r) => r.summary.sessions)) },
  ];
  return all.filter((c) => c.show !== false);
}

/**
 * The summary, one row per column of the matrix. The best value of a column is marked among the
 * strategies that completed every run on the same scenarios: a run that stops early spends fewer
 * tokens and has fewer chances to lose a fact, so it would win the cost and success columns by failing.
 */
function summaryTable(runs: readonly RunResult[], groups: readonly { col: Column; runs: RunResult[] }[]): SummaryTable {
  const columns = summaryColumns(runs);
  const values = groups.map((g) => columns.map((c) => c.cell(g.runs)));
  const signature = (own: readonly RunResult[]): string => own.map((r) => r.config.scenarioId).sort().join('\n');
  const complete = groups.filter((g) => g.runs.every((r) => r.summary.status === 'completed')).map((g) => signature(g.runs));
  // The scenario set most fully completed strategies share.
  const common = complete.sort((a, b) => complete.filter((s) => s === b).length - complete.filter((s) => s === a).length)[0];
  const comparable = groups.map((g) => g.runs.every((r) => r.summary.status === 'completed') && signature(g.runs) === common);
  const comparableCount = comparable.filter(Boolean).length;

  const best = columns.map((column, c) => {
    if (!column.better) return new Set<number>();
    const candidates = groups
      .map((_, row) => row)
      .filter((row) => (column.allRows || comparable[row]) && values[row]![c]!.value !== null && values[row]![c]!.comparable !== false);
    const numbers = candidates.map((row) => values[row]![c]!.value!);
    const top = column.better === 'max' ? Math.max(...numbers) : Math.min(...numbers);
    // Nothing to pick between: fewer than two candidates, or all of them alike.
    if (candidates.length < 2 || numbers.every((n) => n === top)) return new Set<number>();
    return new Set(candidates.filter((row) => values[row]![c]!.value === top));
  });

  const groupRow: { label: string; span: number }[] = [];
  for (const column of columns) {
    const last = groupRow.at(-1);
    if (last?.label === column.group) last.span += 1;
    else groupRow.push({ label: column.group, span: 1 });
  }
  const bestNote =
    comparableCount >= 2
      ? `Green: the best of a column (most completed, kept or cached; fewest tokens, calls, dollars, context), among the ${fmtInt(comparableCount)} strategies that completed every run on the same scenarios; one that stops early spends less and loses less.`
      : 'Green: the most completed. No two strategies completed every run on the same scenarios, so nothing else is compared: one that stops early spends less and loses less.';

  return {
    groups: groupRow,
    columns: columns.map((column, c) => ({
      index: c + 1,
      label: column.label,
      title: column.title,
      first: column.better === 'min' ? 'asc' : 'desc',
    })),
    rows: groups.map(({ col }, row) => ({
      ...col,
      cells: values[row]!.map((v, c) => ({
        text: v.text,
        detail: v.detail ?? '',
        title: v.title ?? '',
        sort: v.value === null ? '' : String(v.value),
        best: best[c]!.has(row),
        bad: v.bad ?? false,
      })),
    })),
    bestNote,
  };
}

/** From tokens and window rather than summary.peakContextPct, so the unit can't be misread. */
const peakFraction = (r: RunResult): number => r.summary.peakContextTokens / r.config.window;

function cellRun(run: RunResult): CellRun {
  const { summary } = run;
  const failedAt = summary.failedStep === undefined ? '' : ` at step ${summary.failedStep}`;
  const probes = probeCell([run]);
  const recall = recallCell([run]);
  return {
    statusClass: summary.status,
    status: summary.status === 'completed' ? 'completed' : `${STATUS_TEXT[summary.status]}${failedAt}`,
    failure: summary.failure ?? '',
    steps: `${fmtInt(summary.steps)} / ${fmtInt(summary.totalSteps)}`,
    inputTokens: fmtInt(summary.inputTokens),
    peakPct: fmtPct(peakFraction(run)),
    restarts: fmtInt(summary.restarts),
    success: [probes.total ? `probes ${probes.text} (${probes.detail})` : '', recall.value === null ? '' : `ref recall ${recall.text}`]
      .filter((part) => part !== '')
      .join(' · '),
    successTitle: probes.title ?? '',
  };
}

const truncate = (text: string): string => (text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX - 1)}…` : text);

function maskedCounts(events: readonly EventRecord[]): [number, number][] {
  const counts = new Map<number, number>();
  for (const e of events) if (e.kind === 'masked') counts.set(e.step, (counts.get(e.step) ?? 0) + 1);
  return [...counts.entries()];
}

/** Identical events of a step (same kind and detail) as one entry with a count, in order: the page's JSON stays small. */
function groupEvents(events: readonly EventRecord[]): StrategySeries['events'] {
  const grouped = new Map<string, { step: number; kind: string; detail: string; count?: number }>();
  for (const e of events) {
    const detail = truncate(e.detail);
    const key = JSON.stringify([e.step, e.kind, detail]);
    const seen = grouped.get(key);
    if (seen) seen.count = (seen.count ?? 1) + 1;
    else grouped.set(key, { step: e.step, kind: e.kind, detail });
  }
  return [...grouped.values()];
}

function chartOf(
  domId: string,
  scenarioId: string,
  title: string,
  runs: readonly RunResult[],
  columnOf: (run: RunResult) => Column,
): { data: ChartData; view: ChartView } {
  // Auxiliary requests (summaries, ...) are not the agent's context: the curve follows agent turns only.
  const agentSteps = runs.map((r) => r.steps.filter((s) => s.purpose === 'agent'));
  const failurePoints = runs.map((r, i) => failurePoint(r, agentSteps[i]!));
  const x = distinct([
    ...agentSteps.flatMap((steps) => steps.map((s) => s.step)),
    ...failurePoints.flatMap((p) => (p ? [p.x] : [])),
  ]).sort((a, b) => a - b);
  const at = new Map(x.map((step, i) => [step, i]));

  const labels = runs.map((r) => columnOf(r).label);
  const series: SeriesData[] = runs.map((run, i) => {
    const y: (number | null)[] = x.map(() => null);
    const session: (number | null)[] = x.map(() => null);
    // A step sent twice (e.g. retried in a new session) shows its last request: the one that was answered.
    for (const s of agentSteps[i]!) {
      const idx = at.get(s.step)!;
      y[idx] = s.promptTokens;
      session[idx] = s.session;
    }
    const repeats = labels.slice(0, i).filter((l) => l === labels[i]).length;
    return {
      kind: 'strategy',
      label: repeats ? `${labels[i]} #${repeats + 1}` : labels[i]!,
      color: columnOf(run).color,
      y,
      session,
      events: groupEvents(run.events.filter((e) => e.kind !== 'masked')),
      masked: maskedCounts(run.events),
    };
  });

  const recorded: (number | null)[] = x.map(() => null);
  for (const steps of agentSteps)
    for (const s of steps) if (s.recordedPromptTokens !== undefined) recorded[at.get(s.step)!] ??= s.recordedPromptTokens;
  if (recorded.some((v) => v !== null))
    series.push({ kind: 'recorded', label: 'recorded provider usage', color: RECORDED_COLOR, y: recorded });

  const markers: MarkerData[] = runs.flatMap((run, i) => {
    const y = series[i]!.y;
    const restarts = run.events
      .filter((e) => e.kind === 'restart')
      .flatMap((e): MarkerData[] => {
        const idx = at.get(e.step);
        const value = (idx === undefined ? null : y[idx]) ?? e.tokensAfter ?? null;
        return value === null ? [] : [{ kind: 'restart', series: i, x: e.step, y: value }];
      });
    const failure = failurePoints[i];
    return failure ? [...restarts, { ...failure, series: i }] : restarts;
  });

  return {
    data: { domId, scenarioId, title, x, series, lines: linesOf(runs, columnOf), markers },
    view: { domId, scenarioId, title, showId: title !== scenarioId, eventRows: eventRows(runs, series) },
  };
}

/** Where a failed run stopped, for a marker; the refused request may not be among the steps. */
function failurePoint(run: RunResult, agentSteps: readonly { step: number; promptTokens: number }[]) {
  const { status, failedStep } = run.summary;
  if (status === 'completed' || failedStep === undefined) return null;
  const event = run.events.find((e) => e.step === failedStep && (e.kind === 'overflow' || e.kind === 'pairing_violation'));
  const recorded = agentSteps.findLast((s) => s.step === failedStep)?.promptTokens;
  // An overflow without a token count still exceeded the window, so it sits on the window line.
  const y = recorded ?? event?.tokensAfter ?? event?.tokensBefore ?? (status === 'overflow' ? run.config.window : null);
  if (y === null) return null;
  return { kind: status === 'overflow' ? ('overflow' as const) : ('failure' as const), x: failedStep, y };
}

/** Window and threshold lines; labels sharing a value merge into one line so they don't overprint. */
function linesOf(runs: readonly RunResult[], columnOf: (run: RunResult) => Column): LineData[] {
  const byValue = new Map<string, { kind: LineData['kind']; value: number; labels: string[]; colors: string[] }>();
  const add = (kind: LineData['kind'], value: number, label: string, color: string): void => {
    const key = `${kind}:${value}`;
    const line = byValue.get(key) ?? { kind, value, labels: [], colors: [] };
    if (!line.labels.includes(label)) line.labels.push(label);
    if (!line.colors.includes(color)) line.colors.push(color);
    byValue.set(key, line);
  };
  for (const run of runs) {
    add('window', run.config.window, `window ${fmtInt(run.config.window)}`, WINDOW_COLOR);
    const col = columnOf(run);
    for (const t of run.config.thresholds) {
      const value = Math.round(t.fraction * run.config.window);
      add('threshold', value, `${col.label}: ${t.label} ${fmtPct(t.fraction)} = ${fmtInt(value)}`, col.color);
    }
  }
  return [...byValue.values()].map(({ kind, value, labels, colors }) => ({
    kind,
    value,
    label: labels.join(' · '),
    color: colors.length === 1 ? colors[0]! : RECORDED_COLOR,
  }));
}

/** Everything but masking, which happens at most steps and would drown the rest; it is counted instead. */
function eventRows(runs: readonly RunResult[], series: readonly SeriesData[]): ChartView['eventRows'] {
  return runs.flatMap((run, i) => {
    const { label, color } = series[i]!;
    const row = (e: EventRecord) => ({
      label,
      color,
      step: fmtInt(e.step),
      session: fmtInt(e.session),
      kind: e.kind,
      detail: truncate(e.detail),
    });
    const masked = run.events.filter((e) => e.kind === 'masked');
    const rows = run.events.filter((e) => e.kind !== 'masked').map(row);
    if (masked.length === 0) return rows;
    const steps = distinct(masked.map((e) => e.step));
    const summary = {
      label,
      color,
      step: `${fmtInt(Math.min(...steps))}–${fmtInt(Math.max(...steps))}`,
      session: '',
      kind: 'masked',
      detail: `${fmtInt(masked.length)} tool outputs masked over ${fmtInt(steps.length)} steps`,
    };
    return [summary, ...rows];
  });
}
