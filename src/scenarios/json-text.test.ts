import { describe, expect, it } from 'vitest';
import { anthropicMessages } from './importers/anthropic-messages.js';
import { openaiChat } from './importers/openai-chat.js';
import { jsonText } from './json-text.js';
import { parseScenario } from './scenario.js';

/** Arguments nested 5,000 levels deep: a 30 KB file, past JSON.stringify's recursion. */
const deep = (): unknown => JSON.parse(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`);

// Regression: RangeError: Maximum call stack size exceeded, a stack trace and exit 2, in import, validate and run.
describe('tool call arguments nested too deeply', () => {
  it('are refused in one line naming the file and field, native or imported', async () => {
    expect(jsonText({ a: [1] }, 'x.json', 'f')).toBe('{"a":[1]}');
    const call = (args: unknown) => [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'f', arguments: args }] },
      { role: 'tool', toolCallId: 'c1', content: 'ok' },
      { role: 'assistant', content: 'done' },
    ];
    expect(() => parseScenario({ ctxbench: 1, id: 'x', model: { name: 'm' }, messages: call(deep()) }, 'x.json')).toThrow(
      'x.json: messages[1].toolCalls[0].arguments: nested too deeply to write as JSON text',
    );
    const chat = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: deep() } }] }];
    await expect(openaiChat.convert(chat, 'x.json')).rejects.toThrow('x.json: [1].tool_calls[0].function.arguments: nested too deeply to write as JSON text');
    const body = { system: 's', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'f', input: deep() }] }] };
    await expect(anthropicMessages.convert(body, 'x.json')).rejects.toThrow('x.json: messages[1].content[0].input: nested too deeply to write as JSON text');
  });
});
