import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, history, result, say, sys, user, wellFormedMessagesArb as wellFormedArb } from '../../test/helpers/drafts.js';
import { cycles, rounds, type Span } from './cut-points.js';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from './messages.js';
import { checkPairing } from './pairing.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures.
// ---------------------------------------------------------------------------------------------------

/** Two complete cycles, the second with a sequential and a parallel tool round. */
const CHAT_WITH_TOOLS = history(
  sys(), //                       0
  user('Hi.'), //                 1
  say('Hello! What is up?'), //   2
  user('Fix the bug.'), //        3
  call('call_1'), //              4
  result('call_1'), //            5
  call('call_2', 'call_3'), //    6
  result('call_3'), //            7
  result('call_2'), //            8
  say('Fixed.'), //               9
);

/** A chat of three completed cycles, no tools. */
const CHAT_COMPLETED = history(user('Hi.'), say('Hello.'), user('How are you?'), say('Fine.'), user('Bye.'), say('Bye!'));

/** SWE-style: one task, then only tool rounds; the agent has not answered in text yet. */
const SWE_STYLE = history(
  sys(),
  user('Resolve the issue in the repository.'),
  call('call_1'),
  result('call_1'),
  call('call_2', 'call_3'),
  result('call_2'),
  result('call_3'),
  call('call_4'),
  result('call_4'),
);

/** The user interrupts the tool loop, then a system reminder and a user message arrive together. */
const INTERRUPTED = history(
  sys(), //                       0
  user('Run the tests.'), //      1
  call('call_1'), //              2
  result('call_1'), //            3
  user('Stop, run lint.'), //     4
  call('call_2'), //              5
  result('call_2'), //            6
  say('Lint is clean.'), //       7
  sys('Reminder: be brief.'), //  8
  user('Thanks.'), //             9
  say('Welcome.'), //             10
);

// ---------------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------------

/** Any sequence of roles, well-formed or not. */
const anyMessagesArb: fc.Arbitrary<Message[]> = fc
  .array(fc.constantFrom('system', 'user', 'text', 'calls', 'tool'), { maxLength: 30 })
  .map((roles) =>
    roles.map((role, i): Message => {
      const id = `m${i}`;
      if (role === 'system') return systemMessage({ id, content: '' });
      if (role === 'user') return userMessage({ id, content: 'u' });
      if (role === 'text') return assistantMessage({ id, content: 'a' });
      if (role === 'calls') return assistantMessage({ id, content: '', toolCalls: [{ id: `c${i}`, name: 'f', arguments: '{}' }] });
      return toolMessage({ id, toolCallId: `c${i - 1}`, name: 'f', content: 'r' });
    }),
  );

/** Spans are non-empty, contiguous and cover [from, length) exactly. */
function expectExactCover(spans: readonly Span[], from: number, length: number): void {
  if (from >= length) {
    expect(spans).toEqual([]);
    return;
  }
  expect(spans[0]?.start).toBe(from);
  expect(spans.at(-1)?.end).toBe(length);
  spans.forEach((span, i) => {
    expect(span.end).toBeGreaterThan(span.start);
    if (i > 0) expect(span.start).toBe(spans[i - 1]!.end);
  });
}

// ---------------------------------------------------------------------------------------------------

