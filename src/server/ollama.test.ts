/**
 * The Ollama side of the local server, driven with plain fetch and with the real `ollama` client.
 */
import { Ollama, type Message as OllamaMessage } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../core/messages.js';
import { createTokenCounter, withTools, type TokenCounter } from '../core/tokens.js';
import { AGENT_STEP_ANSWER } from './answer.js';
import { startModelServer, type RunningServer } from './index.js';
import { OLLAMA_DEFAULT_NUM_CTX } from './ollama.js';

let server: RunningServer;
let ollama: Ollama;
let counter: TokenCounter;
beforeAll(async () => {
  server = await startModelServer({ models: [{ name: 'mock-model', contextLength: 32768 }, { name: 'small:1b', contextLength: 1024 }] });
  ollama = new Ollama({ host: server.url });
  counter = await createTokenCounter('o200k_base');
});
afterAll(() => server.close());

const SYSTEM = 'You are a coding agent. Use the bash tool.';
const TASK = 'Fix the failing test in src/parser/tokenize.py';
const output = (i: number): string => `tests/test_${i}.py::test_case_${i} FAILED at line ${100 + i}\n${'assert value == expected\n'.repeat(8)}`;

/** A system prompt, the task, then `rounds` bash calls with their outputs: Ollama's wire shape. */
function wire(rounds: number): OllamaMessage[] {
  const messages: OllamaMessage[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }];
  for (let i = 0; i < rounds; i++) {
    messages.push({ role: 'assistant', content: '', tool_calls: [{ function: { name: 'bash', arguments: { command: `pytest tests/test_${i}.py` } } }] });
    messages.push({ role: 'tool', tool_name: 'bash', content: output(i) });
  }
  return messages;
}

/** The same conversation in the core model, counted independently of the server's conversion. */
function core(rounds: number): Message[] {
  const messages: Message[] = [systemMessage({ id: 's', content: SYSTEM }), userMessage({ id: 'u', content: TASK })];
  for (let i = 0; i < rounds; i++) {
    const call = { id: `c${i}`, name: 'bash', arguments: `{"command":"pytest tests/test_${i}.py"}` };
    messages.push(assistantMessage({ id: `a${i}`, content: '', toolCalls: [call] }));
    messages.push(toolMessage({ id: `t${i}`, toolCallId: call.id, name: 'bash', content: output(i) }));
  }
  return messages;
}

const BASH_TOOL = { type: 'function', function: { name: 'bash', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } } };

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const lastRequest = () => server.requests.at(-1)!;

describe('GET /api/tags and POST /api/show', () => {
  it('lists the models with their tags', async () => {
    const { models } = await ollama.list();
    expect(models.map((m) => m.name)).toEqual(['mock-model:latest', 'small:1b']);
    expect(models[0]!.details.family).toBe('llama');
  });

  it('reports the context length as model_info["<arch>.context_length"], with or without the :latest tag', async () => {
    for (const model of ['mock-model', 'mock-model:latest']) {
      const show = await ollama.show({ model });
      const info = show.model_info as unknown as Record<string, unknown>;
      expect(info['general.architecture']).toBe('llama');
      expect(info['llama.context_length']).toBe(32768);
    }
  });

  it('answers an unknown model with 404 {"error": "model \'x\' not found"}', async () => {
    const response = await post('/api/show', { model: 'nope' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "model 'nope' not found" });
  });
});

