import fc from 'fast-check';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { packRecords, packRun, transferablesOf, unpackEvents, unpackRun, unpackSteps, type PackedRun } from './packed-run.js';
import type { EventRecord, RunResult, StepRecord } from './run-records.js';

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });
/** Any double a count may hold, NaN and -0 included: the columns keep them exactly. */
const count = fc.oneof(fc.nat(2_000_000), fc.double());
const word = fc.oneof(fc.constantFrom('agent', 'summary', 'masked', ''), fc.string({ maxLength: 12 }));

const stepArb: fc.Arbitrary<StepRecord> = fc.record({
  step: fc.nat(100_000),
  session: fc.nat(50),
  purpose: word,
  promptTokens: count,
  completionTokens: count,
  contextPct: fc.double(),
  messageCount: fc.nat(100_000),
  usageSource: fc.constantFrom('local', 'provider'),
  recordedPromptTokens: maybe(count),
  action: word,
  cached: maybe(fc.boolean()),
  providerPromptTokens: maybe(count),
  finishReason: maybe(word),
}).map((s) => ({ ...s })); // fast-check's records have no prototype

/** Events as strategies make them: optional fields absent, not undefined. */
const eventArb: fc.Arbitrary<EventRecord> = fc.record(
  {
    step: fc.nat(100_000),
    session: fc.nat(50),
    kind: fc.constantFrom('masked', 'summarized', 'removed', 'overflow', 'warning'),
    messageId: word,
    messageIds: fc.array(word, { maxLength: 5 }),
    detail: word,
    text: fc.string({ maxLength: 40 }),
    tokensBefore: count,
    tokensAfter: count,
  },
  { requiredKeys: ['step', 'session', 'kind', 'detail'] },
).map((e) => ({ ...e }));

const RUN = {
  runId: 'b/masking/s',
  batchId: 'b',
  probes: [{ probeId: 'p1', step: 3, answer: '42', how: 'verbatim' }],
  startedAt: new Date(0),
  finishedAt: new Date(1000),
} as unknown as Omit<RunResult, 'steps' | 'events'>;

describe('packRecords / unpackSteps / unpackEvents', () => {
  it('give back every step and event as it was, in order', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), fc.array(eventArb, { maxLength: 30 }), (steps, events) => {
        const packed = packRecords(steps, events);
        expect(unpackSteps(packed)).toStrictEqual(steps);
        expect(unpackEvents(packed)).toStrictEqual(events);
      }),
      { numRuns: 300 },
    );
  });

  it('hold each distinct string once', () => {
    const steps = Array.from({ length: 50 }, (_, i): StepRecord => ({ ...fc.sample(stepArb, { seed: i, numRuns: 1 })[0]!, purpose: 'agent', action: 'masked', finishReason: undefined }));
    const events = Array.from({ length: 50 }, (_, i): EventRecord => ({ step: i, session: 0, kind: 'masked', messageId: `m${i % 5}`, detail: 'read_file output masked' }));
    const { strings } = packRecords(steps, events);
    expect(new Set(strings).size).toBe(strings.length);
    expect(strings.filter((s) => s.startsWith('m'))).toEqual(['masked', 'm0', 'm1', 'm2', 'm3', 'm4']);
  });
});

describe('packRun / unpackRun', () => {
  const [steps, events] = fc.sample(fc.tuple(fc.array(stepArb, { minLength: 3, maxLength: 10 }), fc.array(eventArb, { minLength: 3, maxLength: 10 })), { seed: 7, numRuns: 1 })[0]!;
  const run: RunResult = { ...RUN, steps, events };

  it('read like the run: fields, steps and events, through a spread and a structured clone too', () => {
    const unpacked = unpackRun(packRun(run));
    expect(unpacked).toStrictEqual(run);
    expect({ ...unpacked, matrixIndex: 4 }).toStrictEqual({ ...run, matrixIndex: 4 });
    expect(structuredClone(unpacked)).toStrictEqual(run);
  });

  it('build the records anew on each read (nothing kept but the columns)', () => {
    const unpacked = unpackRun(packRun(run));
    expect(unpacked.steps).not.toBe(unpacked.steps);
    expect(unpacked.steps).toStrictEqual(unpacked.steps);
  });

  it('move the columns to the receiving thread instead of copying them', () => {
    const packed = packRun(run);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(packed, transferablesOf(packed));
    expect(packed.records.stepInts.length).toBe(0); // detached here
    const received = receiveMessageOnPort(port2)!.message as PackedRun;
    port1.close();
    expect(unpackRun(received)).toStrictEqual(run);
  });
});
