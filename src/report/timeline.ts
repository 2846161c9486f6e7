/**
 * The run timeline: for one run, every request with its prompt tokens, what the strategy did before
 * it and to which messages, the text it wrote (summaries, checkpoints, continuation seeds), and how
 * each probe came out. Compact JSON for the page script, which renders the run a reader opens; the
 * token curves' hover reads sessions and events from it too, so nothing is embedded twice.
 */
import type { EventRecord, RunResult, StepRecord } from '../core/run-records.js';
import type { Column } from './columns.js';
import { fmtInt, statusText, truncate } from './format.js';

/**
 * A run's requests, column by column, in order: step numbers and prompt tokens as the difference from
 * the previous request's (small numbers, which deflate to a third of the tuples' size), the session of
 * each, and the purpose of those that are not the agent's own, by position. The page expands them.
 */
export interface TimelineSteps {
  readonly step: number[];
  readonly session: number[];
  readonly tokens: number[];
  readonly purpose: [at: number, purpose: string][];
}

export interface TimelineEvent {
  readonly step: number;
  readonly kind: string;
  readonly detail: string;
  /** The messages it acted on: the masked outputs of a step, the removed, summarized or carried ones; the first IDS_SHOWN. */
  readonly ids?: string[];
  /** How many more it acted on than `ids` names. */
  readonly more?: number;
  /** What the strategy wrote. */
  readonly text?: string;
}

export interface TimelineProbe {
  readonly step: number;
  readonly id: string;
  readonly how: string;
  readonly answer: string;
  readonly file?: string;
  /** Live runs: what the model answered to the probe question, and whether that held the fact. */
  readonly reply?: string;
  readonly answered?: boolean;
}

export interface TimelineRun {
  readonly scenarioId: string;
  readonly scenario: string;
  readonly label: string;
  readonly color: string;
  readonly status: string;
  /** Why it failed, when it did. */
  readonly failure: string;
  readonly window: number;
  readonly steps: TimelineSteps;
  readonly events: TimelineEvent[];
  readonly probes: TimelineProbe[];
}

/** Long enough for any summary the mock writes; a live model's essay is cut rather than bloat the page. */
const TEXT_MAX = 20_000;
const DETAIL_MAX = 400;
/** Message ids named per event: masking hides hundreds at once, and a list that long tells a reader nothing more. */
export const IDS_SHOWN = 12;

/** The ids an event names, the first IDS_SHOWN of them, and how many it leaves out. */
const idsOf = (ids: readonly string[]): Pick<TimelineEvent, 'ids' | 'more'> =>
  ids.length === 0 ? {} : { ids: ids.slice(0, IDS_SHOWN), ...(ids.length > IDS_SHOWN ? { more: ids.length - IDS_SHOWN } : {}) };

export function timelineOf(run: RunResult, column: Column): TimelineRun {
  return {
    scenarioId: run.config.scenarioId,
    scenario: run.config.scenarioTitle,
    label: column.label,
    color: column.color,
    status: statusText(run),
    failure: run.summary.failure ?? '',
    window: run.config.window,
    steps: packSteps(run.steps),
    events: timelineEvents(run.events),
    probes: run.probes.map((p) => ({
      step: p.step,
      id: p.probeId,
      how: p.how,
      answer: truncate(p.answer, DETAIL_MAX),
      ...(p.file ? { file: p.file } : {}),
      ...(p.answered === undefined ? {} : { answered: p.answered, reply: truncate(p.reply ?? '', DETAIL_MAX) }),
    })),
  };
}

function packSteps(steps: readonly StepRecord[]): TimelineSteps {
  const delta = (values: number[]): number[] => values.map((v, i) => v - (i === 0 ? 0 : values[i - 1]!));
  return {
    step: delta(steps.map((s) => s.step)),
    session: steps.map((s) => s.session),
    tokens: delta(steps.map((s) => s.promptTokens)),
    purpose: steps.flatMap((s, i): [number, string][] => (s.purpose === 'agent' ? [] : [[i, s.purpose]])),
  };
}

/**
 * In recorded order, except that a step's masked outputs are one entry listing them: masking touches
 * most steps one output at a time, and one line per output would bury everything else.
 */
export function timelineEvents(events: readonly EventRecord[]): TimelineEvent[] {
  const maskedAt = new Map<number, EventRecord[]>();
  for (const e of events) if (e.kind === 'masked') maskedAt.set(e.step, [...(maskedAt.get(e.step) ?? []), e]);
  return events.flatMap((e): TimelineEvent[] => {
    if (e.kind !== 'masked') {
      const ids = e.messageIds ?? (e.messageId === undefined ? [] : [e.messageId]);
      return [
        {
          step: e.step,
          kind: e.kind,
          detail: truncate(e.detail, DETAIL_MAX),
          ...idsOf(ids),
          ...(e.text ? { text: truncate(e.text, TEXT_MAX) } : {}),
        },
      ];
    }
    // The step's first masked output stands for all of them.
    const group = maskedAt.get(e.step)!;
    if (group[0] !== e) return [];
    const ids = group.flatMap((m) => (m.messageId === undefined ? [] : [m.messageId]));
    const detail = `${fmtInt(group.length)} tool output${group.length === 1 ? '' : 's'}`;
    return [{ step: e.step, kind: 'masked', detail, ...idsOf(ids) }];
  });
}
