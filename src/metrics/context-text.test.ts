import { describe, expect, it } from 'vitest';
import { assistantMessage, toolMessage, userMessage } from '../core/messages.js';
import { mentions } from './context-text.js';

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
});
