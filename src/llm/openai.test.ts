/**
 * End to end: the real `openai` client against the local model server (src/server) on 127.0.0.1.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../core/messages.js';
import { createTokenCounter, withTools, type TokenCounter } from '../core/tokens.js';
import { faultServer, openAiError } from '../../test/helpers/fault-server.js';
import { startModelServer, type RunningServer, type ServerOptions } from '../server/index.js';
import { createOpenAiBackend } from './openai.js';
import { BackendError, MAX_RESPONSE_BYTES, type RetryPolicy } from './retry.js';
import { toolNamesOf } from './convert.js';
import type { ChatRequest } from '../core/backend.js';

// Fixtures: a fast retry policy and a small context with parallel tool calls.
const POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 10, maxDelayMs: 200, timeoutMs: 5000 };
const MODEL = 'gpt-4o-mini';
const KEY = 'sk-test-not-a-real-key';
const CONTEXT: Message[] = [
  systemMessage({ id: 's', content: 'You are a coding agent.' }),
  userMessage({ id: 'u', content: 'Fix parse() in src/app.py.' }),
  assistantMessage({
    id: 'a',
    content: '',
    toolCalls: [
      { id: 'call_1', name: 'bash', arguments: '{"command":"cat src/app.py"}' },
      { id: 'call_2', name: 'grep', arguments: '{"pattern":"parse"}' },
    ],
  }),
  toolMessage({ id: 't1', toolCallId: 'call_1', name: 'bash', content: 'def parse(line): ...' }),
  toolMessage({ id: 't2', toolCallId: 'call_2', name: 'grep', content: 'src/app.py:1' }),
];
const AGENT: ChatRequest = { messages: CONTEXT, purpose: 'agent', window: 8192 };

let counter: TokenCounter;
let server: RunningServer | undefined;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});
/** What the server bills for a context the client declares derived tools for: one definition per tool name it uses. */
const billed = (messages: readonly Message[]): number =>
  withTools(counter, toolNamesOf(messages).map((name) => ({ name, description: name, parameters: { type: 'object', properties: {}, additionalProperties: true } }))).countContext(messages);

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: ServerOptions = {}): Promise<RunningServer> {
  server = await startModelServer({ models: [{ name: MODEL, contextLength: 4096 }], ...options });
  return server;
}

function backend(url: string, extra: { stream?: boolean; policy?: Partial<RetryPolicy>; model?: string; delays?: number[]; path?: string } = {}) {
  return createOpenAiBackend({
    baseUrl: `${url}${extra.path ?? '/v1'}`,
    apiKey: KEY,
    model: extra.model ?? MODEL,
    stream: extra.stream,
    policy: { ...POLICY, ...extra.policy },
    hooks: { onRetry: (_e, _n, delay) => extra.delays?.push(delay) },
  });
}

const failure = (promise: Promise<unknown>): Promise<BackendError> =>
  promise.then(
    () => Promise.reject(new Error('expected a failure')),
    (e: unknown) => (e instanceof BackendError ? e : Promise.reject(e)),
  );

const chatBodies = (s: RunningServer) => s.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Record<string, unknown>);

