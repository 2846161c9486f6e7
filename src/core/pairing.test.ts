import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, history, result, say, sys, user, wellFormedArb, wellFormedMessagesArb } from '../../test/helpers/drafts.js';
import {
  assistantMessage,
  strategyOrigin,
  systemMessage,
  toolMessage,
  userMessage,
  withContent,
  type Message,
} from './messages.js';
import { appendOnlyCopy } from './append-only.js';
import { checkOrder, checkPairing, createPairingGuard, describeViolations, VIOLATION_KINDS, type ViolationKind } from './pairing.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures: the OpenHands SDK API-compliance patterns a01..a08, one per taxonomy kind.
// ---------------------------------------------------------------------------------------------------

/** a01: a call, then a user message, and no result ever. */
const A01_CALL_THEN_USER = history(sys(), user('List the files.'), call('call_a'), user('Any news?'));
/** a02: a result whose id no call in the context has. */
const A02_UNKNOWN_RESULT_ID = history(sys(), user('List the files.'), call('call_a'), result('call_a'), result('call_zz'));
/** a03: a user message between a call and its result. */
const A03_USER_BETWEEN = history(sys(), user('Run it.'), call('call_a'), user('Hurry up!'), result('call_a'));
/** a04: an assistant message between a call and its result. */
const A04_ASSISTANT_BETWEEN = history(sys(), user('Run it.'), call('call_a'), say('Still waiting…'), result('call_a'));
/** a05: a second result for an already answered id, later in the conversation. */
const A05_SECOND_RESULT_LATER = history(
  sys(),
  user('Run it.'),
  call('call_a'),
  result('call_a'),
  say('Done.'),
  user('Thanks.'),
  say('You are welcome.'),
  result('call_a', 'a late replay of the same output'),
);
/** a05 (second shape): two calls with the same id. */
const A05_SAME_CALL_ID_TWICE = history(
  sys(),
  user('Run it twice.'),
  call('call_a'),
  result('call_a'),
  call('call_a'),
  result('call_a'),
  say('Ran it twice.'),
);
/** a06: the second call B is answered with A's id. */
const A06_B_ANSWERED_WITH_A = history(sys(), user('Run A then B.'), call('call_a'), result('call_a'), call('call_b'), result('call_a'));
/** a07: three parallel calls, two results, then a user message. */
const A07_PARALLEL_TWO_OF_THREE = history(
  sys(),
  user('Run all three.'),
  call('call_a', 'call_b', 'call_c'),
  result('call_a'),
  result('call_c'),
  user('And?'),
);
/** a08: the results come before the assistant message that makes the calls. */
const A08_RESULTS_BEFORE_CALLS = history(
  sys(),
  user('Run both.'),
  result('call_a'),
  result('call_b'),
  call('call_a', 'call_b'),
  say('Both ran.'),
);

interface ViolationFixture {
  readonly pattern: string;
  readonly context: readonly Message[];
  readonly kind: ViolationKind;
  /** Where the (first) violation shows, and which call it names. */
  readonly index: number;
  readonly toolCallId: string;
}

const VIOLATION_FIXTURES: readonly ViolationFixture[] = [
  { pattern: 'a01 call then user message, no result', context: A01_CALL_THEN_USER, kind: 'unmatched_tool_use', index: 2, toolCallId: 'call_a' },
  { pattern: 'a02 result id unknown', context: A02_UNKNOWN_RESULT_ID, kind: 'unmatched_tool_result', index: 4, toolCallId: 'call_zz' },
  { pattern: 'a03 user message between call and result', context: A03_USER_BETWEEN, kind: 'interleaved_user_message', index: 3, toolCallId: 'call_a' },
  { pattern: 'a04 assistant message between call and result', context: A04_ASSISTANT_BETWEEN, kind: 'interleaved_assistant_message', index: 3, toolCallId: 'call_a' },
  { pattern: 'a05 second result for an answered id, later', context: A05_SECOND_RESULT_LATER, kind: 'duplicate_tool_call_id', index: 7, toolCallId: 'call_a' },
  { pattern: 'a05 two calls with the same id', context: A05_SAME_CALL_ID_TWICE, kind: 'duplicate_tool_call_id', index: 4, toolCallId: 'call_a' },
  { pattern: 'a06 call B answered with A\'s id', context: A06_B_ANSWERED_WITH_A, kind: 'wrong_tool_call_id', index: 5, toolCallId: 'call_a' },
  { pattern: 'a07 three parallel calls, two results, user message', context: A07_PARALLEL_TWO_OF_THREE, kind: 'parallel_missing_result', index: 2, toolCallId: 'call_b' },
  { pattern: 'a08 results before the calls', context: A08_RESULTS_BEFORE_CALLS, kind: 'parallel_wrong_order', index: 2, toolCallId: 'call_a' },
];

