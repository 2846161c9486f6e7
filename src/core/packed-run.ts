/**
 * A run's step and event records column by column, each distinct string once: what a worker thread
 * posts of a finished run and what the main thread keeps of it until the report is written. As
 * objects, a structured clone makes every "agent", "local" and "read_file output masked" a string of
 * its own and every record an object with its properties out of line: measured in the main thread
 * after 300 runs of 20 generated scenarios x 400 steps, about 55 MB of its 110 MB heap. The columns
 * are typed arrays, moved between threads rather than copied.
 *
 * An unpacked run (unpackRun) reads like any RunResult; its `steps` and `events` are built from the
 * columns on each read (own enumerable getters, so a spread or a structured clone still copies them):
 * read each once per use. Only the fields of StepRecord and EventRecord are kept, and an event's
 * optional fields only when defined.
 */
import type { EventKind, EventRecord, RunResult, StepRecord } from './run-records.js';

/** The columns of a run's records; `strings` holds each distinct string of them once. */
export interface PackedRecords {
  readonly strings: readonly string[];
  /** STEP_INTS per step: step, session, messageCount, purpose, action, usageSource, finishReason, flags. */
  readonly stepInts: Int32Array;
  /** STEP_NUMBERS per step: promptTokens, completionTokens, contextPct, recordedPromptTokens, providerPromptTokens. */
  readonly stepNumbers: Float64Array;
  /** EVENT_INTS per event: step, session, kind, messageId, detail, text, first id, id count, flags. */
  readonly eventInts: Int32Array;
  /** EVENT_NUMBERS per event: tokensBefore, tokensAfter. */
  readonly eventNumbers: Float64Array;
  /** The events' messageIds lists, one after another, as string indices. */
  readonly ids: Int32Array;
}

/** A RunResult whose steps and events are packed. */
export interface PackedRun extends Omit<RunResult, 'steps' | 'events'> {
  readonly records: PackedRecords;
}

const STEP_INTS = 8;
const STEP_NUMBERS = 5;
const EVENT_INTS = 9;
const EVENT_NUMBERS = 2;
/** A string or number field left undefined. */
const NONE = -1;

/** Flags of a step: which optional fields it has, and the value of `cached`. */
const RECORDED = 1;
const PROVIDER = 2;
const CACHED_KNOWN = 4;
const CACHED = 8;
/** Flags of an event. */
const BEFORE = 1;
const AFTER = 2;

/** Packs a finished run's steps and events; the rest of it is kept as it is. */
export function packRun(run: RunResult): PackedRun {
  const { steps, events, ...rest } = run;
  return { ...rest, records: packRecords(steps, events) };
}

export function packRecords(steps: readonly StepRecord[], events: readonly EventRecord[]): PackedRecords {
  const strings: string[] = [];
  const indexOf = new Map<string, number>();
  const str = (value: string | undefined): number => {
    if (value === undefined) return NONE;
    let index = indexOf.get(value);
    if (index === undefined) {
      index = strings.push(value) - 1;
      indexOf.set(value, index);
    }
    return index;
  };
  const stepInts = new Int32Array(steps.length * STEP_INTS);
  const stepNumbers = new Float64Array(steps.length * STEP_NUMBERS);
  steps.forEach((s, i) => {
    const flags =
      (s.recordedPromptTokens === undefined ? 0 : RECORDED) |
      (s.providerPromptTokens === undefined ? 0 : PROVIDER) |
      (s.cached === undefined ? 0 : CACHED_KNOWN | (s.cached ? CACHED : 0));
    stepInts.set([s.step, s.session, s.messageCount, str(s.purpose), str(s.action), str(s.usageSource), str(s.finishReason), flags], i * STEP_INTS);
    stepNumbers.set([s.promptTokens, s.completionTokens, s.contextPct, s.recordedPromptTokens ?? 0, s.providerPromptTokens ?? 0], i * STEP_NUMBERS);
  });
  const ids: number[] = [];
  const eventInts = new Int32Array(events.length * EVENT_INTS);
  const eventNumbers = new Float64Array(events.length * EVENT_NUMBERS);
  events.forEach((e, i) => {
    const first = ids.length;
    e.messageIds?.forEach((id) => ids.push(str(id)));
    const flags = (e.tokensBefore === undefined ? 0 : BEFORE) | (e.tokensAfter === undefined ? 0 : AFTER);
    const count = e.messageIds === undefined ? NONE : e.messageIds.length;
    eventInts.set([e.step, e.session, str(e.kind), str(e.messageId), str(e.detail), str(e.text), first, count, flags], i * EVENT_INTS);
    eventNumbers.set([e.tokensBefore ?? 0, e.tokensAfter ?? 0], i * EVENT_NUMBERS);
  });
  return { strings, stepInts, stepNumbers, eventInts, eventNumbers, ids: Int32Array.from(ids) };
}

