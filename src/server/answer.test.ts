import { beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../core/messages.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { MOCK_DEFAULTS, writeSummary } from '../llm/mock.js';
import { AGENT_STEP_ANSWER, capTokens, complete, expectFromPrompt, fitContext } from './answer.js';
import { BadRequest, fromOllama, fromOpenAi } from './messages.js';
import { CALLS_WITHOUT_RESULTS, TOOL_WITHOUT_CALL, pairingRejection } from './openai.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const system = systemMessage({ id: 's', content: 'You are a coding agent.' });
const call = (id: string) => ({ id, name: 'bash', arguments: `{"command":"cat src/file_${id}.py"}` });
/** A system prompt, a task, then `rounds` call/result rounds of about 60 tokens each. */
function history(rounds: number): Message[] {
  const messages: Message[] = [system, userMessage({ id: 'u', content: 'Fix the failing test in src/parser/tokenize.py' })];
  for (let i = 0; i < rounds; i++) {
    messages.push(assistantMessage({ id: `a${i}`, content: '', toolCalls: [call(`c${i}`)] }));
    messages.push(toolMessage({ id: `t${i}`, toolCallId: `c${i}`, name: 'bash', content: `line ${i}: ${'value '.repeat(50)}` }));
  }
  return messages;
}

describe('fitContext (Ollama num_ctx)', () => {
  it('keeps a prompt that fits as it is', () => {
    const messages = history(3);
    const fitted = fitContext(messages, 100_000, counter);
    expect(fitted.kept).toBe(messages);
    expect(fitted.promptTokens).toBe(counter.countContext(messages));
    expect(fitted.truncation).toBeUndefined();
  });

  it('drops the oldest messages until the rest fits, keeping the system message first', () => {
    const messages = history(20);
    const fitted = fitContext(messages, 500, counter);
    expect(fitted.kept[0]).toBe(system);
    expect(fitted.kept.at(-1)).toBe(messages.at(-1));
    expect(fitted.promptTokens).toBeLessThanOrEqual(500);
    expect(fitted.promptTokens).toBe(counter.countContext(fitted.kept));
    // The kept tail is contiguous and as long as fits: one more message would not.
    const tail = fitted.kept.slice(1);
    expect(messages.slice(messages.length - tail.length)).toEqual(tail);
    expect(counter.countContext([system, ...messages.slice(messages.length - tail.length - 1)])).toBeGreaterThan(500);
    expect(fitted.truncation).toEqual({ numCtx: 500, fullTokens: counter.countContext(messages), keptTokens: fitted.promptTokens, droppedMessages: messages.length - fitted.kept.length });
  });

  it('keeps system messages of the dropped front too (Ollama keeps every system message)', () => {
    const later = systemMessage({ id: 's2', content: 'Summary of earlier work: nothing yet.' });
    const messages = [...history(10).slice(0, 6), later, ...history(10).slice(6)];
    const fitted = fitContext(messages, 300, counter);
    expect(fitted.kept.slice(0, 2)).toEqual([system, later]);
  });

  it('always keeps the last message, reporting at most num_ctx when even that does not fit', () => {
    const messages = [system, userMessage({ id: 'u', content: 'word '.repeat(400) })];
    const fitted = fitContext(messages, 100, counter);
    expect(fitted.kept).toEqual(messages);
    expect(fitted.promptTokens).toBe(100);
    expect(fitted.truncation?.droppedMessages).toBe(0);
  });
});

describe('complete', () => {
  it('answers an agent step (last message a tool result) with a short text', () => {
    const reply = complete(history(2), undefined, counter);
    expect(reply).toEqual({ content: AGENT_STEP_ANSWER, completionTokens: counter.countText(AGENT_STEP_ANSWER), finish: 'stop' });
  });

  it('answers a user instruction with the mock summarizer, in the sections the prompt names', () => {
    const instruction = userMessage({ id: 'i', content: 'Summarize:\n\n## Goal\nthe task\n\n## Next Steps\nwhat remains' });
    const messages = [...history(4), instruction];
    const reply = complete(messages, undefined, counter);
    expect(reply.content).toBe(writeSummary(messages, { sections: ['Goal', 'Next Steps'], wrap: undefined }, counter, MOCK_DEFAULTS));
    expect(reply.content).toMatch(/^## Goal\n[\s\S]*## Next Steps/);
    expect(reply.content).toContain('src/file_c');
    expect(reply.completionTokens).toBe(counter.countText(reply.content));
  });

  it('caps the answer at max tokens and says so', () => {
    const messages = [...history(4), userMessage({ id: 'i', content: 'Summarize the above.' })];
    const one = complete(messages, 1, counter);
    expect(one.completionTokens).toBe(1);
    expect(one.content.length).toBeGreaterThan(0);
    expect(one.finish).toBe('length');
    expect(complete(history(1), 1, counter).finish).toBe('stop'); // "ok" is one token already
  });
});

describe('expectFromPrompt', () => {
  it('reads "## " headings and a wrapping tag', () => {
    const prompt = 'Output a checkpoint summary now:\n\n<checkpoint>\n## Goal\n[task]\n\n## Completed Work\n[files]\n</checkpoint>\n\nAfter outputting this checkpoint, STOP.';
    expect(expectFromPrompt(prompt)).toEqual({ sections: ['Goal', 'Completed Work'], wrap: 'checkpoint' });
  });

  it('has no wrap without the closing tag, and no expectation without headings', () => {
    expect(expectFromPrompt('<analysis>\n## Goal')).toEqual({ sections: ['Goal'], wrap: undefined });
    expect(expectFromPrompt('Summarize the conversation in one paragraph.')).toBeUndefined();
  });
});

describe('capTokens', () => {
  it('returns the longest prefix within the budget', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta';
    for (const max of [1, 2, 3, 5]) {
      const cut = capTokens(text, max, counter);
      expect(text.startsWith(cut)).toBe(true);
      expect(counter.countText(cut)).toBeLessThanOrEqual(max);
      expect(counter.countText(text.slice(0, cut.length + 1))).toBeGreaterThan(max);
    }
    expect(capTokens(text, 1000, counter)).toBe(text);
  });
});

describe('wire messages to the core model', () => {
  it('converts OpenAI messages: developer as system, content parts, tool_calls with string arguments, tool results named by their call', () => {
    const messages = fromOpenAi([
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Fix ' }, { type: 'text', text: 'it' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'README.md' },
    ]);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messages[1]!.content).toBe('Fix it');
    expect(messages[2]).toMatchObject({ content: '', toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }] });
    expect(messages[3]).toMatchObject({ toolCallId: 'call_1', name: 'bash', content: 'README.md' });
  });

  it('rejects what OpenAI rejects, with its wording', () => {
    expect(() => fromOpenAi([{ role: 'tool', content: 'x' }])).toThrow("Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.");
    expect(() => fromOpenAi([{ role: 'robot', content: 'x' }])).toThrow(/Invalid value: 'robot'\. Supported values are/);
    expect(() => fromOpenAi(undefined)).toThrow(new BadRequest("Missing required parameter: 'messages'.", 'messages'));
  });

  it('converts Ollama messages: object arguments as JSON text, tool_name on results', () => {
    const messages = fromOllama([
      { role: 'user', content: 'Fix it' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'bash', arguments: { command: 'ls' } } }] },
      { role: 'tool', tool_name: 'bash', content: 'README.md' },
    ]);
    expect(messages[1]).toMatchObject({ toolCalls: [{ name: 'bash', arguments: '{"command":"ls"}' }] });
    expect(messages[2]).toMatchObject({ role: 'tool', name: 'bash', content: 'README.md' });
  });
});