// Valid contexts.
const EMPTY: readonly Message[] = [];
const NO_TOOLS = history(sys(), user('Hi!'), say('Hello.'), user('Bye.'), say('Goodbye.'));
const SEQUENTIAL_TOOLS = history(
  sys(),
  user('Fix the bug.'),
  call('call_1'),
  result('call_1'),
  call('call_2'),
  result('call_2', ''),
  say('Fixed.'),
);
const PARALLEL_ANY_ORDER = history(
  sys(),
  user('Run all three.'),
  call('call_a', 'call_b', 'call_c'),
  result('call_c'),
  result('call_a'),
  result('call_b'),
  say('All three ran.'),
);
const ENDS_ON_CALLS = history(sys(), user('Run both.'), call('call_a'), result('call_a'), call('call_b', 'call_c'));
const ENDS_ON_PARTIAL_PARALLEL_RESULTS = history(sys(), user('Run both.'), call('call_a', 'call_b'), result('call_b'));
const ENDS_ON_RESULTS = history(sys(), user('Run both.'), call('call_a', 'call_b'), result('call_b'), result('call_a'));

const kinds = (context: readonly Message[]): ViolationKind[] => checkPairing(context).map((v) => v.kind);

// ---------------------------------------------------------------------------------------------------
// Property helpers (the well-formed history generator is shared, in test/helpers/drafts.ts).
// ---------------------------------------------------------------------------------------------------

const withToolResultsArb = wellFormedArb.filter((g) => g.messages.some((m) => m.role === 'tool'));

const without = (messages: readonly Message[], index: number): Message[] => messages.filter((_, i) => i !== index);

/**
 * A deliberately naive reading of invariant rules 1-3, as an oracle: is the context valid at all?
 * (checkPairing must agree on valid/invalid; which kind it names is tested by the fixtures.)
 */
function referenceValid(context: readonly Message[]): boolean {
  const callIds = new Set<string>();
  let batch: { readonly index: number; readonly calls: readonly string[]; readonly answered: Set<string> } | undefined;
  for (const [index, m] of context.entries()) {
    if (m.role === 'tool') {
      if (!batch || !batch.calls.includes(m.toolCallId) || batch.answered.has(m.toolCallId)) return false;
      batch.answered.add(m.toolCallId);
      continue;
    }
    if (batch && batch.answered.size < batch.calls.length) return false;
    batch = undefined;
    if (m.role === 'assistant' && m.toolCalls.length > 0) {
      for (const c of m.toolCalls) {
        if (callIds.has(c.id)) return false;
        callIds.add(c.id);
      }
      batch = { index, calls: m.toolCalls.map((c) => c.id), answered: new Set() };
    }
  }
  return !batch || batch.answered.size === batch.calls.length || batch.index === context.length - 1;
}

