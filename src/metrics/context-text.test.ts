import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textMessage } from '../../test/helpers/text-messages.js';
import { assistantMessage, toolMessage, userMessage } from '../core/messages.js';
import { mentions, mentionsIndex } from './context-text.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures.
// ---------------------------------------------------------------------------------------------------

const TASK = userMessage({ id: 'm0001', content: 'Fix src/app.py' });
const TWO_CALLS = assistantMessage({
  id: 'm0002',
  content: 'Looking.',
  toolCalls: [
    { id: 'c1', name: 'bash', arguments: '{"command":"cat src/app.py"}' },
    { id: 'c2', name: 'bash', arguments: '{"command":"ls"}' },
  ],
});
const RESULT = toolMessage({ id: 'm0003', toolCallId: 'c1', name: 'bash', content: 'print(1)' });

describe('context-text', () => {
  describe('mentions', () => {
    it('finds text in content', () => {
      expect(mentions(TASK, 'src/app.py')).toBe(true);
    });

    it("finds text in an assistant's call arguments, any call", () => {
      expect(mentions(TWO_CALLS, 'cat src/app.py')).toBe(true);
      expect(mentions(TWO_CALLS, '"ls"')).toBe(true);
    });

    it('does not find what is not there', () => {
      expect(mentions(RESULT, 'src/app.py')).toBe(false);
      expect(mentions(TWO_CALLS, 'pwd')).toBe(false);
    });
  });

  describe('mentionsIndex', () => {
    it('property: answers what mentions answers, for the strings it indexed and any other', () => {
      const unit = fc.constantFrom('a', 'b', '/', '1', '"');
      const message = textMessage(unit, 10);
      fc.assert(
        fc.property(fc.array(fc.string({ unit, maxLength: 3 }), { maxLength: 6 }), fc.array(message, { minLength: 1, maxLength: 5 }), fc.array(fc.string({ unit, maxLength: 3 }), { maxLength: 4 }), (all, messages, others) => {
          const mentionedIn = mentionsIndex(all);
          // Asked twice: the second answer comes from what the message was found to hold.
          for (let round = 0; round < 2; round++) for (const m of messages) for (const t of [...all, ...others]) expect(mentionedIn(m, t)).toBe(mentions(m, t));
        }),
        { numRuns: 300 },
      );
    });
  });
});
