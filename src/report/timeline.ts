/**
 * The run timeline: for one run, every request with its prompt tokens, what the strategy did before
 * it and to which messages, the text it wrote (summaries, checkpoints, continuation seeds), and how
 * each probe came out. Compact JSON for the page script, which renders the run a reader opens; the
 * token curves' hover reads sessions and events from it too, so nothing is embedded twice.
 */
import type { EventRecord, RunResult } from '../core/run-records.js';
import type { Column } from './columns.js';
import { fmtInt, statusText, truncate } from './format.js';

/** [step, session, prompt tokens] for an agent request; a fourth entry names an auxiliary one's purpose. */
export type TimelineStep = [step: number, session: number, promptTokens: number] | [step: number, session: number, promptTokens: number, purpose: string];

export interface TimelineEvent {
  readonly step: number;
  readonly kind: string;
  readonly detail: string;
  /** The messages it acted on: the masked outputs of a step, the removed, summarized or carried ones. */
  readonly ids?: string[];
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
  readonly steps: TimelineStep[];
  readonly events: TimelineEvent[];
  readonly probes: TimelineProbe[];
}

/** Long enough for any summary the mock writes; a live model's essay is cut rather than bloat the page. */
const TEXT_MAX = 20_000;
const DETAIL_MAX = 400;

export function timelineOf(run: RunResult, column: Column): TimelineRun {
  return {
    scenarioId: run.config.scenarioId,
    scenario: run.config.scenarioTitle,
    label: column.label,
    color: column.color,
    status: statusText(run),
    failure: run.summary.failure ?? '',
    window: run.config.window,
    steps: run.steps.map((s): TimelineStep => (s.purpose === 'agent' ? [s.step, s.session, s.promptTokens] : [s.step, s.session, s.promptTokens, s.purpose])),
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
          ...(ids.length ? { ids: [...ids] } : {}),
          ...(e.text ? { text: truncate(e.text, TEXT_MAX) } : {}),
        },
      ];
    }
    // The step's first masked output stands for all of them.
    const group = maskedAt.get(e.step)!;
    if (group[0] !== e) return [];
    const ids = group.flatMap((m) => (m.messageId === undefined ? [] : [m.messageId]));
    const detail = `${fmtInt(group.length)} tool output${group.length === 1 ? '' : 's'}`;
    return [{ step: e.step, kind: 'masked', detail, ...(ids.length ? { ids } : {}) }];
  });
}