/** Arbitrary (mostly malformed) contexts over a tiny id alphabet, so ids collide often. */
const anyContextArb: fc.Arbitrary<Message[]> = fc
  .array(
    fc.oneof(
      fc.constantFrom('system', 'user', 'text').map((kind) => ({ kind, ids: [] as string[] })),
      fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 3 }).map((ids) => ({ kind: 'calls', ids })),
      fc.constantFrom('a', 'b', 'c', 'd').map((id) => ({ kind: 'result', ids: [id] })),
      fc.constantFrom('a', 'b', 'c', 'd').map((id) => ({ kind: 'result', ids: [id] })),
    ),
    { maxLength: 10 },
  )
  .map((specs) =>
    specs.map(({ kind, ids }, i): Message => {
      const id = `m${i}`;
      if (kind === 'system') return systemMessage({ id, content: '' });
      if (kind === 'user') return userMessage({ id, content: '' });
      if (kind === 'text') return assistantMessage({ id, content: 'ok' });
      if (kind === 'calls') return assistantMessage({ id, content: '', toolCalls: ids.map((c) => ({ id: c, name: 'f', arguments: '{}' })) });
      return toolMessage({ id, toolCallId: ids[0]!, name: 'f', content: '' });
    }),
  );

// ---------------------------------------------------------------------------------------------------