describe('openai backend (real client, local server)', () => {
  describe('requests', () => {
    it('answers with the provider usage and finish_reason (not streamed)', async () => {
      const s = await serve();
      const response = await backend(s.url, { stream: false }).complete(AGENT);
      // Nothing was asked before: nothing is cached.
      expect(response.usage).toEqual({ promptTokens: billed(CONTEXT), completionTokens: expect.any(Number) as number, cachedTokens: 0 });
      expect([response.usageSource, response.finishReason]).toEqual(['provider', 'stop']);
      expect(chatBodies(s)[0]).not.toHaveProperty('stream_options');
    });

    it('streams by default, asking for the usage chunk, and reads the usage from it', async () => {
      const s = await serve();
      const response = await backend(s.url).complete(AGENT);
      expect(chatBodies(s)[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      expect(response.usage.promptTokens).toBe(billed(CONTEXT));
      expect(response.usage.completionTokens).toBeGreaterThan(0);
      expect(response.finishReason).toBe('stop');
      expect(response.message.content).not.toBe('');
    });

    it.each([false, true])('reads the prompt-cache hits from prompt_tokens_details.cached_tokens (stream: %s)', async (stream) => {
      const s = await serve();
      const b = backend(s.url, { stream });
      await b.complete(AGENT);
      const longer = [...CONTEXT, assistantMessage({ id: 'a2', content: 'Found it.' }), userMessage({ id: 'u2', content: 'Go on.' })];
      const response = await b.complete({ messages: longer, purpose: 'agent' });
      // The server caches whole messages: the five sent before are served from its cache.
      const shared = CONTEXT.reduce((sum, m) => sum + counter.countMessage(m), 0);
      expect(response.usage).toMatchObject({ promptTokens: billed(longer), cachedTokens: shared });
    });

    it('sends OpenAI shapes: call ids, content null for a pure call turn, derived tools, no num_ctx', async () => {
      const s = await serve();
      await backend(s.url).complete(AGENT);
      const body = chatBodies(s)[0]!;
      expect((body['messages'] as unknown[])[2]).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"cat src/app.py"}' } },
          { id: 'call_2', type: 'function', function: { name: 'grep', arguments: '{"pattern":"parse"}' } },
        ],
      });
      expect((body['messages'] as unknown[])[4]).toEqual({ role: 'tool', tool_call_id: 'call_2', content: 'src/app.py:1' });
      expect((body['tools'] as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['bash', 'grep']);
      expect(body).not.toHaveProperty('options');
      expect(body).not.toHaveProperty('max_tokens');
    });

    it("sends the scenario's tool definitions when the request carries them (not made-up ones), and the server bills them in prompt_tokens", async () => {
      const s = await serve();
      const tools = [
        { name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
        { name: 'grep', description: 'Search files.', parameters: { type: 'object', properties: { pattern: { type: 'string' } } } },
      ];
      const response = await backend(s.url, { stream: false }).complete({ ...AGENT, tools });
      expect(chatBodies(s)[0]!['tools']).toEqual(tools.map((t) => ({ type: 'function', function: t })));
      expect(response.usage.promptTokens).toBe(withTools(counter, tools).countContext(CONTEXT));
    });

    it.each([false, true])('asks for one output token in measure mode (max_tokens 1, stream: %s)', async (stream) => {
      const s = await serve();
      const request: ChatRequest = { messages: [...CONTEXT, userMessage({ id: 'i', content: 'Summarize the work so far.' })], purpose: 'summary', maxOutputTokens: 1 };
      const response = await backend(s.url, { stream }).complete(request);
      expect(chatBodies(s)[0]!['max_tokens']).toBe(1);
      expect(response.usage.completionTokens).toBe(1);
      expect(response.finishReason).toBe('length');
    });
  });

  describe('tool calls in answers (scripted SSE)', () => {
    const sse = (chunks: unknown[]): typeof fetch => async () =>
      new Response([...chunks.map((c) => JSON.stringify(c)), '[DONE]'].map((d) => `data: ${d}\n\n`).join(''), { headers: { 'Content-Type': 'text/event-stream' } });
    const chunk = (delta: object, finish: string | null = null) => ({ id: 'x', object: 'chat.completion.chunk', created: 0, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] });

    it('a malformed answer ends in one protocol line naming the field, not retried: never a crash, a stalled CPU or garbage stored', async () => {
      const bad: [string, unknown[], RegExp][] = [
        ['finish_reason 7', [chunk({ content: 'ok' }, 7 as never)], /finish_reason is not text \(7\)/],
        ['content 123', [chunk({ content: 123 }, 'stop')], /delta\.content is not text \(123\)/],
        ['tool call index 1e9', [chunk({ tool_calls: [{ index: 1e9, id: 't', function: { name: 'x', arguments: '{}' } }] }, 'tool_calls')], /a tool call delta whose index is not 0 to 1023/],
        ['a null tool call', [chunk({ tool_calls: [null] }, 'tool_calls')], /a tool call delta whose index is not 0 to 1023 \(null\)/],
        ['no choices', [{ id: 'x', object: 'chat.completion.chunk', created: 0, model: MODEL }], /a stream chunk without a choices list/],
      ];
      for (const [what, chunks, rule] of bad) {
        let requests = 0;
        const counted: typeof fetch = async (input, init) => (requests++, sse(chunks)(input, init));
        const b = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: counted });
        const error = await b.complete(AGENT).then(() => undefined, (e: unknown) => e as BackendError);
        expect(error, what).toBeInstanceOf(BackendError);
        expect(error!.message, what).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:9/v1 sent a malformed answer for model '${MODEL}': ${rule.source}`));
        expect(requests, what).toBe(1);
      }
    });

    it('an answer over MAX_RESPONSE_BYTES is cut off at that size with one line (a 100 MB event took minutes of CPU)', async () => {
      const huge: typeof fetch = async () => {
        const event = new TextEncoder().encode(`data: ${JSON.stringify(chunk({ content: 'a'.repeat(2 ** 20) }))}\n\n`);
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ < 100) controller.enqueue(event);
            else controller.close();
          },
        });
        return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
      };
      const b = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: huge });
      await expect(b.complete(AGENT)).rejects.toThrow(`http://127.0.0.1:9/v1 sent an answer of more than ${MAX_RESPONSE_BYTES / 2 ** 20} MiB for model '${MODEL}'`);
    });

    it('a server that ignores stream: true and answers a whole completion (JSON) gives the same answer as its stream would', async () => {
      let streamAsked = false;
      const whole: typeof fetch = async (_input, init) => {
        streamAsked = JSON.parse(String(init?.body)).stream === true;
        return Response.json({
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: 'Listing.', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] }, finish_reason: 'tool_calls' }],
          usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
        });
      };
      const response = await createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: whole }).complete(AGENT);
      expect(streamAsked).toBe(true);
      expect(response.message.content).toBe('Listing.');
      expect(response.message.toolCalls).toEqual([{ id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' }]);
      expect(response.finishReason).toBe('tool_calls');
      expect(response.usage).toEqual({ promptTokens: 50, completionTokens: 20 });
    });

    it('assembles parallel calls from deltas: ids, names once, arguments split across chunks', async () => {
      const scripted = sse([
        chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'bash', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"comm' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'grep', arguments: '{"pattern":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"ls"}' } }, { index: 1, function: { arguments: '"x"}' } }] }),
        chunk({}, 'tool_calls'),
        { id: 'x', object: 'chat.completion.chunk', created: 0, model: MODEL, choices: [], usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 } },
      ]);
      const b = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: scripted });
      const response = await b.complete(AGENT);
      expect(response.message.toolCalls).toEqual([
        { id: 'call_a', name: 'bash', arguments: '{"command":"ls"}' },
        { id: 'call_b', name: 'grep', arguments: '{"pattern":"x"}' },
      ]);
      expect([response.finishReason, response.usage.promptTokens, response.message.content]).toEqual(['tool_calls', 50, '']);
    });

    describe('usage values that are no token count (regression: "abc" and -190 crashed the run, null was taken as a count)', () => {
      const usageChunk = (usage: unknown) => ({ id: 'x', object: 'chat.completion.chunk', created: 0, model: MODEL, choices: [], usage });
      it.each([-190, 12.5, 1e300, 'abc', null])('drops prompt_tokens %s and names it (stream)', async (value) => {
        const scripted = sse([chunk({ content: 'ok' }, 'stop'), usageChunk({ prompt_tokens: value, completion_tokens: 2, total_tokens: 9 })]);
        const b = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: scripted });
        const response = await b.complete(AGENT);
        expect(response.usage).toEqual({ completionTokens: 2 });
        expect(response.invalidUsage?.map((i) => i.field)).toEqual(['usage.prompt_tokens']);
      });

      it('drops bad values in a whole answer, and a cached count above the prompt count', async () => {
        const whole: typeof fetch = async () =>
          Response.json({
            id: 'x', object: 'chat.completion', created: 0, model: MODEL,
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 50, completion_tokens: '7', prompt_tokens_details: { cached_tokens: 80 } },
          });
        const b = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, stream: false, fetch: whole });
        const response = await b.complete(AGENT);
        expect(response.usage).toEqual({ promptTokens: 50 });
        expect(response.invalidUsage?.map((i) => i.field)).toEqual(['usage.completion_tokens', 'usage.prompt_tokens_details.cached_tokens']);
      });

      it('reads no cached count from a prompt_tokens_details of null (vLLM), without a complaint', async () => {
        const scripted = sse([chunk({ content: 'ok' }, 'stop'), usageChunk({ prompt_tokens: 50, completion_tokens: 2, prompt_tokens_details: null })]);
        const response = await createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: scripted }).complete(AGENT);
        expect([response.usage, response.invalidUsage ?? []]).toEqual([{ promptTokens: 50, completionTokens: 2 }, []]);
      });
    });

    it('treats a stream that ends without a finish_reason as cut, and retries it', async () => {
      let calls = 0;
      const flaky: typeof fetch = async (input, init) => (++calls === 1 ? sse([chunk({ content: 'half' })]) : sse([chunk({ content: 'whole' }, 'stop')]))(input, init);
      const b = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: flaky });
      const response = await b.complete(AGENT);
      expect([response.message.content, response.usage.promptTokens, calls]).toEqual(['whole', undefined, 2]);
    });
  });

  describe('faults', () => {
    it.each([false, true])('retries a refused connection and succeeds when the server comes back (stream: %s)', async (stream) => {
      const s = await serve({ faults: [{ kind: 'refuse', times: 1 }] });
      await backend(s.url, { stream }).complete(AGENT);
      expect(chatBodies(s)).toHaveLength(2);
    });

    it('gives up on a server that keeps refusing: unreachable, one request per attempt (client retries off)', async () => {
      const s = await serve({ faults: [{ kind: 'refuse', times: Infinity }] });
      const error = await failure(backend(s.url).complete(AGENT));
      expect(error.kind).toBe('unreachable');
      expect(error.message).toMatch(new RegExp(`^cannot reach the OpenAI-compatible server at ${s.url}/v1 \\(.+\\); check that it is running, or pass --base-url$`));
      expect([error.attempts, chatBodies(s).length]).toEqual([3, 3]);
    });

    it('names the URL when nothing listens', async () => {
      const s = await serve();
      const { url } = s;
      await s.close();
      server = undefined;
      const error = await failure(backend(url).complete(AGENT));
      expect(error.message).toBe(`cannot reach the OpenAI-compatible server at ${url}/v1 (connection refused); check that it is running, or pass --base-url`);
    });

    it('retries a 500 once per attempt', async () => {
      const s = await serve({ faults: [{ kind: 'http500', times: Infinity }] });
      const error = await failure(backend(s.url).complete(AGENT));
      expect([error.kind, error.status, error.attempts, chatBodies(s).length]).toEqual(['http', 500, 3, 3]);
      expect(error.message).toContain('The server had an error while processing your request');
    });

    it('retries a 429 after its Retry-After', async () => {
      const s = await serve({ faults: [{ kind: 'http429', retryAfterSeconds: 0.15 }] });
      const delays: number[] = [];
      await backend(s.url, { delays }).complete(AGENT);
      expect(delays).toEqual([150]);
      expect(chatBodies(s)).toHaveLength(2);
    });

    it.each([false, true])('times out a slow first byte, and does not retry it (stream: %s)', async (stream) => {
      const s = await serve({ faults: [{ kind: 'slow-first-byte', delayMs: 3_600_000 }] }); // held until the server closes: the timeout always comes first
      const error = await failure(backend(s.url, { stream, policy: { timeoutMs: 200 } }).complete(AGENT));
      expect(error.kind).toBe('timeout');
      expect(error.message).toBe(`${s.url}/v1 did not answer within 0.2 s (model '${MODEL}'); raise the request timeout`);
      expect(chatBodies(s)).toHaveLength(1);
    });

    it.each([false, true])('retries an answer cut mid-way (stream: %s)', async (stream) => {
      const s = await serve({ faults: [{ kind: 'cut-stream' }] });
      const response = await backend(s.url, { stream }).complete(AGENT);
      expect(response.usage.promptTokens).toBe(billed(CONTEXT));
      expect(chatBodies(s)).toHaveLength(2);
    });

    it.each([false, true])('keeps missing usage undefined, never 0 (stream: %s)', async (stream) => {
      const s = await serve({ faults: [{ kind: 'no-usage' }] });
      const response = await backend(s.url, { stream }).complete(AGENT);
      expect(response.usage).toEqual({ promptTokens: undefined, completionTokens: undefined });
      expect(response.finishReason).toBe('stop');
    });

    it.each([false, true])('fails a response that is not JSON as a protocol error, without retrying (stream: %s)', async (stream) => {
      const s = await serve({ faults: [{ kind: 'malformed-json' }] });
      const error = await failure(backend(s.url, { stream }).complete(AGENT));
      expect(error.kind).toBe('protocol');
      expect(error.message).toMatch(new RegExp(`^${s.url}/v1 sent a response that is not JSON`));
      expect(chatBodies(s)).toHaveLength(1);
    });
  });

  describe('preflight', () => {
    it('passes a model GET /models lists, without a chat request, with its context length when the listing has it', async () => {
      const s = await serve();
      expect(await backend(s.url).preflight()).toEqual({ contextLength: 4096 });
      expect(chatBodies(s)).toHaveLength(0);
    });

    it('asks one output token for a model GET /models does not list, and fails as a run would (404)', async () => {
      const s = await serve();
      const missing = await failure(backend(s.url, { model: 'gpt-9' }).preflight());
      expect([missing.kind, missing.status, missing.attempts]).toEqual(['http', 404, 1]);
      expect(missing.message).toMatch(new RegExp(`^${s.url}/v1 has no model 'gpt-9' \\(404: `));
      expect(chatBodies(s).map((b) => b['max_tokens'])).toEqual([1]);
    });

    it('passes a model the listing leaves out that the server still serves (an alias)', async () => {
      const completion = { id: 'c', object: 'chat.completion', created: 0, model: MODEL, choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'length' }] };
      const aliasing = await faultServer((request) => (request.endsWith('/models') ? [200, { object: 'list', data: [] }] : [200, completion]));
      try {
        expect(await backend(aliasing.url).preflight()).toEqual({});
        expect(aliasing.requests).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
      } finally {
        await aliasing.close();
      }
    });

    it('fails at once, naming OPENAI_API_KEY, on a refused key (401)', async () => {
      const refusing = await faultServer(() => [401, openAiError('Incorrect API key provided')]);
      try {
        const refused = await failure(backend(refusing.url).preflight());
        expect([refused.status, refused.attempts]).toEqual([401, 1]);
        expect(refused.message).toBe(`${refusing.url}/v1 refused the API key (401: Incorrect API key provided); check OPENAI_API_KEY`);
      } finally {
        await refusing.close();
      }
    });

    it.each([
      ['vLLM', { max_model_len: 8192 }],
      ['llama.cpp server', { meta: { n_ctx_train: 8192 } }],
      ['OpenRouter, LM Studio', { context_length: 8192 }],
    ])('reads the context length the way %s lists it', async (_server, fields) => {
      const listing: typeof fetch = async () => Response.json({ object: 'list', data: [{ id: MODEL, object: 'model', ...fields }] });
      const b = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: KEY, model: MODEL, policy: POLICY, fetch: listing });
      expect(await b.preflight()).toEqual({ contextLength: 8192 });
    });

    it("prices its runs at the served model's list prices", () => {
      expect(backend('http://127.0.0.1:9').priceModel).toBe(MODEL);
    });

    it('fails at once on a server that is down', async () => {
      const s = await serve();
      const { url } = s;
      await s.close();
      server = undefined;
      const down = await failure(backend(url).preflight());
      expect([down.kind, down.attempts]).toEqual(['unreachable', 1]);
    });
  });

  describe('bad input', () => {
    it('names the unknown model and the base URL (404), without retrying', async () => {
      const s = await serve();
      const error = await failure(backend(s.url, { model: 'gpt-9' }).complete(AGENT));
      expect([error.kind, error.status, error.attempts]).toEqual(['http', 404, 1]);
      expect(error.message).toBe(`${s.url}/v1 has no model 'gpt-9' (404: The model \`gpt-9\` does not exist or you do not have access to it.); check the model name and --base-url`);
    });

    it('hints at the /v1 suffix when the base URL has none', async () => {
      const s = await serve();
      const error = await failure(backend(s.url, { path: '' }).complete(AGENT));
      expect(error.status).toBe(404);
      expect(error.message).toMatch(/most servers want a \/v1 suffix\)$/);
    });

    it("passes the provider's message of a 400 on (broken pairing), without retrying", async () => {
      const s = await serve();
      const orphan = [CONTEXT[0]!, CONTEXT[1]!, toolMessage({ id: 't', toolCallId: 'call_9', name: 'bash', content: 'out' })];
      const error = await failure(backend(s.url).complete({ messages: orphan, purpose: 'agent' }));
      expect([error.kind, error.status, error.attempts]).toEqual(['http', 400, 1]);
      expect(error.message).toBe(`${s.url}/v1 answered 400 for model '${MODEL}': Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`);
    });

    it('passes on a context-length 400 (OpenAI rejects, never truncates)', async () => {
      const s = await serve();
      const long = [userMessage({ id: 'u', content: 'word '.repeat(6000) })];
      const error = await failure(backend(s.url).complete({ messages: long, purpose: 'agent' }));
      expect(error.status).toBe(400);
      expect(error.message).toContain("This model's maximum context length is 4096 tokens");
    });
  });
});
