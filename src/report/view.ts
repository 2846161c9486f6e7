/**
 * Turns runs into what the report template and the page script need: preformatted table rows and
 * chart-ready data (aligned series, lines, markers). Pure, so it is tested without a template or DOM.
 */
import type { EventRecord, Params, RunResult, RunStatus } from '../runner/types.js';

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
  readonly action: (string | null)[];
  readonly events: { step: number; kind: string; detail: string }[];
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
  readonly mockNote: string | null;
  readonly summary: { showUsageError: boolean; rows: SummaryRow[] };
  readonly matrix: { columns: Column[]; rows: MatrixRow[] };
  readonly charts: ChartView[];
  readonly data: ReportData;
}

/** One matrix column / chart series: a strategy, told apart by whatever else varies between its runs. */
interface Column {
  readonly label: string;
  readonly color: string;
}

interface SummaryRow extends Column {
  readonly runs: string;
  readonly completed: string;
  readonly overflowed: string;
  readonly anyOverflow: boolean;
  readonly otherFailed: string;
  readonly otherTitle: string;
  readonly inputTokens: string;
  readonly meanPeakPct: string;
  readonly restarts: string;
  readonly sessions: string;
  readonly usageError: string;
  readonly usageErrorTitle: string;
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

  const summaryRows = distinctColumns.map((col) => summaryRow(col, runs.filter((r) => columnOf(r) === col)));
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
    mockNote: mockNote(runs),
    summary: { showUsageError: runs.some((r) => r.summary.usageComparison), rows: summaryRows },
    matrix: { columns: distinctColumns, rows: matrixRows },
    charts: charts.map(({ view }) => view),
    data: { charts: charts.map(({ data }) => data) },
  };
}

const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)];

function facts(runs: readonly RunResult[], scenarioCount: number): { label: string; value: string }[] {
  const list = (pick: (r: RunResult) => string): string => distinct(runs.map(pick)).join(', ') || '—';
  return [
    { label: 'Runs', value: fmtInt(runs.length) },
    { label: 'Scenarios', value: fmtInt(scenarioCount) },
    { label: 'Strategies', value: list((r) => r.config.strategy) },
    { label: 'Backends', value: list((r) => r.config.backend) },
    { label: 'Models', value: list((r) => r.config.model) },
    { label: 'Windows', value: list((r) => fmtInt(r.config.window)) },
    { label: 'Encodings', value: list((r) => r.config.encoding) },
  ];
}

function mockNote(runs: readonly RunResult[]): string | null {
  const mock = runs.filter((r) => r.config.backend === 'mock');
  if (mock.length === 0) return null;
  const encodings = distinct(mock.map((r) => r.config.encoding)).join(', ');
  const share = mock.length === runs.length ? '' : ` (${mock.length} of ${runs.length} runs)`;
  return `Mock LLM${share}: replays the recorded assistant turns; token counts are local tokenizer counts (${encodings}), not a provider's`;
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
    const label = extra.length ? `${run.config.strategy} (${extra.join(' · ')})` : run.config.strategy;
    if (!columns.has(label)) columns.set(label, { label, color: PALETTE[columns.size % PALETTE.length]! });
    byRun.set(run, columns.get(label)!);
  }
  return { columns: [...columns.values()], columnOf: (run) => byRun.get(run)! };
}

function summaryRow(col: Column, runs: readonly RunResult[]): SummaryRow {
  const count = (status: RunStatus): number => runs.filter((r) => r.summary.status === status).length;
  const sum = (pick: (r: RunResult) => number): number => runs.reduce((acc, r) => acc + pick(r), 0);
  const other = runs.filter((r) => r.summary.status !== 'completed' && r.summary.status !== 'overflow');
  // Weighted by compared steps: the error over every compared step, not a mean of per-run means.
  const compared = runs.flatMap((r) => (r.summary.usageComparison ? [r.summary.usageComparison] : []));
  const comparedSteps = compared.reduce((acc, c) => acc + c.comparedSteps, 0);
  const usageError =
    comparedSteps > 0 ? compared.reduce((acc, c) => acc + c.meanAbsPctError * c.comparedSteps, 0) / comparedSteps : null;
  return {
    label: col.label,
    color: col.color,
    runs: fmtInt(runs.length),
    completed: fmtInt(count('completed')),
    overflowed: fmtInt(count('overflow')),
    anyOverflow: count('overflow') > 0,
    otherFailed: fmtInt(other.length),
    otherTitle: distinct(other.map((r) => STATUS_TEXT[r.summary.status])).join(', '),
    inputTokens: fmtInt(sum((r) => r.summary.inputTokens)),
    meanPeakPct: fmtPct(sum(peakFraction) / runs.length),
    restarts: fmtInt(sum((r) => r.summary.restarts)),
    sessions: fmtInt(sum((r) => r.summary.sessions)),
    // Already in percent (compareUsage multiplies by 100), unlike the context fractions.
    usageError: usageError === null ? '—' : `${usageError.toFixed(1)}%`,
    usageErrorTitle: comparedSteps > 0 ? `over ${fmtInt(comparedSteps)} steps with recorded usage` : '',
  };
}

/** From tokens and window rather than summary.peakContextPct, so the unit can't be misread. */
const peakFraction = (r: RunResult): number => r.summary.peakContextTokens / r.config.window;

function cellRun(run: RunResult): CellRun {
  const { summary } = run;
  const failedAt = summary.failedStep === undefined ? '' : ` at step ${summary.failedStep}`;
  return {
    statusClass: summary.status,
    status: summary.status === 'completed' ? 'completed' : `${STATUS_TEXT[summary.status]}${failedAt}`,
    failure: summary.failure ?? '',
    steps: `${fmtInt(summary.steps)} / ${fmtInt(summary.totalSteps)}`,
    inputTokens: fmtInt(summary.inputTokens),
    peakPct: fmtPct(peakFraction(run)),
    restarts: fmtInt(summary.restarts),
  };
}

const truncate = (text: string): string => (text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX - 1)}…` : text);

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
    const action: (string | null)[] = x.map(() => null);
    // A step sent twice (e.g. retried in a new session) shows its last request: the one that was answered.
    for (const s of agentSteps[i]!) {
      const idx = at.get(s.step)!;
      y[idx] = s.promptTokens;
      session[idx] = s.session;
      action[idx] = s.action;
    }
    const repeats = labels.slice(0, i).filter((l) => l === labels[i]).length;
    return {
      kind: 'strategy',
      label: repeats ? `${labels[i]} #${repeats + 1}` : labels[i]!,
      color: columnOf(run).color,
      y,
      session,
      action,
      events: run.events.map((e) => ({ step: e.step, kind: e.kind, detail: truncate(e.detail) })),
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
