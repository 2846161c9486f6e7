/**
 * End to end: the real `ollama` client against the local model server (src/server) on 127.0.0.1.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../core/messages.js';
import { createTokenCounter, withTools, type TokenCounter } from '../core/tokens.js';
import { startModelServer, type RunningServer, type ServerOptions } from '../server/index.js';
import { createOllamaBackend } from './ollama.js';
import { suspectTruncation } from './truncation.js';
import { BackendError, type RetryPolicy } from './retry.js';
import { toolNamesOf } from './convert.js';
import type { ChatRequest } from '../core/backend.js';
import { LOCAL_PRICE_MODEL } from '../core/models.js';

// Fixtures: a fast retry policy, a small context with a tool round, and a long one for truncation.
const POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 10, maxDelayMs: 200, timeoutMs: 5000 };
const MODEL = 'qwen2.5-coder:7b';
const CONTEXT: Message[] = [
  systemMessage({ id: 's', content: 'You are a coding agent.' }),
  userMessage({ id: 'u', content: 'Fix parse() in src/app.py.' }),
  assistantMessage({ id: 'a', content: 'Looking.', toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"cat src/app.py"}' }] }),
  toolMessage({ id: 't', toolCallId: 'c1', name: 'bash', content: 'def parse(line):\n    return line.split(",")[:-1]' }),
];
const AGENT: ChatRequest = { messages: CONTEXT, purpose: 'agent', window: 8192 };
const TOOLS = [{ name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string', description: 'The command.' } }, required: ['command'] } }];
const LONG: Message[] = [
  systemMessage({ id: 's', content: 'You are a coding agent.' }),
  ...Array.from({ length: 12 }, (_, i) => userMessage({ id: `u${i}`, content: `Observation ${i}: ${'lorem ipsum dolor sit amet '.repeat(30)}` })),
];

let counter: TokenCounter;
let server: RunningServer | undefined;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});
/** What the server bills for a context the client declares derived tools for: one definition per tool name it uses. */
const billed = (messages: readonly Message[]): number =>
  withTools(counter, toolNamesOf(messages).map((name) => ({ name, description: name, parameters: { type: 'object', properties: {} } }))).countContext(messages);

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: ServerOptions = {}): Promise<RunningServer> {
  server = await startModelServer({ models: [{ name: MODEL, contextLength: 32768 }], ...options });
  return server;
}

