/**
 * Token curves: per scenario, the prompt tokens of every agent request for each run configuration,
 * aligned on step numbers, with the window and thresholds as lines and what the strategies did as
 * markers. Pure data for the page script, which draws it with uPlot.
 */
import { REREAD_PURPOSE, type EventKind, type EventRecord, type RunResult, type StepRecord } from '../core/run-records.js';
import type { Column } from './columns.js';
import { CURVE_POINTS, downsample } from './downsample.js';
import { distinct, fmtInt, fmtPct } from './format.js';

export interface ChartData {
  readonly domId: string;
  readonly scenarioId: string;
  readonly title: string;
  readonly series: SeriesData[];
  readonly lines: LineData[];
  readonly markers: MarkerData[];
}

export type SeriesData = StrategySeries | RecordedSeries;

/**
 * A curve's drawn points: every agent request of a short run; of a long one, what `downsample`
 * keeps (the exact numbers are in the database, the exports and the run's timeline).
 */
interface Points {
  /** Step numbers, ascending. */
  readonly x: number[];
  /** Prompt tokens at each x. */
  readonly y: number[];
}

export interface StrategySeries extends Points {
  readonly kind: 'strategy';
  readonly label: string;
  readonly color: string;
  readonly dash: readonly number[];
  /** Index of the run in the timeline data: its sessions and events, shown on hover. */
  readonly run: number;
}

export interface RecordedSeries extends Points {
  readonly kind: 'recorded';
  readonly label: string;
  readonly color: string;
}

export interface LineData {
  readonly kind: 'window' | 'threshold';
  readonly label: string;
  readonly value: number;
  readonly color: string;
}

/** What the curves mark: the strategies' actions, and where a run ended early. */
export const MARKED_EVENTS = ['masked', 'removed', 'offloaded', 'summarized', 'restart', 'continuation', 'reread'] as const satisfies readonly EventKind[];
export type MarkerKind = (typeof MARKED_EVENTS)[number] | 'overflow' | 'failure';

export interface MarkerData {
  readonly kind: MarkerKind;
  /** Index into ChartData.series. */
  readonly series: number;
  readonly x: number;
  readonly y: number;
}

const WINDOW_COLOR = '#c62828';
export const RECORDED_COLOR = '#6b7280';

/**
 * The chart of one scenario. `runs` are its runs in column order; `runIndex` gives each run's place
 * in the timeline data.
 */
export function chartOf(
  domId: string,
  scenarioId: string,
  title: string,
  runs: readonly RunResult[],
  columnOf: (run: RunResult) => Column,
  runIndex: (run: RunResult) => number,
): ChartData {
  // Auxiliary requests (summaries, ...) are not the agent's context: the curve follows the agent's own
  // requests, its recorded turns and (reactive replay) its re-reads, marked where the re-read was asked.
  const agentSteps = runs.map((r) => r.steps.filter((s) => s.purpose === 'agent' || s.purpose === REREAD_PURPOSE));
  const failurePoints = runs.map((r, i) => failurePoint(r, agentSteps[i]!));
  const x = distinct([
    ...agentSteps.flatMap((steps) => steps.map((s) => s.step)),
    ...failurePoints.flatMap((p) => (p ? [p.x] : [])),
  ]).sort((a, b) => a - b);
  const at = new Map(x.map((step, i) => [step, i]));

  const labels = runs.map((r) => columnOf(r).label);
  const ys = runs.map((_, i) => {
    const y: (number | null)[] = x.map(() => null);
    // A step sent twice (e.g. retried in a new session) shows its last request: the one that was answered.
    for (const s of agentSteps[i]!) y[at.get(s.step)!] = s.promptTokens;
    return y;
  });
  const markers: MarkerData[] = runs.flatMap((run, i) => {
    const failure = failurePoints[i];
    const actions = eventMarkers(run.events, ys[i]!, at, x).map((m) => ({ ...m, series: i }));
    return failure ? [...actions, { ...failure, series: i }] : actions;
  });
  const lines = linesOf(runs, columnOf);

  const levels = lines.map((l) => l.value);
  const drawn = (y: readonly (number | null)[], series: number): Points => {
    const keep = new Set(markers.filter((m) => m.series === series).map((m) => at.get(m.x)!));
    const kept = downsample(y, { max: CURVE_POINTS, levels, keep });
    return { x: kept.map((i) => x[i]!), y: kept.map((i) => y[i]!) };
  };
  const series: SeriesData[] = runs.map((run, i) => {
    const repeats = labels.slice(0, i).filter((l) => l === labels[i]).length;
    const { color, dash } = columnOf(run);
    return { kind: 'strategy', label: repeats ? `${labels[i]} #${repeats + 1}` : labels[i]!, color, dash, run: runIndex(run), ...drawn(ys[i]!, i) };
  });

  const recorded: (number | null)[] = x.map(() => null);
  for (const steps of agentSteps)
    for (const s of steps) if (s.recordedPromptTokens !== undefined) recorded[at.get(s.step)!] ??= s.recordedPromptTokens;
  if (recorded.some((v) => v !== null))
    series.push({ kind: 'recorded', label: 'recorded provider usage', color: RECORDED_COLOR, ...drawn(recorded, -1) });

  return { domId, scenarioId, title, series, lines, markers };
}