describe('boundaries', () => {
  describe('rounds', () => {
    it('is empty for no messages', () => {
      expect(rounds([])).toEqual([]);
    });

    it('groups each assistant with its results; every other message is a round of its own', () => {
      expect(rounds(CHAT_WITH_TOOLS)).toEqual([
        { start: 0, end: 1 },
        { start: 1, end: 2 },
        { start: 2, end: 3 },
        { start: 3, end: 4 },
        { start: 4, end: 6 },
        { start: 6, end: 9 },
        { start: 9, end: 10 },
      ]);
    });

    it('keeps an assistant with running calls (no results yet) as its own round', () => {
      expect(rounds(history(user('Go.'), call('call_1')))).toEqual([
        { start: 0, end: 1 },
        { start: 1, end: 2 },
      ]);
    });

    describe('from', () => {
      it('splits only messages[from..]', () => {
        expect(rounds(CHAT_WITH_TOOLS, 4)).toEqual([
          { start: 4, end: 6 },
          { start: 6, end: 9 },
          { start: 9, end: 10 },
        ]);
      });

      it('is empty when from is at or past the end', () => {
        expect(rounds(CHAT_WITH_TOOLS, CHAT_WITH_TOOLS.length)).toEqual([]);
        expect(rounds(CHAT_WITH_TOOLS, 99)).toEqual([]);
      });

      it('starting inside a round, the partial round is the first span (the only span that may start on a tool)', () => {
        expect(rounds(CHAT_WITH_TOOLS, 7)).toEqual([
          { start: 7, end: 9 },
          { start: 9, end: 10 },
        ]);
      });
    });

    describe('properties', () => {
      it('covers the input exactly and never starts a span on a tool message (any message sequence, any from)', () => {
        fc.assert(
          fc.property(anyMessagesArb, fc.nat(35), (messages, from) => {
            const spans = rounds(messages, from);
            expectExactCover(spans, from, messages.length);
            spans.forEach((span, i) => {
              if (i > 0 || messages[from]?.role !== 'tool') expect(messages[span.start]!.role).not.toBe('tool');
            });
          }),
          { numRuns: 500 },
        );
      });

      it('a well-formed history: no span starts on a tool message, and every result is in its call\'s round', () => {
        fc.assert(
          fc.property(wellFormedArb, (messages) => {
            const spans = rounds(messages);
            expectExactCover(spans, 0, messages.length);
            const roundOf = new Map<string, Span>();
            for (const span of spans) {
              expect(messages[span.start]!.role).not.toBe('tool');
              for (let i = span.start; i < span.end; i++) {
                const m = messages[i]!;
                if (m.role === 'assistant') m.toolCalls.forEach((c) => roundOf.set(c.id, span));
                if (m.role === 'tool') expect(roundOf.get(m.toolCallId)).toBe(span);
              }
            }
          }),
          { numRuns: 300 },
        );
      });

      it('dropping any set of whole rounds from a well-formed history keeps the pairing valid', () => {
        fc.assert(
          fc.property(wellFormedArb, fc.array(fc.boolean(), { maxLength: 40 }), (messages, keep) => {
            expect(checkPairing(messages)).toEqual([]);
            const kept = rounds(messages)
              .filter((_, i) => keep[i] !== false)
              .flatMap((span) => messages.slice(span.start, span.end));
            expect(checkPairing(kept)).toEqual([]);
          }),
          { numRuns: 300 },
        );
      });
    });
  });

  describe('cycles', () => {
    it('is empty for no messages', () => {
      expect(cycles([])).toEqual([]);
    });

    it('splits a chat into completed cycles', () => {
      expect(cycles(CHAT_COMPLETED)).toEqual([
        { start: 0, end: 2, complete: true },
        { start: 2, end: 4, complete: true },
        { start: 4, end: 6, complete: true },
      ]);
    });

    it('a cycle runs through every tool round to the next assistant text', () => {
      expect(cycles(CHAT_WITH_TOOLS)).toEqual([
        { start: 0, end: 3, complete: true },
        { start: 3, end: 10, complete: true },
      ]);
    });

    it('an SWE-style history (one task, then only tool rounds) is one incomplete cycle', () => {
      expect(cycles(SWE_STYLE)).toEqual([{ start: 0, end: SWE_STYLE.length, complete: false }]);
    });

    it('the last cycle is incomplete while the user waits', () => {
      expect(cycles(history(user('Hi.'), say('Hello.'), user('And now?')))).toEqual([
        { start: 0, end: 2, complete: true },
        { start: 2, end: 3, complete: false },
      ]);
    });

    describe('consecutive system and user messages', () => {
      it('regression: a system prompt followed by the task opens one cycle, not two', () => {
        // Was: [{0,1,incomplete}, {1,3,complete}] — the system prompt alone counted as an interaction.
        expect(cycles(history(sys(), user('Hi.'), say('Hello.')))).toEqual([{ start: 0, end: 3, complete: true }]);
      });

      it('two user messages in a row are one cycle', () => {
        expect(cycles(history(user('Hi.'), user('Are you there?'), say('Yes.')))).toEqual([{ start: 0, end: 3, complete: true }]);
      });

      it('a user interruption after tool results starts a new cycle; a reminder plus a user message start one together', () => {
        expect(cycles(INTERRUPTED)).toEqual([
          { start: 0, end: 4, complete: false },
          { start: 4, end: 8, complete: true },
          { start: 8, end: 11, complete: true },
        ]);
      });
    });

    describe('from', () => {
      it('messages before the first user/system message form a cycle of their own', () => {
        expect(cycles(CHAT_WITH_TOOLS, 6)).toEqual([{ start: 6, end: 10, complete: true }]);
        expect(cycles(INTERRUPTED, 2)).toEqual([
          { start: 2, end: 4, complete: false },
          { start: 4, end: 8, complete: true },
          { start: 8, end: 11, complete: true },
        ]);
      });

      it('is empty when from is at or past the end', () => {
        expect(cycles(CHAT_WITH_TOOLS, CHAT_WITH_TOOLS.length)).toEqual([]);
        expect(cycles(CHAT_WITH_TOOLS, 99)).toEqual([]);
      });
    });

    describe('properties', () => {
      it('covers the input exactly; later cycles start on user/system; complete = last assistant has no calls', () => {
        fc.assert(
          fc.property(anyMessagesArb, fc.nat(35), (messages, from) => {
            const spans = cycles(messages, from);
            expectExactCover(spans, from, messages.length);
            spans.forEach((span, i) => {
              const first = messages[span.start]!;
              if (i > 0) expect(['user', 'system']).toContain(first.role);
              const lastAssistant = messages.slice(span.start, span.end).findLast((m) => m.role === 'assistant');
              expect(span.complete).toBe(lastAssistant?.role === 'assistant' && lastAssistant.toolCalls.length === 0);
              // A cycle that opens on a user/system message holds an answer before the next cycle opens.
              if (i < spans.length - 1) {
                expect(messages.slice(span.start, span.end).some((m) => m.role === 'assistant' || m.role === 'tool')).toBe(true);
              }
            });
          }),
          { numRuns: 500 },
        );
      });

      it('cycle boundaries are round boundaries in a well-formed history', () => {
        fc.assert(
          fc.property(wellFormedArb, (messages) => {
            const roundStarts = new Set(rounds(messages).map((r) => r.start));
            for (const cycle of cycles(messages)) expect(roundStarts.has(cycle.start)).toBe(true);
          }),
          { numRuns: 300 },
        );
      });
    });
  });
});
