/**
 * Every fault, as the real `ollama` and `openai` clients observe it, and the fault schedule
 * (times, path, order; listings never faulted).
 */
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startModelServer, type Fault, type RunningServer } from './index.js';

const MESSAGES: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Summarize the work on src/parser/tokenize.py so far.\n## Goal\n## Progress\n## Next Steps' },
];
const MODEL = 'mock-model';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.restoreAllMocks();
});

async function serve(...faults: Fault[]) {
  server = await startModelServer({ faults });
  const url = server.url;
  return {
    server,
    ollama: (timeoutMs?: number) =>
      new Ollama({ host: url, fetch: timeoutMs === undefined ? fetch : (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }) }),
    openai: (timeoutMs?: number) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'test', maxRetries: 0, logLevel: 'off', ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) }),
    fetchChat: (path: '/api/chat' | '/v1/chat/completions', body: object = {}) =>
      fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream: false, ...body }) }),
  };
}

const ollamaChat = (client: Ollama) => client.chat({ model: MODEL, messages: MESSAGES as never, stream: false });
const openaiChat = (client: OpenAI) => client.chat.completions.create({ model: MODEL, messages: MESSAGES });

/** Reads a stream to its end; returns what arrived before it ended or broke, and the error if it broke. */
async function drain<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of stream) items.push(item);
    return { items };
  } catch (error) {
    return { items, error };
  }
}
const ollamaStream = async (client: Ollama) => drain(await client.chat({ model: MODEL, messages: MESSAGES as never, stream: true }));
const openaiStream = async (client: OpenAI) =>
  drain(await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true, stream_options: { include_usage: true } }));

describe('refuse: the connection drops without a response', () => {
  it('both clients see a connection error, then the next request is answered', async () => {
    const { ollama, openai, server } = await serve({ kind: 'refuse', times: 2 });
    await expect(ollamaChat(ollama())).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'UND_ERR_SOCKET' } });
    await expect(openaiChat(openai())).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    await expect(ollamaChat(ollama())).resolves.toMatchObject({ done: true });
    expect(server.requests.map((r) => r.fault)).toEqual(['refuse', 'refuse', undefined]);
  });
});

describe('http500', () => {
  it("Ollama's client throws ResponseError 500, OpenAI's InternalServerError (one request: maxRetries 0)", async () => {
    const { ollama, openai, server } = await serve({ kind: 'http500', times: 2 });
    await expect(ollamaChat(ollama())).rejects.toMatchObject({ name: 'ResponseError', status_code: 500, message: expect.stringContaining('mock fault: http500') });
    await expect(openaiChat(openai())).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    expect(server.requests).toHaveLength(2);
  });
});

