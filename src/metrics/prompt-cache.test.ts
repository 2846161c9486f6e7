import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistantMessage, strategyOrigin, systemMessage, toolMessage, userMessage, withContent, type Message } from '../core/messages.js';
import { charsPerFour, counterFrom, PER_CONTEXT_TOKENS, type TokenCounter } from '../core/tokens.js';
import { sharedPrefixLength, sharedPrefixTokens } from './prompt-cache.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures. Counted with chars/4: a message costs 3 of framing + ceil(chars / 4); a tool call
// 3 + its name + its arguments.
// ---------------------------------------------------------------------------------------------------

const SYSTEM = systemMessage({ id: 'm0000', content: 'x'.repeat(40) }); // 3 + 10 = 13
const TASK = userMessage({ id: 'm0001', content: 'y'.repeat(20) }); // 3 + 5 = 8
const CALL = assistantMessage({ id: 'm0002', content: '', toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }] }); // 3 + 0 + (3 + 1 + 4) = 11
const RESULT = toolMessage({ id: 'm0003', toolCallId: 'call_1', name: 'bash', content: 'z'.repeat(100) }); // 3 + 25 = 28
const NEXT_CALL = assistantMessage({ id: 'm0004', content: 'w'.repeat(8), toolCalls: [{ id: 'call_2', name: 'bash', arguments: '{"command":"pwd"}' }] }); // 3 + 2 + (3 + 1 + 5) = 14
const NEXT_RESULT = toolMessage({ id: 'm0005', toolCallId: 'call_2', name: 'bash', content: '/repo' }); // 3 + 2 = 5
const MASKED = withContent(RESULT, '[masked]', strategyOrigin('masking', 'masked')); // 3 + 2 = 5
/** Equal in every field to SYSTEM, but another object (what a strategy that rebuilds messages sends). */
const SYSTEM_COPY = systemMessage({ id: SYSTEM.id, content: SYSTEM.content });

const STEP_0 = [SYSTEM, TASK] as const; // 21
const STEP_1 = [SYSTEM, TASK, CALL, RESULT] as const; // 60
const STEP_2 = [SYSTEM, TASK, CALL, RESULT, NEXT_CALL, NEXT_RESULT] as const; // 79
const STEP_2_MASKED = [SYSTEM, TASK, CALL, MASKED, NEXT_CALL, NEXT_RESULT] as const;

const chars4 = (): TokenCounter => counterFrom('chars4', charsPerFour);

describe('prompt-cache', () => {
  describe('sharedPrefixTokens', () => {
    it('fixture sizes are as annotated', () => {
      const counter = chars4();
      expect([SYSTEM, TASK, CALL, RESULT, NEXT_CALL, NEXT_RESULT, MASKED].map((m) => counter.countMessage(m))).toEqual([13, 8, 11, 28, 14, 5, 5]);
    });

    it('a new session (no previous request) has nothing cached', () => {
      expect(sharedPrefixTokens(undefined, STEP_1, chars4())).toBe(0);
    });

    it('an append-only history caches the whole previous request', () => {
      const counter = chars4();
      expect(sharedPrefixTokens(STEP_0, STEP_1, counter)).toBe(13 + 8);
      expect(sharedPrefixTokens(STEP_1, STEP_2, counter)).toBe(13 + 8 + 11 + 28);
    });

    it('the same request again is all cached, without the per-request priming', () => {
      const counter = chars4();
      expect(sharedPrefixTokens(STEP_1, STEP_1, counter)).toBe(60);
      expect(counter.countContext(STEP_1)).toBe(60 + PER_CONTEXT_TOKENS);
    });

    it('an edit breaks the prefix from the edited message on, even where later messages are the same objects', () => {
      // STEP_2 then STEP_2_MASKED: SYSTEM, TASK, CALL shared; MASKED differs; NEXT_* do not count.
      expect(sharedPrefixTokens(STEP_2, STEP_2_MASKED, chars4())).toBe(13 + 8 + 11);
      // Masking while appending: STEP_1 -> STEP_2_MASKED
      expect(sharedPrefixTokens(STEP_1, STEP_2_MASKED, chars4())).toBe(13 + 8 + 11);
    });

    it('compares by identity: an equal copy is a new message', () => {
      expect(sharedPrefixTokens(STEP_1, [SYSTEM_COPY, TASK, CALL, RESULT], chars4())).toBe(0);
    });

    it('a shorter request (messages dropped at the end, a restart keeping the prompt) shares what it keeps', () => {
      expect(sharedPrefixTokens(STEP_2, STEP_0, chars4())).toBe(21);
      expect(sharedPrefixTokens(STEP_2, [SYSTEM], chars4())).toBe(13);
      expect(sharedPrefixTokens(STEP_2, [], chars4())).toBe(0);
    });

    it('dropping a middle message breaks the prefix there', () => {
      expect(sharedPrefixTokens(STEP_2, [SYSTEM, TASK, NEXT_CALL, NEXT_RESULT], chars4())).toBe(21);
    });

    it('tokenizes nothing it has counted before (the counter caches per message object)', () => {
      const counter = chars4();
      counter.countContext(STEP_2);
      const before = counter.stats.texts;
      sharedPrefixTokens(STEP_1, STEP_2, counter);
      expect(counter.stats.texts).toBe(before);
    });

    it('is symmetric, never more than the next request, and the prefix is exactly what matches', () => {
      const pool: readonly Message[] = [SYSTEM, SYSTEM_COPY, TASK, CALL, RESULT, MASKED, NEXT_CALL, NEXT_RESULT];
      const request = fc.array(fc.constantFrom(...pool), { maxLength: 8 });
      fc.assert(
        fc.property(request, request, (a, b) => {
          const counter = chars4();
          const shared = sharedPrefixTokens(a, b, counter);
          const n = sharedPrefixLength(a, b);
          expect(shared).toBe(sharedPrefixTokens(b, a, counter));
          expect(sharedPrefixTokens(a, b, counter, counter.countContext(b))).toBe(shared);
          expect(shared).toBeLessThanOrEqual(counter.countContext(b) - PER_CONTEXT_TOKENS);
          expect(a.slice(0, n).every((m, i) => m === b[i])).toBe(true);
          if (n < Math.min(a.length, b.length)) expect(a[n]).not.toBe(b[n]);
        }),
      );
    });
  });

  describe('sharedPrefixLength', () => {
    it('counts the leading messages that are the same objects', () => {
      expect(sharedPrefixLength(undefined, STEP_1)).toBe(0);
      expect(sharedPrefixLength(STEP_1, STEP_2)).toBe(4);
      expect(sharedPrefixLength(STEP_2, STEP_2_MASKED)).toBe(3);
      expect(sharedPrefixLength([], STEP_2)).toBe(0);
    });
  });
});