describe('pairingRejection (OpenAI 400 messages)', () => {
  const task = userMessage({ id: 'u', content: 'task' });
  const calls = (ids: string[]) => assistantMessage({ id: `a-${ids.join()}`, content: '', toolCalls: ids.map(call) });
  const result = (id: string) => toolMessage({ id: `t-${id}`, toolCallId: id, name: 'bash', content: 'out' });

  it('accepts a well-paired context, parallel calls included', () => {
    expect(pairingRejection([system, task, calls(['a', 'b']), result('a'), result('b')])).toBeUndefined();
  });

  it('a result without its call: the tool-role message, at the result', () => {
    expect(pairingRejection([system, task, result('x')])).toEqual({ message: TOOL_WITHOUT_CALL, param: 'messages.[2].role' });
  });

  it('calls without results: the assistant-role message naming every unanswered id, at the call', () => {
    expect(pairingRejection([system, task, calls(['a', 'b', 'c']), result('b')])).toEqual({ message: `${CALLS_WITHOUT_RESULTS}a, c`, param: 'messages.[2].role' });
    expect(pairingRejection([system, task, calls(['a'])])?.message).toBe(`${CALLS_WITHOUT_RESULTS}a`);
  });

  it('a user message between a call and its result: the call is not followed by its result', () => {
    expect(pairingRejection([system, task, calls(['a']), task, result('a')])?.message).toBe(`${CALLS_WITHOUT_RESULTS}a`);
  });

  it('a result before its call: the tool-role message at the early result', () => {
    expect(pairingRejection([system, task, result('a'), calls(['a']), result('a')])).toEqual({ message: TOOL_WITHOUT_CALL, param: 'messages.[2].role' });
  });
});
