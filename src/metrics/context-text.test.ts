import { describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage } from '../core/messages.js';
import { mentions, searchableText } from './context-text.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures.
// ---------------------------------------------------------------------------------------------------

const SYSTEM = systemMessage({ id: 'm0000', content: 'You are an agent.' });
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
/** Two neighbours: 'abc' then 'def' must not read as 'abcdef'. */
const SPLIT_LEFT = userMessage({ id: 'm0004', content: 'abc' });
const SPLIT_RIGHT = userMessage({ id: 'm0005', content: 'def' });

describe('context-text', () => {
  describe('searchableText', () => {
    it('holds every content and every call argument, one per line, in order', () => {
      expect(searchableText([SYSTEM, TASK, TWO_CALLS, RESULT])).toBe(
        ['You are an agent.', 'Fix src/app.py', 'Looking.', '{"command":"cat src/app.py"}', '{"command":"ls"}', 'print(1)'].join('\n'),
      );
    });

    it('is empty for an empty context', () => {
      expect(searchableText([])).toBe('');
    });

    it('keeps messages apart: a string never spans two of them', () => {
      expect(searchableText([SPLIT_LEFT, SPLIT_RIGHT]).includes('abcdef')).toBe(false);
    });
  });

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