describe('pairing', () => {
  describe('VIOLATION_KINDS', () => {
    it('has one failing fixture per taxonomy kind', () => {
      expect(new Set(VIOLATION_FIXTURES.map((f) => f.kind))).toEqual(new Set(VIOLATION_KINDS));
    });
  });

  describe('checkPairing', () => {
    describe('violations (OpenHands compliance patterns a01..a08)', () => {
      it.each(VIOLATION_FIXTURES)('$pattern -> $kind', ({ context, kind, index, toolCallId }) => {
        const violations = checkPairing(context);
        expect(violations.length).toBeGreaterThan(0);
        expect(violations.map((v) => v.kind)).toEqual(violations.map(() => kind));
        expect(violations[0]).toMatchObject({ kind, index, toolCallId });
        expect(violations[0]!.detail).not.toBe('');
      });

      it('a01 at the very end of the context (call answered by nothing, then an assistant text)', () => {
        expect(kinds(history(user('Go.'), call('call_a'), say('Never mind.')))).toEqual(['unmatched_tool_use']);
      });

      it('a02 a result with no assistant message at all', () => {
        expect(kinds(history(sys(), result('call_a')))).toEqual(['unmatched_tool_result']);
      });

      it('a02 a result naming an unknown id in place of the real one reports both sides', () => {
        expect(kinds(history(user('Go.'), call('call_a'), result('call_x')))).toEqual(['unmatched_tool_result', 'unmatched_tool_use']);
      });

      it('a04 the interleaved assistant may itself make calls', () => {
        const context = history(user('Go.'), call('call_a'), call('call_b'), result('call_a'), result('call_b'));
        expect(kinds(context)).toEqual(['interleaved_assistant_message']);
      });

      it('a05 two calls with the same id in one assistant message', () => {
        const context = history(user('Go.'), call('call_a', 'call_a'), result('call_a'));
        expect(checkPairing(context)).toEqual([expect.objectContaining({ kind: 'duplicate_tool_call_id', index: 1, toolCallId: 'call_a' })]);
      });

      it('a05 reports both the duplicated call and its second result', () => {
        expect(checkPairing(A05_SAME_CALL_ID_TWICE).map((v) => [v.kind, v.index])).toEqual([
          ['duplicate_tool_call_id', 4],
          ['duplicate_tool_call_id', 5],
        ]);
      });

      it('a07 reports the first unanswered call of the batch', () => {
        const context = history(user('Go.'), call('call_a', 'call_b', 'call_c'), result('call_b'), say('Done.'));
        expect(checkPairing(context)).toEqual([expect.objectContaining({ kind: 'parallel_missing_result', index: 1, toolCallId: 'call_a' })]);
      });

      it('a parallel batch with no result at all is unmatched_tool_use, not parallel_missing_result', () => {
        expect(kinds(history(user('Go.'), call('call_a', 'call_b'), user('Hello?')))).toEqual(['unmatched_tool_use']);
      });

      it('a08 reports every early result, also when the context ends on the calls', () => {
        const context = history(user('Go.'), result('call_b'), result('call_a'), call('call_a', 'call_b'));
        expect(checkPairing(context).map((v) => [v.kind, v.toolCallId])).toEqual([
          ['parallel_wrong_order', 'call_b'],
          ['parallel_wrong_order', 'call_a'],
        ]);
      });
    });

    describe('valid contexts', () => {
      it.each([
        ['an empty context', EMPTY],
        ['a chat without tools', NO_TOOLS],
        ['sequential tool rounds (empty result included)', SEQUENTIAL_TOOLS],
        ['parallel calls answered in any order', PARALLEL_ANY_ORDER],
        ['a context ending on an assistant with calls (rule 2 exception)', ENDS_ON_CALLS],
        ['a context ending on complete parallel results', ENDS_ON_RESULTS],
        ['a lone system message', history(sys())],
      ] as const)('%s', (_name, context) => {
        expect(checkPairing(context)).toEqual([]);
      });

      it('every permutation of three parallel results is valid', () => {
        const ids = ['call_a', 'call_b', 'call_c'];
        const permutations = ids.flatMap((a) => ids.filter((b) => b !== a).map((b) => [a, b, ids.find((c) => c !== a && c !== b)!]));
        expect(permutations).toHaveLength(6);
        for (const order of permutations) {
          const context = history(user('Go.'), call(...ids), ...order.map((id) => result(id)), say('Done.'));
          expect(checkPairing(context), order.join(',')).toEqual([]);
        }
      });

      it('a masked result keeps its id and stays valid', () => {
        const masked = SEQUENTIAL_TOOLS.map((m) =>
          m.role === 'tool' ? withContent(m, '[output omitted]', strategyOrigin('masking', 'mask')) : m,
        );
        expect(checkPairing(masked)).toEqual([]);
      });
    });

    describe('context ending mid-batch', () => {
      it('partial parallel results at the end are not allowed', () => {
        expect(checkPairing(ENDS_ON_PARTIAL_PARALLEL_RESULTS)).toEqual([
          expect.objectContaining({ kind: 'parallel_missing_result', index: 2, toolCallId: 'call_a' }),
        ]);
      });

      it('an earlier unanswered call is still reported when the context ends on new calls', () => {
        expect(kinds(history(user('Go.'), call('call_a'), user('Next.'), call('call_b')))).toEqual(['unmatched_tool_use']);
      });
    });

    describe('regressions (misclassifications fixed in pairing.ts)', () => {
      it('a second result inside a batch whose calls are all answered is a duplicate, not two wrong ids', () => {
        // Was: wrong_tool_call_id at [3] and again at [4] for call_b, whose own result is fine.
        const context = history(user('Go.'), call('call_a', 'call_b'), result('call_a'), result('call_a'), result('call_b'));
        expect(checkPairing(context)).toEqual([expect.objectContaining({ kind: 'duplicate_tool_call_id', index: 3, toolCallId: 'call_a' })]);
      });

      it('an old id re-answered before the next batch\'s own result is a duplicate', () => {
        const context = history(user('Go.'), call('call_a'), result('call_a'), call('call_b'), result('call_a'), result('call_b'));
        expect(checkPairing(context)).toEqual([expect.objectContaining({ kind: 'duplicate_tool_call_id', index: 4, toolCallId: 'call_a' })]);
      });

      it('an interleaved batch with a sibling that is never answered reports both problems', () => {
        // Was: only interleaved_user_message; call_b's missing result went unreported.
        const context = history(user('Go.'), call('call_a', 'call_b'), user('Wait.'), result('call_a'));
        expect(kinds(context)).toEqual(['interleaved_user_message', 'parallel_missing_result']);
      });

      it('a08 followed by more conversation does not also report the calls as unanswered', () => {
        // Was: parallel_wrong_order twice plus unmatched_tool_use for the same two calls.
        expect(kinds(A08_RESULTS_BEFORE_CALLS)).toEqual(['parallel_wrong_order', 'parallel_wrong_order']);
      });

      it('a08 with only some results early still reports the missing one', () => {
        const context = history(user('Go.'), result('call_a'), call('call_a', 'call_b'), say('Done.'));
        expect(kinds(context)).toEqual(['parallel_wrong_order', 'parallel_missing_result']);
      });

      it('a result before its call and again after it: one violation for the early one', () => {
        const context = history(user('Go.'), result('call_a'), call('call_a'), result('call_a'), say('Done.'));
        expect(checkPairing(context)).toEqual([expect.objectContaining({ kind: 'parallel_wrong_order', index: 1 })]);
      });
    });

    describe('properties', () => {
      it('reports nothing exactly when a naive reading of rules 1-3 accepts the context (any message sequence)', () => {
        fc.assert(
          fc.property(anyContextArb, (context) => {
            const violations = checkPairing(context);
            expect(violations.length === 0, describeViolations(violations)).toBe(referenceValid(context));
            for (const v of violations) {
              expect(VIOLATION_KINDS).toContain(v.kind);
              expect(v.index).toBeGreaterThanOrEqual(0);
              expect(v.index).toBeLessThan(context.length);
            }
          }),
          { numRuns: 3000 },
        );
      });

      it('every generated well-formed history is valid', () => {
        fc.assert(
          fc.property(wellFormedArb, ({ messages }) => {
            expect(checkPairing(messages)).toEqual([]);
          }),
          { numRuns: 500 },
        );
      });

      it('deleting one tool result always yields a violation (unless the context then ends on its calls)', () => {
        fc.assert(
          fc.property(withToolResultsArb, fc.nat(), ({ messages }, pick) => {
            const toolIndices = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
            const victim = toolIndices[pick % toolIndices.length]!;
            const mutated = without(messages, victim);
            const last = mutated.at(-1);
            // Rule 2: the only result of a trailing assistant's single call may be still running.
            fc.pre(!(last?.role === 'assistant' && last.toolCalls.length > 0 && mutated.length === victim));
            expect(checkPairing(mutated).length).toBeGreaterThan(0);
          }),
          { numRuns: 500 },
        );
      });

      it('deleting an assistant message that has answered calls (keeping its results) always yields a violation', () => {
        fc.assert(
          fc.property(withToolResultsArb, fc.nat(), ({ messages }, pick) => {
            const callers = messages.flatMap((m, i) => (m.role === 'assistant' && m.toolCalls.length > 0 && messages[i + 1]?.role === 'tool' ? [i] : []));
            const victim = callers[pick % callers.length]!;
            const violations = checkPairing(without(messages, victim));
            expect(violations.length).toBeGreaterThan(0);
            expect(violations.map((v) => v.kind)).toContain('unmatched_tool_result');
          }),
          { numRuns: 500 },
        );
      });

      it('deleting a whole round (assistant with calls and all its results) keeps the history valid', () => {
        fc.assert(
          fc.property(withToolResultsArb, fc.nat(), ({ messages }, pick) => {
            const callers = messages.flatMap((m, i) => (m.role === 'assistant' && m.toolCalls.length > 0 && messages[i + 1]?.role === 'tool' ? [i] : []));
            const start = callers[pick % callers.length]!;
            let end = start + 1;
            while (messages[end]?.role === 'tool') end++;
            const mutated = [...messages.slice(0, start), ...messages.slice(end)];
            expect(checkPairing(mutated)).toEqual([]);
          }),
          { numRuns: 300 },
        );
      });

      it('swapping a tool result ahead of its assistant always yields a violation', () => {
        fc.assert(
          fc.property(withToolResultsArb, fc.nat(), ({ messages }, pick) => {
            const callers = messages.flatMap((m, i) => (m.role === 'assistant' && m.toolCalls.length > 0 && messages[i + 1]?.role === 'tool' ? [i] : []));
            const at = callers[pick % callers.length]!;
            const mutated = [...messages];
            [mutated[at], mutated[at + 1]] = [mutated[at + 1]!, mutated[at]!];
            expect(kinds(mutated)).toContain('parallel_wrong_order');
          }),
          { numRuns: 300 },
        );
      });
    });
  });

  describe('createPairingGuard', () => {
    /** How the next context is made from a history and the last context (what strategies do). */
    const stepArb = fc.oneof(
      fc.record({ op: fc.constant('grow' as const), by: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ op: fc.constant('mask' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('swap' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('other' as const), context: anyContextArb }),
      fc.record({ op: fc.constant('history' as const), by: fc.integer({ min: 0, max: 4 }) }),
    );

    it("answers exactly checkPairing's verdict on every context of a sequence, valid or not", () => {
      fc.assert(
        fc.property(fc.oneof(wellFormedMessagesArb, anyContextArb), fc.array(fc.tuple(stepArb, fc.boolean()), { maxLength: 25 }), (recorded, steps) => {
          const guard = createPairingGuard();
          let context: readonly Message[] = [];
          const shared = appendOnlyCopy([]); // the replay's history: only ever appended to
          for (const [step, request] of steps) {
            if (step.op === 'grow') context = [...context, ...recorded.slice(context.length, context.length + step.by)];
            else if (step.op === 'mask' && context.length > 0) {
              const at = step.at % context.length;
              context = context.map((m, i) => (i === at ? withContent(m, 'masked', strategyOrigin('masking', 'masked')) : m));
            } else if (step.op === 'cut') context = context.slice(0, step.at % (context.length + 1));
            else if (step.op === 'drop' && context.length > 0) context = context.filter((_, i) => i !== step.at % context.length);
            else if (step.op === 'swap' && context.length > 1) {
              const at = step.at % (context.length - 1);
              context = [...context.slice(0, at), context[at + 1]!, context[at]!, ...context.slice(at + 2)];
            } else if (step.op === 'other') context = step.context;
            else if (step.op === 'history') {
              shared.push(...recorded.slice(shared.length, shared.length + step.by));
              context = shared;
            }
            expect(guard(context, { request })).toEqual(checkPairing(context, { request }));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('goes on from the last context when the new one extends it, even with contents replaced', () => {
      const guard = createPairingGuard();
      const full = history(sys(), user('Fix it.'), call('c1'), result('c1'), call('c2', 'c3'), result('c3'), result('c2'), say('Done.'));
      expect(guard(full.slice(0, 4), { request: true })).toEqual([]);
      const masked = [...full.slice(0, 3), withContent(full[3]!, '[masked]', strategyOrigin('masking', 'masked')), ...full.slice(4)];
      expect(guard(masked, { request: true })).toEqual([]);
      expect(guard([...masked, result('c1')('m8')], { request: true }).map((v) => v.kind)).toEqual(['duplicate_tool_call_id']);
    });
  });

  describe('checkOrder', () => {
    const HISTORY = history(sys(), user('Fix the bug.'), call('call_1'), result('call_1'), say('Looking.'), user('Also add a test.'), say('Done.'));
    const [SYSTEM, TASK, CALL, RESULT, LOOKING, FOLLOW_UP, DONE] = HISTORY as [Message, Message, Message, Message, Message, Message, Message];
    const SUMMARY = userMessage({ id: 'summary-1', content: 'Summary of earlier work.', origin: strategyOrigin('summarize', 'insert') });

    it('accepts the history itself', () => {
      expect(checkOrder(HISTORY, HISTORY)).toBeUndefined();
    });

    it('accepts an empty context for a history without a system prompt', () => {
      expect(checkOrder(history(user('Hi.')), [])).toBeUndefined();
    });

    it('accepts dropping messages', () => {
      expect(checkOrder(HISTORY, [SYSTEM, TASK, FOLLOW_UP, DONE])).toBeUndefined();
      expect(checkOrder(HISTORY, [SYSTEM])).toBeUndefined();
    });

    it('accepts edited messages (same id, strategy origin)', () => {
      const masked = withContent(RESULT, '[output omitted]', strategyOrigin('masking', 'mask'));
      const editedPrompt = withContent(SYSTEM, 'A shorter prompt.', strategyOrigin('trim', 'edit'));
      expect(checkOrder(HISTORY, [editedPrompt, TASK, CALL, masked, LOOKING, FOLLOW_UP, DONE])).toBeUndefined();
    });

    it('accepts inserted strategy messages anywhere', () => {
      expect(checkOrder(HISTORY, [SYSTEM, SUMMARY, FOLLOW_UP, DONE])).toBeUndefined();
      expect(checkOrder(HISTORY, [SYSTEM, TASK, CALL, RESULT, LOOKING, FOLLOW_UP, DONE, SUMMARY])).toBeUndefined();
    });

    it('rejects reordered messages', () => {
      expect(checkOrder(HISTORY, [SYSTEM, FOLLOW_UP, TASK])).toMatch(/out of history order/);
    });

    it('rejects an edited message moved out of order', () => {
      const edited = withContent(FOLLOW_UP, 'Also add two tests.', strategyOrigin('rewrite', 'edit'));
      expect(checkOrder(HISTORY, [SYSTEM, edited, TASK])).toMatch(/context\[1\] \(m5\)|context\[2\] \(m1\)/);
    });

    it('rejects a message repeated', () => {
      expect(checkOrder(HISTORY, [SYSTEM, TASK, TASK])).toMatch(/out of history order/);
    });

    it('rejects a scenario message that is not in the history', () => {
      const stranger = userMessage({ id: 'elsewhere', content: 'from another scenario' });
      expect(checkOrder(HISTORY, [SYSTEM, stranger])).toMatch(/not in the history/);
    });

    it('rejects losing the first system message', () => {
      expect(checkOrder(HISTORY, [TASK, CALL, RESULT])).toBe('the system prompt is not first');
      expect(checkOrder(HISTORY, [])).toBe('the system prompt is not first');
    });

    it('rejects an inserted message in front of the system prompt', () => {
      expect(checkOrder(HISTORY, [SUMMARY, SYSTEM, TASK])).toBe('the system prompt is not first');
    });

    it('regression: a different system message in front does not stand in for the dropped prompt', () => {
      // Was accepted: only the role of context[0] was checked.
      const summaryAsSystem = systemMessage({ id: 'summary-2', content: 'Summary.', origin: strategyOrigin('summarize', 'insert') });
      expect(checkOrder(HISTORY, [summaryAsSystem, FOLLOW_UP, DONE])).toBe('the system prompt is not first');
    });

    it('property: any subsequence of the history, with insertions, is in order; a swap is not', () => {
      fc.assert(
        fc.property(wellFormedArb, fc.array(fc.boolean(), { maxLength: 60 }), fc.nat(), ({ messages }, keep, pick) => {
          const kept = messages.filter((m, i) => (i === 0 && m.role === 'system') || keep[i] !== false);
          const withInsert = [...kept];
          withInsert.splice(Math.min(kept.length, 1 + (pick % (kept.length + 1))), 0, SUMMARY);
          expect(checkOrder(messages, kept)).toBeUndefined();
          expect(checkOrder(messages, withInsert)).toBeUndefined();
          if (kept.length >= 2) {
            const i = pick % (kept.length - 1);
            const swapped = [...kept];
            [swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!];
            expect(checkOrder(messages, swapped)).toBeDefined();
          }
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('describeViolations', () => {
    it('writes one "kind at [index]: detail" entry per violation', () => {
      const text = describeViolations(checkPairing(A01_CALL_THEN_USER));
      expect(text).toBe('unmatched_tool_use at [2]: call call_a has no result');
      expect(describeViolations(checkPairing(A08_RESULTS_BEFORE_CALLS)).split('; ')).toHaveLength(2);
    });

    it('is empty for no violations', () => {
      expect(describeViolations([])).toBe('');
    });
  });
});