function backend(url: string, extra: { stream?: boolean; policy?: Partial<RetryPolicy>; model?: string; delays?: number[] } = {}) {
  return createOllamaBackend({
    host: url,
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

const chatBodies = (s: RunningServer) => s.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as Record<string, unknown>);

describe('ollama backend (real client, local server)', () => {
  describe('requests', () => {
    it.each([false, true])('answers with the provider usage and done_reason (stream: %s)', async (stream) => {
      const s = await serve();
      const response = await backend(s.url, { stream }).complete(AGENT);
      expect(response.usageSource).toBe('provider');
      // The declared tools are billed with the prompt, as a provider bills them.
      expect(response.usage.promptTokens).toBe(billed(CONTEXT));
      expect(response.usage.completionTokens).toBeGreaterThan(0);
      expect(response.finishReason).toBe('stop');
      expect(response.message.content).not.toBe('');
      expect(chatBodies(s)[0]).toMatchObject({ model: MODEL, stream });
    });

    it('always sends num_ctx = the window, the messages in Ollama shape and the derived tools', async () => {
      const s = await serve();
      await backend(s.url).complete(AGENT);
      const body = chatBodies(s)[0]!;
      expect(body['options']).toEqual({ num_ctx: 8192 });
      expect((body['messages'] as unknown[])[2]).toEqual({ role: 'assistant', content: 'Looking.', tool_calls: [{ function: { name: 'bash', arguments: { command: 'cat src/app.py' } } }] });
      expect((body['messages'] as unknown[])[3]).toMatchObject({ role: 'tool', tool_name: 'bash' });
      expect(body['tools']).toEqual([{ type: 'function', function: { name: 'bash', description: 'bash', parameters: { type: 'object', properties: {} } } }]);
    });

    it("sends the scenario's tool definitions when the request carries them, and the server bills them in prompt_eval_count", async () => {
      const s = await serve();
      const response = await backend(s.url).complete({ ...AGENT, tools: TOOLS });
      expect(chatBodies(s)[0]!['tools']).toEqual(TOOLS.map((t) => ({ type: 'function', function: t })));
      expect(response.usage.promptTokens).toBe(withTools(counter, TOOLS).countContext(CONTEXT));
      expect(response.usage.promptTokens).toBeGreaterThan(counter.countContext(CONTEXT) + 20);
    });

    it('asks for one output token in measure mode (num_predict 1)', async () => {
      const s = await serve();
      const summaryRequest: ChatRequest = { messages: [...CONTEXT, userMessage({ id: 'i', content: 'Summarize the work so far.' })], purpose: 'summary', window: 8192, maxOutputTokens: 1 };
      const response = await backend(s.url).complete(summaryRequest);
      expect(chatBodies(s)[0]!['options']).toEqual({ num_ctx: 8192, num_predict: 1 });
      expect(response.usage.completionTokens).toBe(1);
      expect(response.finishReason).toBe('length');
    });

    it('does not change the request it was given (the client mutates what it sends)', async () => {
      const s = await serve();
      const b = backend(s.url);
      await b.complete(AGENT);
      await b.complete(AGENT);
      expect(chatBodies(s).map((body) => body['stream'])).toEqual([false, false]);
    });

    it('falls back to the backend window when a request has none, and needs one', async () => {
      const s = await serve();
      await createOllamaBackend({ host: s.url, model: MODEL, policy: POLICY, window: 4096 }).complete({ messages: CONTEXT, purpose: 'agent' });
      expect(chatBodies(s)[0]!['options']).toEqual({ num_ctx: 4096 });
      await expect(backend(s.url).complete({ messages: CONTEXT, purpose: 'agent' })).rejects.toThrow(/needs the context window/);
    });
  });

  describe('tool calls in answers (scripted server)', () => {
    const answer = { model: MODEL, message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'bash', arguments: { command: 'ls' } } }, { function: { name: 'grep', arguments: { pattern: 'x' } } }] } };

    it('an error answer in the OpenAI shape ({"error": {"message": ...}}) says its message, not [object Object]', async () => {
      const refusing: typeof fetch = async () => Response.json({ error: { message: 'bad key', type: 'auth' } }, { status: 401 });
      const b = createOllamaBackend({ host: 'http://127.0.0.1:9', model: MODEL, policy: POLICY, fetch: refusing });
      await expect(b.complete(AGENT)).rejects.toThrow(`Ollama at http://127.0.0.1:9 answered 401 for model '${MODEL}': bad key`);
    });

    it.each([false, true])('a field of the wrong type ends in one line naming it, never a crash or garbage stored (stream: %s)', async (stream) => {
      const done = { model: MODEL, done: true, prompt_eval_count: 40, eval_count: 1 };
      const bad: [object, string][] = [
        [{ ...done, message: { role: 'assistant', content: 123 } }, 'message.content is not text (123)'],
        [{ ...done, message: { role: 'assistant', content: 'ok' }, done_reason: 7 }, 'done_reason is not text (7)'],
        [{ ...done, message: { role: 'assistant', content: '', tool_calls: [{ function: { name: null, arguments: 42 } }, 'junk'] } }, 'a tool call without a function name ({"function":{"name":null,"arguments":42}})'],
        [{ ...done, message: { role: 'assistant', content: '', tool_calls: 'junk' } }, 'message.tool_calls is not a list ("junk")'],
      ];
      for (const [line, problem] of bad) {
        const scripted: typeof fetch = async () => new Response(`${JSON.stringify(line)}\n`, { headers: { 'Content-Type': 'application/x-ndjson' } });
        const b = createOllamaBackend({ host: 'http://127.0.0.1:9', model: MODEL, policy: POLICY, stream, fetch: scripted });
        await expect(b.complete(AGENT), problem).rejects.toThrow(`Ollama at http://127.0.0.1:9 failed on model '${MODEL}': ${problem}`);
      }
    });

    it.each([false, true])('stringifies object arguments and numbers parallel calls (stream: %s)', async (stream) => {
      const lines = stream
        ? [answer, { model: MODEL, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 40, eval_count: 12 }]
        : [{ ...answer, done: true, done_reason: 'stop', prompt_eval_count: 40, eval_count: 12 }];
      const scripted: typeof fetch = async () => new Response(lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { headers: { 'Content-Type': 'application/x-ndjson' } });
      const b = createOllamaBackend({ host: 'http://127.0.0.1:9', model: MODEL, policy: POLICY, stream, fetch: scripted });
      const response = await b.complete(AGENT);
      expect(response.message.toolCalls).toEqual([
        { id: `${response.message.id}:call:0`, name: 'bash', arguments: '{"command":"ls"}' },
        { id: `${response.message.id}:call:1`, name: 'grep', arguments: '{"pattern":"x"}' },
      ]);
      expect(response.usage).toEqual({ promptTokens: 40, completionTokens: 12 });
    });

    describe('usage values that are no token count (regression: -190 crashed the cost, 12.5 the store)', () => {
      const respond = (counts: Record<string, unknown>): typeof fetch => async () =>
        new Response(JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'ok' }, done: true, done_reason: 'stop', ...counts }));
      it.each([-190, 12.5, 1e300, 'abc', null])('drops prompt_eval_count %s and names it', async (value) => {
        const b = createOllamaBackend({ host: 'http://127.0.0.1:9', model: MODEL, policy: POLICY, fetch: respond({ prompt_eval_count: value, eval_count: 4 }) });
        const response = await b.complete(AGENT);
        expect(response.usage).toEqual({ completionTokens: 4 });
        expect(response.invalidUsage).toHaveLength(1);
        expect(response.invalidUsage![0]!.field).toBe('prompt_eval_count');
      });

      it('drops a bad eval_count too, keeping the prompt count', async () => {
        const b = createOllamaBackend({ host: 'http://127.0.0.1:9', model: MODEL, policy: POLICY, stream: true, fetch: respond({ prompt_eval_count: 40, eval_count: -3 }) });
        const response = await b.complete(AGENT);
        expect(response.usage).toEqual({ promptTokens: 40 });
        expect(response.invalidUsage?.map((i) => i.field)).toEqual(['eval_count']);
      });
    });

    it('reads a prompt_eval_count of 0 (prompt served from cache) as unknown, never 0', async () => {
      const scripted: typeof fetch = async () => new Response(JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'ok' }, done: true, prompt_eval_count: 0, eval_count: 1 }));
      const response = await createOllamaBackend({ host: 'http://127.0.0.1:9', model: MODEL, policy: POLICY, fetch: scripted }).complete(AGENT);
      expect(response.usage).toEqual({ promptTokens: undefined, completionTokens: 1 });
    });
  });

  describe('faults', () => {
    it('retries a refused connection and succeeds when the server comes back', async () => {
      const s = await serve({ faults: [{ kind: 'refuse', times: 1 }] });
      const response = await backend(s.url).complete(AGENT);
      expect(response.usage.promptTokens).toBeGreaterThan(0);
      expect(chatBodies(s)).toHaveLength(2);
    });

    it('gives up on a server that keeps refusing: unreachable, after every attempt', async () => {
      const s = await serve({ faults: [{ kind: 'refuse', times: Infinity }] });
      const error = await failure(backend(s.url).complete(AGENT));
      expect(error.kind).toBe('unreachable');
      expect(error.message).toMatch(new RegExp(`^cannot reach Ollama at ${s.url} \\(.+\\); start it with \`ollama serve\` or pass --host$`));
      expect([error.attempts, chatBodies(s).length]).toEqual([3, 3]);
    });

    it('says how to start Ollama when nothing listens', async () => {
      const s = await serve();
      const { url } = s;
      await s.close();
      server = undefined;
      const error = await failure(backend(url).complete(AGENT));
      expect(error.kind).toBe('unreachable');
      expect(error.message).toBe(`cannot reach Ollama at ${url} (connection refused); start it with \`ollama serve\` or pass --host`);
    });

    it('retries a 500', async () => {
      const s = await serve({ faults: [{ kind: 'http500' }] });
      await backend(s.url).complete(AGENT);
      expect(chatBodies(s)).toHaveLength(2);
    });

    it("retries a 429 after its Retry-After, though ollama-js hides the headers", async () => {
      const s = await serve({ faults: [{ kind: 'http429', retryAfterSeconds: 0.15 }] });
      const delays: number[] = [];
      await backend(s.url, { delays }).complete(AGENT);
      expect(delays).toEqual([150]);
    });

    it('reports a 500 that does not go away with its status and message', async () => {
      const s = await serve({ faults: [{ kind: 'http500', times: Infinity }] });
      const error = await failure(backend(s.url).complete(AGENT));
      expect([error.kind, error.status, error.attempts]).toEqual(['http', 500, 3]);
      expect(error.message).toContain('llama runner process has terminated');
    });

    it('times out a slow first byte, and does not retry it', async () => {
      const s = await serve({ faults: [{ kind: 'slow-first-byte', delayMs: 3_600_000 }] }); // held until the server closes: the timeout always comes first
      const error = await failure(backend(s.url, { policy: { timeoutMs: 200 } }).complete(AGENT));
      expect(error.kind).toBe('timeout');
      expect(error.message).toBe(`Ollama at ${s.url} did not answer within 0.2 s (model '${MODEL}'); raise the request timeout or use a smaller window`);
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
    });

    it.each([false, true])('fails a response that is not JSON as a protocol error, without retrying (stream: %s)', async (stream) => {
      const s = await serve({ faults: [{ kind: 'malformed-json' }] });
      const error = await failure(backend(s.url, { stream }).complete(AGENT));
      expect(error.kind).toBe('protocol');
      expect(error.message).toMatch(new RegExp(`^Ollama at ${s.url} sent a response that is not JSON`));
      expect(chatBodies(s)).toHaveLength(1);
    });
  });

  describe('bad input', () => {
    it('names an unknown model and says how to pull it', async () => {
      const s = await serve();
      const error = await failure(backend(s.url, { model: 'llama9:70b' }).complete(AGENT));
      expect([error.kind, error.status, error.attempts]).toEqual(['http', 404, 1]);
      expect(error.message).toBe(`Ollama at ${s.url} has no model 'llama9:70b'; run \`ollama pull llama9:70b\``);
    });
  });

  describe('preflight', () => {
    it('prices its runs as local ($0), whatever the model', () => {
      expect(backend('http://127.0.0.1:9').priceModel).toBe(LOCAL_PRICE_MODEL);
      expect(backend('http://127.0.0.1:9', { model: 'gpt-4o' }).priceModel).toBe(LOCAL_PRICE_MODEL);
    });

    it("reports the model's context length from /api/show", async () => {
      const s = await serve();
      expect(await backend(s.url).preflight()).toEqual({ contextLength: 32768 });
    });

    it('fails at once, with the run\'s one-line message, on an unknown model or a server that is down', async () => {
      const s = await serve();
      expect((await failure(backend(s.url, { model: 'nope' }).preflight())).message).toBe(`Ollama at ${s.url} has no model 'nope'; run \`ollama pull nope\``);
      const { url } = s;
      await s.close();
      server = undefined;
      const down = await failure(backend(url).preflight());
      expect([down.kind, down.attempts]).toEqual(['unreachable', 1]);
    });
  });

  describe('silent truncation', () => {
    it('is suspected when num_ctx is smaller than the prompt (HTTP 200, low prompt_eval_count)', async () => {
      const s = await serve();
      const local = counter.countContext(LONG);
      const small = await backend(s.url).complete({ messages: LONG, purpose: 'agent', window: 512 });
      expect(local).toBeGreaterThan(1500);
      expect(small.usage.promptTokens).toBeLessThanOrEqual(512);
      expect(suspectTruncation(local, small.usage.promptTokens)).toBe(true);
      const roomy = await backend(s.url).complete({ messages: LONG, purpose: 'agent', window: 8192 });
      expect(suspectTruncation(local, roomy.usage.promptTokens)).toBe(false);
    });

    it('is not suspected without a provider count, nor for small tokenizer differences', () => {
      expect(suspectTruncation(1000, undefined)).toBe(false);
      expect(suspectTruncation(1000, 900)).toBe(false);
      expect(suspectTruncation(1000, 849)).toBe(true);
    });
  });
});
