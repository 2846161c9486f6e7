import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, history, result, say, sys, user, wellFormedMessagesArb as wellFormedArb } from '../../test/helpers/drafts.js';
import { cycles, headEnd, recentStart, rounds, seenToolRounds, tailStart, turns, unseenFrom, withoutPendingCalls, type Span } from './cut-points.js';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from './messages.js';
import { checkPairing } from './pairing.js';
import { charsPerFour, counterFrom } from './tokens.js';

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

describe('cut points', () => {
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

  describe('turns', () => {
    it('starts a turn at every assistant message; what precedes the first is a turn of its own', () => {
      expect(turns(CHAT_WITH_TOOLS)).toEqual([
        { start: 0, end: 2 },
        { start: 2, end: 4 },
        { start: 4, end: 6 },
        { start: 6, end: 9 },
        { start: 9, end: 10 },
      ]);
      expect(turns(CHAT_WITH_TOOLS, 4)).toEqual(turns(CHAT_WITH_TOOLS).slice(2));
      expect(turns(CHAT_WITH_TOOLS, 10)).toEqual([]);
    });

    it('property: covers messages[from..] exactly, and turn boundaries are round boundaries in a well-formed history', () => {
      fc.assert(
        fc.property(wellFormedArb, fc.nat(5), (messages, from) => {
          const start = Math.min(from, messages.length);
          expectExactCover(turns(messages, start), start, messages.length);
          const roundStarts = new Set(rounds(messages).map((r) => r.start));
          for (const turn of turns(messages).slice(1)) expect(roundStarts.has(turn.start)).toBe(true);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('unseenFrom', () => {
    it('is the index after the latest assistant message', () => {
      expect(unseenFrom(CHAT_WITH_TOOLS)).toBe(10);
      expect(unseenFrom(SWE_STYLE)).toBe(8);
      expect(unseenFrom(CHAT_WITH_TOOLS.slice(0, 8))).toBe(7); // the parallel results: unseen
      expect(unseenFrom([])).toBe(0);
    });
  });

  describe('headEnd', () => {
    it('extends a head to the end of the round it falls in', () => {
      expect(headEnd(CHAT_WITH_TOOLS, 2)).toBe(2);
      expect(headEnd(CHAT_WITH_TOOLS, 5)).toBe(6); // message 4 calls, 5 answers: the round ends at 6
      expect(headEnd(CHAT_WITH_TOOLS, 7)).toBe(9);
      expect(headEnd(CHAT_WITH_TOOLS, 99)).toBe(10);
      expect(headEnd([], 2)).toBe(0);
    });
  });

  describe('tailStart', () => {
    const counter = counterFrom('chars4', charsPerFour);
    const cost = (messages: readonly Message[], from: number): number => messages.slice(from).reduce((n, m) => n + counter.countMessage(m), 0);

    it('keeps the most recent whole rounds within the budget', () => {
      const all = cost(CHAT_WITH_TOOLS, 0);
      expect(tailStart(CHAT_WITH_TOOLS, counter, { budget: all })).toBe(0);
      expect(tailStart(CHAT_WITH_TOOLS, counter, { budget: cost(CHAT_WITH_TOOLS, 6) })).toBe(6);
      expect(tailStart(CHAT_WITH_TOOLS, counter, { budget: cost(CHAT_WITH_TOOLS, 6) - 1 })).toBe(9);
    });

    it('always keeps the latest round, over the budget if need be', () => {
      expect(tailStart(SWE_STYLE, counter, { budget: 0 })).toBe(7);
      expect(tailStart(CHAT_WITH_TOOLS.slice(0, 9), counter, { budget: 0, maxMessages: 1 })).toBe(6);
    });

    it('holds at most maxMessages, and never starts before from', () => {
      expect(tailStart(CHAT_WITH_TOOLS, counter, { budget: Infinity, maxMessages: 4 })).toBe(6);
      expect(tailStart(CHAT_WITH_TOOLS, counter, { budget: Infinity, from: 3 })).toBe(3);
    });

    it('property: the longest suffix of whole rounds within the limits (the latest round whatever they say)', () => {
      fc.assert(
        fc.property(wellFormedArb, fc.nat(400), fc.nat(12), fc.nat(4), (messages, budget, maxMessages, from) => {
          fc.pre(from < messages.length);
          const start = tailStart(messages, counter, { budget, maxMessages, from });
          const starts = rounds(messages, from).map((r) => r.start);
          expect(starts).toContain(start);
          const fits = (s: number): boolean => cost(messages, s) <= budget && messages.length - s <= maxMessages;
          const latest = starts.at(-1)!;
          // Every round from `start` on is kept, and the next older round would break a limit.
          expect(start === latest || fits(start)).toBe(true);
          const older = starts.filter((s) => s < start).at(-1);
          if (older !== undefined) expect(fits(older)).toBe(false);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('recentStart', () => {
    it('moves a cut that falls inside a round back to the round start', () => {
      expect(recentStart(CHAT_WITH_TOOLS, 3)).toBe(6); // 10 - 3 = 7 is a parallel result
      expect(recentStart(CHAT_WITH_TOOLS, 4)).toBe(6);
      expect(recentStart(CHAT_WITH_TOOLS, 99, 2)).toBe(2);
    });

    it('property: never starts on a tool result, keeps at least `keep` (or all after `from`), and never before `from`', () => {
      fc.assert(
        fc.property(wellFormedArb, fc.nat(20), fc.nat(4), (messages, keep, from) => {
          fc.pre(from <= messages.length);
          const start = recentStart(messages, keep, from);
          expect(start).toBeGreaterThanOrEqual(from);
          expect(messages.length - start).toBeGreaterThanOrEqual(Math.min(keep, messages.length - from));
          if (start > from && start < messages.length) expect(messages[start]!.role).not.toBe('tool');
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('seenToolRounds', () => {
    it("is every tool round but the latest assistant turn's", () => {
      expect(seenToolRounds(CHAT_WITH_TOOLS)).toEqual([
        { start: 4, end: 6 },
        { start: 6, end: 9 },
      ]);
      expect(seenToolRounds(SWE_STYLE)).toEqual([
        { start: 2, end: 4 },
        { start: 4, end: 7 },
      ]);
    });

    it('property: dropping any of them keeps a well-formed history well paired, and the unseen results stay', () => {
      fc.assert(
        fc.property(wellFormedArb, (messages) => {
          const spans = seenToolRounds(messages);
          const dropped = new Set(spans.flatMap((s) => messages.slice(s.start, s.end)));
          const kept = messages.filter((m) => !dropped.has(m));
          expect(checkPairing(kept)).toEqual([]);
          for (const m of messages.slice(unseenFrom(messages))) expect(kept).toContain(m);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('withoutPendingCalls', () => {
    it('drops a trailing assistant whose calls are not answered yet, and nothing else', () => {
      const pending = history(sys(), user('Go.'), call('call_1'));
      expect(withoutPendingCalls(pending)).toEqual(pending.slice(0, 2));
      expect(withoutPendingCalls(CHAT_WITH_TOOLS)).toBe(CHAT_WITH_TOOLS);
      expect(withoutPendingCalls([])).toEqual([]);
    });
  });
});