describe('http429 with Retry-After', () => {
  it('both clients see 429 and the Retry-After header', async () => {
    const { ollama, openai, fetchChat } = await serve({ kind: 'http429', times: 3, retryAfterSeconds: 7 });
    await expect(ollamaChat(ollama())).rejects.toMatchObject({ name: 'ResponseError', status_code: 429 });
    const error = await openaiChat(openai()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('7');
    expect(error).toMatchObject({ code: 'rate_limit_exceeded' });
    const response = await fetchChat('/api/chat');
    expect([response.status, response.headers.get('retry-after')]).toEqual([429, '7']);
  });
});

describe('slow-first-byte', () => {
  /** Longer than any test: a response held back this long is held until the server closes. */
  const HELD = 3_600_000;

  it('holds the response back, headers included: a later request is answered while the held one still waits', async () => {
    const { ollama, fetchChat, server } = await serve({ kind: 'slow-first-byte', delayMs: HELD });
    let headersArrived = false;
    const held = fetchChat('/api/chat').then(
      () => (headersArrived = true),
      (e: unknown) => e,
    );
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    await expect(ollamaChat(ollama())).resolves.toMatchObject({ done: true });
    expect(server.requests.map((r) => r.fault)).toEqual(['slow-first-byte', undefined]);
    expect(headersArrived).toBe(false);
    await server.close();
    expect(await held).toBeInstanceOf(Error);
  });

  it('after the delay, answers normally', async () => {
    const { ollama, server } = await serve({ kind: 'slow-first-byte', delayMs: 10 });
    await expect(ollamaChat(ollama())).resolves.toMatchObject({ done: true, prompt_eval_count: expect.any(Number) });
    expect(server.requests.map((r) => r.fault)).toEqual(['slow-first-byte']);
  });

  it('trips a client timeout shorter than the delay', async () => {
    const { ollama, openai } = await serve({ kind: 'slow-first-byte', delayMs: HELD, times: 2 });
    await expect(ollamaChat(ollama(100))).rejects.toMatchObject({ name: 'TimeoutError' });
    await expect(openaiChat(openai(100))).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('does not hold close() up: a held response ends with the server (else this test runs into its timeout)', async () => {
    const { ollama, server } = await serve({ kind: 'slow-first-byte', delayMs: HELD });
    const pending = ollamaChat(ollama()).catch((e: unknown) => e);
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    await server.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('cut-stream: half the response, then the connection drops', () => {
  it('a stream breaks after some chunks and before the final one, on both clients', async () => {
    const { ollama, openai } = await serve({ kind: 'cut-stream', times: 2 });
    const fromOllama = await ollamaStream(ollama());
    expect(fromOllama.error).toMatchObject({ name: 'TypeError', message: 'terminated' });
    expect(fromOllama.items.length).toBeGreaterThan(0);
    expect(fromOllama.items.some((c) => c.done)).toBe(false);
    const fromOpenai = await openaiStream(openai());
    expect(fromOpenai.error).toMatchObject({ message: 'terminated' });
    expect(fromOpenai.items.length).toBeGreaterThan(0);
    expect(fromOpenai.items.some((c) => c.usage)).toBe(false); // the usage chunk is lost with the stream
  });

  it('a whole answer arrives half-way and fails to read', async () => {
    const { ollama, openai } = await serve({ kind: 'cut-stream', times: 2 });
    await expect(ollamaChat(ollama())).rejects.toMatchObject({ message: 'terminated' });
    await expect(openaiChat(openai())).rejects.toMatchObject({ message: 'terminated' });
  });
});

describe('no-usage: the answer without token counts', () => {
  it('Ollama: no prompt_eval_count / eval_count, streaming or not', async () => {
    const { ollama } = await serve({ kind: 'no-usage', times: 2 });
    const whole = await ollamaChat(ollama());
    expect(whole.done).toBe(true);
    expect(whole.message.content).toMatch(/^## Goal/);
    expect([whole.prompt_eval_count, whole.eval_count]).toEqual([undefined, undefined]);
    const { items, error } = await ollamaStream(ollama());
    expect(error).toBeUndefined();
    expect(items.at(-1)).toMatchObject({ done: true });
    expect(items.some((c) => 'prompt_eval_count' in c || 'eval_count' in c)).toBe(false);
  });

  it('OpenAI: no usage field, and no usage chunk even with include_usage', async () => {
    const { openai } = await serve({ kind: 'no-usage', times: 2 });
    const whole = await openaiChat(openai());
    expect(whole.choices[0]!.message.content).toMatch(/^## Goal/);
    expect(whole.usage).toBeUndefined();
    const { items, error } = await openaiStream(openai());
    expect(error).toBeUndefined();
    expect(items.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(items.some((c) => c.usage)).toBe(false);
  });
});

describe('malformed-json: a body that is not JSON', () => {
  it('whole answers fail to parse on both clients', async () => {
    const { ollama, openai } = await serve({ kind: 'malformed-json', times: 2 });
    await expect(ollamaChat(ollama())).rejects.toBeInstanceOf(SyntaxError);
    await expect(openaiChat(openai())).rejects.toBeInstanceOf(SyntaxError);
  });

  it('streams fail: Ollama skips the bad line and never sees done, OpenAI throws on it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {}); // ollama-js warns about the bad line
    const { ollama, openai } = await serve({ kind: 'malformed-json', times: 2 });
    expect((await ollamaStream(ollama())).error).toMatchObject({ message: 'Did not receive done or success response in stream.' });
    expect(warn).toHaveBeenCalledWith('invalid json: ', expect.any(String));
    expect((await openaiStream(openai())).error).toBeInstanceOf(SyntaxError);
  });
});

describe('the fault schedule', () => {
  it('a fault hits only its path', async () => {
    const { ollama, openai } = await serve({ kind: 'http500', path: 'openai', times: Infinity });
    await expect(ollamaChat(ollama())).resolves.toMatchObject({ done: true });
    await expect(openaiChat(openai())).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(openaiChat(openai())).rejects.toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('faults apply in the order given, each for its times, and never to listings', async () => {
    const { ollama, server } = await serve({ kind: 'http429' }, { kind: 'http500', times: 2 });
    await ollama().list();
    await ollama().show({ model: MODEL });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await ollamaChat(ollama()).then(() => 200, (e: { status_code: number }) => e.status_code));
    expect(outcomes).toEqual([429, 500, 500, 200]);
    expect(server.requests.map((r) => r.fault)).toEqual([undefined, undefined, 'http429', 'http500', 'http500', undefined]);
  });

  it('rejects a fault it does not know, or a bad count', async () => {
    await expect(startModelServer({ faults: [{ kind: 'explode' as never }] })).rejects.toThrow(/unknown fault kind 'explode'/);
    await expect(startModelServer({ faults: [{ kind: 'http500', times: 0 }] })).rejects.toThrow(/times must be/);
  });
});
