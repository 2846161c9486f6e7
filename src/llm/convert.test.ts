import { describe, expect, it } from 'vitest';
import type { Message as OllamaMessage } from 'ollama';
import { assistantMessage, systemMessage, toolMessage, userMessage, type AssistantMessage, type Message } from '../core/messages.js';
import { checkPairing } from '../core/pairing.js';
import {
  fromOllamaMessages,
  fromOllamaToolCalls,
  fromOpenAiMessages,
  fromOpenAiToolCalls,
  ollamaTools,
  openAiTools,
  toOllamaMessages,
  toOpenAiMessages,
  toolNamesOf,
} from './convert.js';

// Fixtures: one context with every message kind, a single call, parallel calls of two tools, and
// arguments with whitespace and nesting that must survive exactly.
const READ_ARGS = '{"path": "src/app.py",  "lines": [1, 20]}';
const EVERY_KIND: Message[] = [
  systemMessage({ id: 's', content: 'You are a coding agent.' }),
  userMessage({ id: 'u', content: 'Fix parse() in src/app.py.' }),
  assistantMessage({ id: 'a1', content: 'Reading it.', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: READ_ARGS }] }),
  toolMessage({ id: 't1', toolCallId: 'call_1', name: 'read_file', content: 'def parse(line):\n    return line.split(",")[:-1]' }),
  assistantMessage({
    id: 'a2',
    content: '',
    toolCalls: [
      { id: 'call_2', name: 'bash', arguments: '{"command":"pytest -q"}' },
      { id: 'call_3', name: 'grep', arguments: '{"pattern":"parse\\\\(","nested":{"deep":[true,null]}}' },
      { id: 'call_4', name: 'bash', arguments: '{"command":"git diff"}' },
    ],
  }),
  toolMessage({ id: 't2', toolCallId: 'call_2', name: 'bash', content: '1 failed' }),
  toolMessage({ id: 't3', toolCallId: 'call_3', name: 'grep', content: 'src/app.py:1:def parse(line):' }),
  toolMessage({ id: 't4', toolCallId: 'call_4', name: 'bash', content: '' }),
  userMessage({ id: 'u2', content: 'Also keep the header.' }),
  assistantMessage({ id: 'a3', content: 'Done: parse() keeps the last field.' }),
];

interface Wire {
  readonly role: string;
  readonly content: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: string }[];
  readonly name?: string;
}

/** What reaches a provider: everything but our ids and origins. */
const wire = (m: Message): Wire => ({
  role: m.role,
  content: m.content,
  ...(m.role === 'assistant' ? { toolCalls: m.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) } : {}),
  ...(m.role === 'tool' ? { name: m.name } : {}),
});

