/**
 * The OpenAI side of the local server, driven with plain fetch and with the real `openai` client.
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../core/messages.js';
import { createTokenCounter, withTools, type TokenCounter } from '../core/tokens.js';
import { AGENT_STEP_ANSWER } from './answer.js';
import { startModelServer, type RunningServer } from './index.js';
import { CALLS_WITHOUT_RESULTS, TOOL_WITHOUT_CALL } from './openai.js';

let server: RunningServer;
let openai: OpenAI;
let counter: TokenCounter;
beforeAll(async () => {
  server = await startModelServer({ models: [{ name: 'mock-model', contextLength: 32768 }, { name: 'tiny', contextLength: 64 }] });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test', maxRetries: 0 });
  counter = await createTokenCounter('o200k_base');
});
afterAll(() => server.close());

const SYSTEM = 'You are a coding agent. Use the bash tool.';
const TASK = 'Fix the failing test in src/parser/tokenize.py';
const ARGS = '{"command":"pytest tests/test_tokenize.py"}';
const OUTPUT = 'tests/test_tokenize.py::test_unicode FAILED at line 88';

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'bash', arguments: ARGS } });
const calls = (...ids: string[]): ChatCompletionMessageParam => ({ role: 'assistant', content: null, tool_calls: ids.map(call) });
const result = (id: string): ChatCompletionMessageParam => ({ role: 'tool', tool_call_id: id, content: OUTPUT });
const START: ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }];
/** An agent step's context: the task, two parallel calls and their results. */
const STEP: ChatCompletionMessageParam[] = [...START, calls('call_a', 'call_b'), result('call_a'), result('call_b')];
const SUMMARY_REQUEST: ChatCompletionMessageParam[] = [...STEP, { role: 'user', content: 'Summarize:\n## Goal\n## Progress' }];

/** STEP in the core model, counted independently of the server's conversion. */
function stepTokens(): number {
  const toolCalls = ['call_a', 'call_b'].map((id) => ({ id, name: 'bash', arguments: ARGS }));
  const messages: Message[] = [
    systemMessage({ id: 's', content: SYSTEM }),
    userMessage({ id: 'u', content: TASK }),
    assistantMessage({ id: 'a', content: '', toolCalls }),
    ...toolCalls.map((c) => toolMessage({ id: `t${c.id}`, toolCallId: c.id, name: 'bash', content: OUTPUT })),
  ];
  return counter.countContext(messages);
}

const post = (body: unknown): Promise<Response> =>
  fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}
const textOf = (chunks: readonly ChatCompletionChunk[]): string => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

describe('POST /v1/chat/completions, not streaming', () => {
  it('answers an agent step with a short text and the usage of the tokenizer', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
    const completion = await openai.chat.completions.create({ model: 'mock-model', messages: STEP, tools });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('mock-model');
    expect(completion.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: AGENT_STEP_ANSWER }, finish_reason: 'stop' });
    const completionTokens = counter.countText(AGENT_STEP_ANSWER);
    // The tool definitions are billed with the prompt, as a provider bills them.
    const promptTokens = stepTokens() + withTools(counter, tools.map((t) => t.function)).toolTokens;
    expect(completion.usage).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens });
  });

  it('answers a user instruction with a summary in the sections its prompt names', async () => {
    const completion = await openai.chat.completions.create({ model: 'mock-model', messages: SUMMARY_REQUEST });
    const content = completion.choices[0]!.message.content!;
    expect(content).toMatch(/^## Goal\n[\s\S]*## Progress/);
    expect(completion.usage?.completion_tokens).toBe(counter.countText(content));
  });

  it('honours max_tokens and max_completion_tokens = 1 with one token', async () => {
    for (const limit of [{ max_tokens: 1 }, { max_completion_tokens: 1 }]) {
      const completion = await openai.chat.completions.create({ model: 'mock-model', messages: SUMMARY_REQUEST, ...limit });
      expect(completion.usage?.completion_tokens).toBe(1);
      expect(counter.countText(completion.choices[0]!.message.content!)).toBe(1);
      expect(completion.choices[0]!.finish_reason).toBe('length');
    }
  });

  it('accepts developer messages and content parts', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'developer', content: SYSTEM }, { role: 'user', content: [{ type: 'text', text: TASK }] }];
    const completion = await openai.chat.completions.create({ model: 'mock-model', messages });
    expect(completion.usage?.prompt_tokens).toBe(counter.countContext([systemMessage({ id: 's', content: SYSTEM }), userMessage({ id: 'u', content: TASK })]));
  });
});