/**
 * One marker per step and kind of action, on the request the action shaped (events come before the
 * request of their step); on the event's own count when the run sent no request at that step.
 * Masking acts at most steps of a long run, so it is marked where a stretch of masked steps starts,
 * not at each (that would be a solid mass of markers); the hover and the timeline list every step.
 */
function eventMarkers(events: readonly EventRecord[], y: readonly (number | null)[], at: ReadonlyMap<number, number>, x: readonly number[]): Omit<MarkerData, 'series'>[] {
  const seen = new Set<string>();
  const maskedAt = new Set(events.filter((e) => e.kind === 'masked').map((e) => e.step));
  const previousRequest = (idx: number | undefined): number | undefined => {
    if (idx === undefined) return undefined;
    for (let i = idx - 1; i >= 0; i--) if (y[i] !== null) return x[i];
    return undefined;
  };
  return events.flatMap((e) => {
    if (!(MARKED_EVENTS as readonly string[]).includes(e.kind)) return [];
    const key = `${e.step}:${e.kind}`;
    if (seen.has(key)) return [];
    seen.add(key);
    const idx = at.get(e.step);
    if (e.kind === 'masked') {
      const previous = previousRequest(idx);
      if (previous !== undefined && maskedAt.has(previous)) return [];
    }
    const value = (idx === undefined ? null : y[idx]) ?? e.tokensAfter ?? null;
    return value === null ? [] : [{ kind: e.kind as MarkerKind, x: e.step, y: value }];
  });
}

/**
 * Where a failed run stopped (a truncated one: its first cut prompt), for a marker; the refused request
 * may not be among the steps. A failure with nothing to place at its step (an error before the request
 * was counted) is marked at the last step the run reached.
 */
function failurePoint(run: RunResult, agentSteps: readonly StepRecord[]): Omit<MarkerData, 'series'> | null {
  const { status, failedStep } = run.summary;
  if (status === 'completed') return null;
  const kind = status === 'overflow' ? 'overflow' : 'failure';
  if (failedStep !== undefined) {
    const event = run.events.find((e) => e.step === failedStep && (e.kind === 'overflow' || e.kind === 'pairing_violation'));
    const recorded = agentSteps.findLast((s) => s.step === failedStep)?.promptTokens;
    // An overflow without a token count still exceeded the window, so it sits on the window line.
    const y = recorded ?? event?.tokensAfter ?? event?.tokensBefore ?? (status === 'overflow' ? run.config.window : null);
    if (y !== null) return { kind, x: failedStep, y };
  }
  const last = agentSteps.at(-1);
  return last ? { kind, x: last.step, y: last.promptTokens } : null;
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