describe('POST /api/chat, not streaming', () => {
  it('answers an agent step with a short text and the usage of the tokenizer', async () => {
    const response = await ollama.chat({ model: 'mock-model', messages: wire(3), tools: [BASH_TOOL], stream: false, options: { num_ctx: 32768 } });
    expect(response.message).toEqual({ role: 'assistant', content: AGENT_STEP_ANSWER });
    expect(response).toMatchObject({ model: 'mock-model', done: true, done_reason: 'stop' });
    expect(new Date(response.created_at).toISOString()).toBe(response.created_at);
    // tool_calls arrive as objects and role 'tool' messages count like any message; the tool definitions are billed with the prompt
    expect(response.prompt_eval_count).toBe(withTools(counter, [BASH_TOOL.function]).countContext(core(3)));
    expect(response.eval_count).toBe(counter.countText(AGENT_STEP_ANSWER));
    expect(response.eval_duration).toBeGreaterThan(0);
  });

  it('answers a user instruction with a summary in the sections its prompt names, deterministically', async () => {
    const instruction = { role: 'user', content: 'Summarize the conversation:\n\n## Goal\nthe task\n\n## Progress\nwhat is done' };
    const ask = () => ollama.chat({ model: 'mock-model', messages: [...wire(4), instruction], stream: false, options: { num_ctx: 32768 } });
    const first = await ask();
    expect(first.message.content).toMatch(/^## Goal\n[\s\S]*\n## Progress\n/);
    expect(first.message.content).toMatch(/tests\/test_\d\.py/); // facts of the span survive (seeded recall)
    expect((await ask()).message.content).toBe(first.message.content);
    expect(first.eval_count).toBe(counter.countText(first.message.content));
  });

  it('honours num_predict = 1 with one token of text', async () => {
    const response = await ollama.chat({ model: 'mock-model', messages: [...wire(1), { role: 'user', content: 'Summarize.' }], stream: false, options: { num_ctx: 32768, num_predict: 1 } });
    expect(response.eval_count).toBe(1);
    expect(counter.countText(response.message.content)).toBe(1);
    expect(response.done_reason).toBe('length');
  });
});

describe('POST /api/chat, streaming', () => {
  it('streams the same answer in pieces; only the final chunk is done and carries the counts', async () => {
    const messages = [...wire(2), { role: 'user', content: 'Summarize the work so far.' }];
    const whole = await ollama.chat({ model: 'mock-model', messages, stream: false, options: { num_ctx: 32768 } });
    const chunks = [];
    for await (const chunk of await ollama.chat({ model: 'mock-model', messages, stream: true, options: { num_ctx: 32768 } })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.message.content).join('')).toBe(whole.message.content);
    const final = chunks.at(-1)!;
    expect(final).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: whole.prompt_eval_count, eval_count: whole.eval_count });
    expect(chunks.slice(0, -1).every((c) => !c.done && c.prompt_eval_count === undefined)).toBe(true);
  });

  it('streams NDJSON when `stream` is not sent, like Ollama', async () => {
    const response = await post('/api/chat', { model: 'mock-model', messages: [{ role: 'user', content: 'hello' }] });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text()).trim().split('\n').map((l) => JSON.parse(l) as { done: boolean; prompt_eval_count?: number });
    expect(lines.at(-1)).toMatchObject({ done: true, prompt_eval_count: counter.countContext([userMessage({ id: 'u', content: 'hello' })]) });
  });
});

describe('num_ctx: silent truncation of the front, like Ollama', () => {
  it('keeps the system message and the most recent messages that fit, with HTTP 200 and the kept count', async () => {
    const full = counter.countContext(core(12));
    const response = await post('/api/chat', { model: 'mock-model', messages: wire(12), stream: false, options: { num_ctx: 512 } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { prompt_eval_count: number };
    expect(body.prompt_eval_count).toBeLessThanOrEqual(512);
    expect(body.prompt_eval_count).toBeLessThan(full);
    const { truncation } = lastRequest();
    expect(truncation).toMatchObject({ numCtx: 512, fullTokens: full, keptTokens: body.prompt_eval_count });
    // What was kept: the system prompt, then the newest droppedMessages-less tail.
    const kept = core(12).slice(truncation!.droppedMessages + 1);
    expect(body.prompt_eval_count).toBe(counter.countContext([core(0)[0]!, ...kept]));
  });

  it('uses num_ctx 2048 when none is sent, whatever the model could take', async () => {
    const full = counter.countContext(core(40));
    expect(full).toBeGreaterThan(OLLAMA_DEFAULT_NUM_CTX);
    const response = await ollama.chat({ model: 'mock-model', messages: wire(40), stream: false });
    expect(response.prompt_eval_count).toBeLessThanOrEqual(OLLAMA_DEFAULT_NUM_CTX);
    expect(lastRequest().truncation?.numCtx).toBe(OLLAMA_DEFAULT_NUM_CTX);
  });

  it("caps num_ctx at the model's context length", async () => {
    const response = await ollama.chat({ model: 'small:1b', messages: wire(40), stream: false, options: { num_ctx: 32768 } });
    expect(response.prompt_eval_count).toBeLessThanOrEqual(1024);
    expect(lastRequest().truncation?.numCtx).toBe(1024);
  });

  it('does not truncate a prompt that fits', async () => {
    const response = await ollama.chat({ model: 'mock-model', messages: wire(40), stream: false, options: { num_ctx: 32768 } });
    expect(response.prompt_eval_count).toBe(counter.countContext(core(40)));
    expect(lastRequest().truncation).toBeUndefined();
  });
});

describe('errors', () => {
  it('answers an unknown model with 404 and Ollama\'s message (the client throws ResponseError)', async () => {
    const error = await ollama.chat({ model: 'qwen9:404b', messages: wire(1), stream: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ResponseError', status_code: 404, message: "model 'qwen9:404b' not found" });
    const response = await post('/api/chat', { model: 'qwen9:404b', messages: [] });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "model 'qwen9:404b' not found" });
  });

  it('answers a body that is not JSON, or has no model, with 400', async () => {
    const bad = await fetch(`${server.url}/api/chat`, { method: 'POST', body: '{"model": ' });
    expect(bad.status).toBe(400);
    expect(await post('/api/chat', { messages: [] }).then((r) => r.json())).toEqual({ error: 'model is required' });
  });

  it('records every request: method, path and body', async () => {
    const before = server.requests.length;
    await ollama.list();
    expect(server.requests.slice(before)).toEqual([{ method: 'GET', path: '/api/tags', body: undefined }]);
  });
});