describe('prompt_tokens_details.cached_tokens: the prompt cache', () => {
  const cachedOf = async (target: RunningServer, messages: ChatCompletionMessageParam[], stream = false): Promise<number | undefined> => {
    const client = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: 'test', maxRetries: 0 });
    if (!stream) return (await client.chat.completions.create({ model: 'mock-model', messages })).usage?.prompt_tokens_details?.cached_tokens;
    const chunks = await collect(await client.chat.completions.create({ model: 'mock-model', messages, stream: true, stream_options: { include_usage: true } }));
    return chunks.at(-1)!.usage?.prompt_tokens_details?.cached_tokens;
  };
  /** Tokens of the messages alone (framing included), without the reply priming. */
  const messagesTokens = (...contents: string[]): number => contents.reduce((sum, content) => sum + counter.countMessage(userMessage({ id: 'x', content })), 0);

  it.each([false, true])('counts the leading messages a request shares with an earlier one (stream: %s)', async (stream) => {
    const own = await startModelServer({ models: [{ name: 'mock-model', contextLength: 32768 }] });
    try {
      const system: ChatCompletionMessageParam = { role: 'user', content: SYSTEM };
      expect(await cachedOf(own, [system, { role: 'user', content: TASK }], stream)).toBe(0); // nothing before it
      expect(await cachedOf(own, [system, { role: 'user', content: TASK }, { role: 'user', content: 'more' }], stream)).toBe(messagesTokens(SYSTEM, TASK));
      // A changed message ends the shared prefix, as one changed byte does at a provider.
      expect(await cachedOf(own, [system, { role: 'user', content: `${TASK}!` }, { role: 'user', content: 'more' }], stream)).toBe(messagesTokens(SYSTEM));
      expect(await cachedOf(own, [{ role: 'user', content: 'another task' }], stream)).toBe(0);
    } finally {
      await own.close();
    }
  });
});

describe('POST /v1/chat/completions, streaming', () => {
  it('streams the answer, then a usage chunk with empty choices when include_usage is set', async () => {
    const whole = await openai.chat.completions.create({ model: 'mock-model', messages: SUMMARY_REQUEST });
    const chunks = await collect(await openai.chat.completions.create({ model: 'mock-model', messages: SUMMARY_REQUEST, stream: true, stream_options: { include_usage: true } }));
    expect(textOf(chunks)).toBe(whole.choices[0]!.message.content);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    // The same prompt again: all of its messages come from the server's prompt cache this time.
    expect(last.usage).toMatchObject({ prompt_tokens: whole.usage!.prompt_tokens, completion_tokens: whole.usage!.completion_tokens });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('sends no usage without include_usage', async () => {
    const chunks = await collect(await openai.chat.completions.create({ model: 'mock-model', messages: STEP, stream: true }));
    expect(textOf(chunks)).toBe(AGENT_STEP_ANSWER);
    expect(chunks.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
  });

  it('speaks SSE on the wire: `data: {...}` events ending with `data: [DONE]`', async () => {
    const response = await post({ model: 'mock-model', messages: STEP, stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text()).split('\n\n').filter((e) => e !== '');
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events.at(-2)!.slice(6))).toMatchObject({ choices: [], usage: { prompt_tokens: stepTokens() } });
  });
});

describe('errors', () => {
  it("answers an unknown model with 404 and OpenAI's error body (the client throws NotFoundError)", async () => {
    const error = await openai.chat.completions.create({ model: 'gpt-9', messages: STEP }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
    const response = await post({ model: 'gpt-9', messages: STEP });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { message: 'The model `gpt-9` does not exist or you do not have access to it.', type: 'invalid_request_error', param: null, code: 'model_not_found' },
    });
  });

  it('rejects a result without its call with 400 and OpenAI\'s message', async () => {
    const error = await openai.chat.completions.create({ model: 'mock-model', messages: [...START, result('call_x')] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'messages.[2].role', type: 'invalid_request_error' });
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ message: TOOL_WITHOUT_CALL });
  });

  it('rejects calls without results (a missing parallel result, a trailing call) naming the ids', async () => {
    const missing = await post({ model: 'mock-model', messages: [...START, calls('call_a', 'call_b'), result('call_b')] });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: { message: `${CALLS_WITHOUT_RESULTS}call_a`, type: 'invalid_request_error', param: 'messages.[2].role', code: null } });
    const trailing = await openai.chat.completions.create({ model: 'mock-model', messages: [...START, calls('call_x', 'call_y')] }).catch((e: unknown) => e);
    expect(trailing).toMatchObject({ status: 400, message: expect.stringContaining(`${CALLS_WITHOUT_RESULTS}call_x, call_y`) });
  });

  it('rejects a user message between a call and its result', async () => {
    const error = await openai.chat.completions.create({ model: 'mock-model', messages: [...START, calls('call_a'), { role: 'user', content: 'wait' }, result('call_a')] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining(`${CALLS_WITHOUT_RESULTS}call_a`) });
  });

  it("rejects a prompt longer than the model's context with 400 context_length_exceeded (no silent cut)", async () => {
    const error = await openai.chat.completions.create({ model: 'tiny', messages: STEP }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded', message: expect.stringContaining(`maximum context length is 64 tokens. However, your messages resulted in ${stepTokens()} tokens`) });
  });

  it('rejects a body without model or messages with 400', async () => {
    expect((await post({ messages: STEP }).then((r) => r.json()) as { error: { message: string } }).error.message).toBe('you must provide a model parameter');
    expect((await post({ model: 'mock-model' }).then((r) => r.json()) as { error: { message: string } }).error.message).toBe("Missing required parameter: 'messages'.");
  });
});

describe('GET /v1/models', () => {
  it("lists the models with their context length, as vLLM does (max_model_len)", async () => {
    const models = [];
    for await (const model of openai.models.list()) models.push([model.id, (model as unknown as { max_model_len: number }).max_model_len]);
    expect(models).toEqual([['mock-model', 32768], ['tiny', 64]]);
  });
});