/** The buffers of a packed run, to move to another thread instead of copying them. */
export const transferablesOf = ({ records: r }: PackedRun): ArrayBuffer[] =>
  [r.stepInts, r.stepNumbers, r.eventInts, r.eventNumbers, r.ids].map((column) => column.buffer as ArrayBuffer);

/** The run with its steps and events read from the columns on each access (see the module's doc). */
export function unpackRun(packed: PackedRun): RunResult {
  const { records, ...rest } = packed;
  return unpackRunFrom(rest, () => records);
}

/** unpackRun over records fetched at each read (from where they were put away: runner/run-spill.ts). */
export function unpackRunFrom(rest: Omit<PackedRun, 'records'>, records: () => PackedRecords): RunResult {
  const run = { ...rest } as RunResult;
  Object.defineProperty(run, 'steps', { get: () => unpackSteps(records()), enumerable: true });
  Object.defineProperty(run, 'events', { get: () => unpackEvents(records()), enumerable: true });
  return run;
}

export function unpackSteps({ strings, stepInts: n, stepNumbers: x }: PackedRecords): StepRecord[] {
  const steps: StepRecord[] = new Array(n.length / STEP_INTS);
  for (let i = 0; i < steps.length; i++) {
    const a = i * STEP_INTS;
    const b = i * STEP_NUMBERS;
    const flags = n[a + 7]!;
    // Every field, in the order run-log.ts makes them.
    steps[i] = {
      step: n[a]!,
      session: n[a + 1]!,
      purpose: strings[n[a + 3]!]!,
      promptTokens: x[b]!,
      completionTokens: x[b + 1]!,
      contextPct: x[b + 2]!,
      messageCount: n[a + 2]!,
      usageSource: strings[n[a + 5]!] as StepRecord['usageSource'],
      recordedPromptTokens: flags & RECORDED ? x[b + 3]! : undefined,
      action: strings[n[a + 4]!]!,
      cached: flags & CACHED_KNOWN ? (flags & CACHED) !== 0 : undefined,
      providerPromptTokens: flags & PROVIDER ? x[b + 4]! : undefined,
      finishReason: n[a + 6]! === NONE ? undefined : strings[n[a + 6]!],
    };
  }
  return steps;
}

export function unpackEvents({ strings, eventInts: n, eventNumbers: x, ids }: PackedRecords): EventRecord[] {
  const events: EventRecord[] = new Array(n.length / EVENT_INTS);
  for (let i = 0; i < events.length; i++) {
    const a = i * EVENT_INTS;
    const b = i * EVENT_NUMBERS;
    const messageId = n[a + 3]!;
    const text = n[a + 5]!;
    const first = n[a + 6]!;
    const count = n[a + 7]!;
    const flags = n[a + 8]!;
    events[i] = {
      step: n[a]!,
      session: n[a + 1]!,
      kind: strings[n[a + 2]!] as EventKind,
      detail: strings[n[a + 4]!]!,
      ...(messageId === NONE ? {} : { messageId: strings[messageId]! }),
      ...(count === NONE ? {} : { messageIds: Array.from(ids.subarray(first, first + count), (id) => strings[id]!) }),
      ...(text === NONE ? {} : { text: strings[text]! }),
      ...(flags & BEFORE ? { tokensBefore: x[b]! } : {}),
      ...(flags & AFTER ? { tokensAfter: x[b + 1]! } : {}),
    };
  }
  return events;
}