describe('convert', () => {
  describe('tool definitions', () => {
    it('derives one definition per tool name, in order of first use', () => {
      expect(toolNamesOf(EVERY_KIND)).toEqual(['read_file', 'bash', 'grep']);
      expect(toolNamesOf([EVERY_KIND[0]!, EVERY_KIND[1]!])).toEqual([]);
    });

    it('takes names from results too (a call dropped by a strategy still names its tool)', () => {
      expect(toolNamesOf([toolMessage({ id: 't', toolCallId: 'x', name: 'find', content: '' })])).toEqual(['find']);
    });

    const BASH = [EVERY_KIND.find((m) => m.role === 'tool' && m.name === 'bash')!];

    it("writes OpenAI's shape: a function accepting any arguments", () => {
      expect(openAiTools({ messages: BASH })).toEqual([
        { type: 'function', function: { name: 'bash', description: 'bash', parameters: { type: 'object', properties: {}, additionalProperties: true } } },
      ]);
    });

    it("writes Ollama's shape", () => {
      expect(ollamaTools({ messages: BASH })).toEqual([{ type: 'function', function: { name: 'bash', description: 'bash', parameters: { type: 'object', properties: {} } } }]);
    });

    it("declares the scenario's own definitions when the request carries them, as recorded (no made-up ones)", () => {
      const tools = [{ name: 'execute_bash', description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }, { name: 'finish' }];
      expect(openAiTools({ messages: EVERY_KIND, tools })).toEqual([
        { type: 'function', function: tools[0] },
        { type: 'function', function: { name: 'finish' } },
      ]);
      expect(ollamaTools({ messages: EVERY_KIND, tools })).toEqual([
        { type: 'function', function: tools[0] },
        { type: 'function', function: { name: 'finish' } },
      ]);
      expect(openAiTools({ messages: [], tools: [] })).toEqual([]);
    });
  });

  describe('OpenAI', () => {
    const sent = toOpenAiMessages(EVERY_KIND);

    it('sends each kind in its wire shape', () => {
      expect(sent[0]).toEqual({ role: 'system', content: 'You are a coding agent.' });
      expect(sent[1]).toEqual({ role: 'user', content: 'Fix parse() in src/app.py.' });
      expect(sent[2]).toEqual({
        role: 'assistant',
        content: 'Reading it.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: READ_ARGS } }],
      });
      expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: EVERY_KIND[3]!.content });
      expect(sent[9]).toEqual({ role: 'assistant', content: 'Done: parse() keeps the last field.' });
    });

    it('sends a pure tool-call turn with content null, as OpenAI does', () => {
      expect(sent[4]).toMatchObject({ role: 'assistant', content: null });
    });

    it('keeps parallel calls together, in order, with their ids', () => {
      const calls = (sent[4] as { tool_calls: { id: string }[] }).tool_calls.map((c) => c.id);
      expect(calls).toEqual(['call_2', 'call_3', 'call_4']);
      expect(sent.slice(5, 8).map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(['call_2', 'call_3', 'call_4']);
    });

    it('round-trips every kind: content, calls, ids, exact argument text, tool names', () => {
      const back = fromOpenAiMessages(sent);
      expect(back.map(wire)).toEqual(EVERY_KIND.map(wire));
      const ids = (ms: Message[]) => ms.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.id) : m.role === 'tool' ? [m.toolCallId] : []));
      expect(ids(back)).toEqual(ids(EVERY_KIND));
      expect(checkPairing(back, { request: true })).toEqual([]);
    });

    it('reads content parts and developer messages', () => {
      const back = fromOpenAiMessages([
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      ]);
      expect(back.map(wire)).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'ab' },
      ]);
    });

    it("reads function tool calls, and a custom tool's with its free-text input as the arguments", () => {
      expect(
        fromOpenAiToolCalls([
          { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          { id: 'c2', type: 'custom', custom: { name: 'free', input: 'text' } },
        ]),
      ).toEqual([
        { id: 'c1', name: 'bash', arguments: '{"command":"ls"}' },
        { id: 'c2', name: 'free', arguments: 'text' },
      ]);
      expect(fromOpenAiToolCalls(null)).toEqual([]);
    });
  });

  describe('Ollama', () => {
    const sent = toOllamaMessages(EVERY_KIND);

    it('sends arguments as objects and results with their tool name', () => {
      expect(sent[2]).toEqual({
        role: 'assistant',
        content: 'Reading it.',
        tool_calls: [{ function: { name: 'read_file', arguments: { path: 'src/app.py', lines: [1, 20] } } }],
      });
      expect(sent[3]).toEqual({ role: 'tool', content: EVERY_KIND[3]!.content, tool_name: 'read_file' });
      expect(sent[4]!.tool_calls?.[1]).toEqual({ function: { name: 'grep', arguments: { pattern: 'parse\\(', nested: { deep: [true, null] } } } });
    });

    it('round-trips every kind; arguments come back as equivalent JSON, pairing intact', () => {
      const back = fromOllamaMessages(sent);
      const normalized = (ms: Message[]) =>
        ms.map(wire).map((m) => (m.toolCalls ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, arguments: JSON.parse(c.arguments) as unknown })) } : m));
      expect(normalized(back)).toEqual(normalized(EVERY_KIND));
      expect(checkPairing(back, { request: true })).toEqual([]);
    });

    it('pairs parallel results with calls by tool name, then in order (Ollama has no call ids)', () => {
      const back = fromOllamaMessages([
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'bash', arguments: {} } }, { function: { name: 'grep', arguments: {} } }, { function: { name: 'bash', arguments: {} } }] },
        { role: 'tool', content: 'grep out', tool_name: 'grep' },
        { role: 'tool', content: 'bash 1', tool_name: 'bash' },
        { role: 'tool', content: 'bash 2', tool_name: 'bash' },
      ]);
      const calls = (back[0] as AssistantMessage).toolCalls;
      expect(back.slice(1).map((m) => (m.role === 'tool' ? m.toolCallId : ''))).toEqual([calls[1]!.id, calls[0]!.id, calls[2]!.id]);
    });

    it('sends arguments that are not a JSON object wrapped as {input}', () => {
      const odd = assistantMessage({ id: 'a', content: '', toolCalls: [{ id: 'c', name: 'bash', arguments: 'ls -la' }, { id: 'd', name: 'bash', arguments: '[1,2]' }] });
      expect(toOllamaMessages([odd])[0]!.tool_calls!.map((c) => c.function.arguments)).toEqual([{ input: 'ls -la' }, { input: '[1,2]' }]);
    });

    describe('tool calls in answers', () => {
      it('stringifies object arguments and makes ids from the message id', () => {
        expect(fromOllamaToolCalls([{ function: { name: 'bash', arguments: { command: 'ls', n: 2 } } }], 'ollama:agent:1')).toEqual([
          { id: 'ollama:agent:1:call:0', name: 'bash', arguments: '{"command":"ls","n":2}' },
        ]);
      });

      it('keeps string arguments as they are (servers that send JSON text)', () => {
        const calls = [{ function: { name: 'bash', arguments: '{"command": "ls"}' } }] as unknown as OllamaMessage['tool_calls'];
        expect(fromOllamaToolCalls(calls, 'm')[0]!.arguments).toBe('{"command": "ls"}');
      });

      it('keeps the ids newer servers send', () => {
        const calls = [{ id: 'call_abc', function: { name: 'bash', arguments: {} } }] as unknown as OllamaMessage['tool_calls'];
        expect(fromOllamaToolCalls(calls, 'm')[0]!.id).toBe('call_abc');
      });

      it('keeps parallel calls in order, each with its own id', () => {
        const calls = fromOllamaToolCalls(
          [{ function: { name: 'bash', arguments: { a: 1 } } }, { function: { name: 'grep', arguments: { b: 2 } } }],
          'r',
        );
        expect(calls.map((c) => [c.id, c.name, c.arguments])).toEqual([
          ['r:call:0', 'bash', '{"a":1}'],
          ['r:call:1', 'grep', '{"b":2}'],
        ]);
      });
    });
  });
});
