import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { userMessage } from '../core/messages.js';
import { createOllamaBackend } from './ollama.js';
import { createOpenAiBackend } from './openai.js';
import {
  BackendError,
  backoffDelay,
  connectionFailure,
  displayUrl,
  isTimeout,
  oneLine,
  parseRetryAfter,
  RETRY_DEFAULTS,
  timedFetch,
  withRetries,
  type RetryPolicy,
} from './retry.js';
import type { ChatRequest } from '../core/backend.js';

// Fixtures: a fast policy, a sleep that records instead of waiting, and a scripted fetch.
const POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000, timeoutMs: 5000 };
const HOST = 'http://127.0.0.1:11434';
const REQUEST: ChatRequest = { messages: [userMessage({ id: 'u', content: 'hello' })], purpose: 'agent', window: 8192 };
const OLLAMA_OK = { model: 'm', message: { role: 'assistant', content: 'hi' }, done: true, done_reason: 'stop', prompt_eval_count: 9, eval_count: 2 };

function recorder(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

type Step = Response | Error | (() => Response | Error);
/** A fetch that plays `steps` in order (the last one repeats) and counts its calls. */
function scriptedFetch(steps: Step[]): typeof fetch & { calls: number } {
  const f = async (): Promise<Response> => {
    const step = steps[Math.min(f.calls, steps.length - 1)]!;
    f.calls += 1;
    const made = typeof step === 'function' ? step() : step;
    if (made instanceof Error) throw made;
    return made.clone();
  };
  f.calls = 0;
  return f as unknown as typeof fetch & { calls: number };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const refused = (): Error => new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' }) });

function ollama(fetchImpl: typeof fetch, waits = recorder(), policy: RetryPolicy = POLICY) {
  return createOllamaBackend({ host: HOST, model: 'qwen2.5-coder:7b', policy, fetch: fetchImpl, hooks: { sleep: waits.sleep } });
}

describe('retry', () => {
  describe('backoff schedule', () => {
    it('doubles from the base delay and stops at the cap', () => {
      expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, POLICY))).toEqual([100, 200, 400, 800, 1000]);
    });

    it('has defaults that survive a flaky local server for about half a minute', () => {
      expect(RETRY_DEFAULTS).toEqual({ attempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000, timeoutMs: 300_000 });
    });
  });

  describe('Retry-After', () => {
    it('reads seconds and HTTP dates', () => {
      const now = Date.parse('2025-01-01T00:00:00Z');
      expect(parseRetryAfter('2')).toBe(2000);
      expect(parseRetryAfter('0.5')).toBe(500);
      expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:03 GMT', now)).toBe(3000);
      expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    });

    it('ignores an absent or unreadable header', () => {
      expect([null, undefined, '', 'soon', '-1'].map((v) => parseRetryAfter(v))).toEqual([undefined, undefined, undefined, undefined, undefined]);
    });
  });

  describe('withRetries', () => {
    const retryable = (kind: 'unreachable' | 'http' = 'http', retryAfterMs?: number) => new BackendError(kind, 'flaky', { retryable: true, retryAfterMs });

    it('retries a retryable failure on the backoff schedule, then succeeds', async () => {
      const { sleep, waits } = recorder();
      let calls = 0;
      const result = await withRetries(async () => (++calls < 3 ? Promise.reject(retryable()) : 'ok'), (e) => e as BackendError, POLICY, { sleep });
      expect(result).toBe('ok');
      expect(waits).toEqual([100, 200]);
    });

    it('gives up after `attempts`, rethrowing the last error with the count', async () => {
      const { sleep, waits } = recorder();
      const error = await withRetries(() => Promise.reject(retryable('unreachable')), (e) => e as BackendError, POLICY, { sleep }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BackendError);
      expect((error as BackendError).attempts).toBe(4);
      expect(waits).toEqual([100, 200, 400]);
    });

    it('waits what Retry-After asks, capped at maxDelayMs', async () => {
      const { sleep, waits } = recorder();
      const afters = [300, 60_000];
      let calls = 0;
      await withRetries(async () => (calls < 2 ? Promise.reject(retryable('http', afters[calls++])) : 'ok'), (e) => e as BackendError, POLICY, { sleep });
      expect(waits).toEqual([300, 1000]);
    });

    it('does not retry what cannot succeed', async () => {
      const { sleep, waits } = recorder();
      const fatal = new BackendError('http', 'bad request', { status: 400 });
      await expect(withRetries(() => Promise.reject(fatal), (e) => e as BackendError, POLICY, { sleep })).rejects.toBe(fatal);
      expect(waits).toEqual([]);
    });

    it('tells onRetry about each retry', async () => {
      const seen: [number, number][] = [];
      await withRetries(() => Promise.reject(retryable()), (e) => e as BackendError, { ...POLICY, attempts: 3 }, {
        sleep: async () => {},
        onRetry: (_e, attempt, delay) => seen.push([attempt, delay]),
      }).catch(() => {});
      expect(seen).toEqual([[1, 100], [2, 200]]);
    });
  });

  describe('timedFetch', () => {
    /** A fetch that never answers, only its signal ends it. */
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));

    it('aborts an attempt after timeoutMs with a TimeoutError', async () => {
      const error = await timedFetch(20, hanging)('http://x/').catch((e: unknown) => e);
      expect(isTimeout(error)).toBe(true);
    });

    it("still obeys the caller's own signal", async () => {
      const controller = new AbortController();
      const pending = timedFetch(10_000, hanging)('http://x/', { signal: controller.signal });
      controller.abort(new Error('stopped'));
      await expect(pending).rejects.toThrow('stopped');
    });
  });

  describe('classifying failures', () => {
    it('names connection failures in a few words', () => {
      expect(connectionFailure(refused())).toBe('connection refused');
      expect(connectionFailure(new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }))).toBe('connection closed by the server');
      expect(connectionFailure(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }))).toBe('connection closed mid-response');
      expect(connectionFailure(new SyntaxError('Unexpected end of JSON input'))).toBeUndefined();
    });

    it("says fetch's own reason when there is no socket code (it said only 'fetch failed')", async () => {
      const server = createServer((request, response) => response.writeHead(307, { location: request.url }).end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const failure = await fetch(`http://127.0.0.1:${port}/api/chat`).then(() => undefined, (error: unknown) => error);
      server.close();
      expect(connectionFailure(failure)).toBe('redirect count exceeded');
      expect(connectionFailure(await fetch('http://127.0.0.1:9/').then(() => undefined, (error: unknown) => error))).toBe('bad port');
      expect(connectionFailure(new TypeError('fetch failed'))).toBe('fetch failed');
    });

    it("treats Node's 300 s header timeout as a timeout", () => {
      expect(isTimeout(new TypeError('fetch failed', { cause: Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) }))).toBe(true);
    });

    it('prints URLs without credentials and messages on one line without the key', () => {
      expect(displayUrl('https://user:sk-secret-123@example.com/v1/')).toBe('https://example.com/v1');
      expect(oneLine('\nIncorrect API key provided: sk-secret-123.\nsee docs', 'sk-secret-123')).toBe('Incorrect API key provided: ***.');
    });
  });

  describe('through a backend, with a fake fetch', () => {
    it('retries 500s with backoff and returns the answer of the attempt that worked', async () => {
      const waits = recorder();
      const f = scriptedFetch([json(500, { error: 'llama runner crashed' }), json(503, { error: 'busy' }), json(200, OLLAMA_OK)]);
      const response = await ollama(f, waits).complete(REQUEST);
      expect(response.message.content).toBe('hi');
      expect(f.calls).toBe(3);
      expect(waits.waits).toEqual([100, 200]);
    });

    it("honours a 429's Retry-After (Ollama's client hides headers: our fetch keeps them)", async () => {
      const waits = recorder();
      const f = scriptedFetch([json(429, { error: 'server busy' }, { 'Retry-After': '0.7' }), json(200, OLLAMA_OK)]);
      await ollama(f, waits).complete(REQUEST);
      expect(waits.waits).toEqual([700]);
    });

    it('gives up on a server that stays down, with the one-line message', async () => {
      const waits = recorder();
      const f = scriptedFetch([refused]);
      const error = (await ollama(f, waits).complete(REQUEST).catch((e: unknown) => e)) as BackendError;
      expect(error.kind).toBe('unreachable');
      expect(error.message).toBe(`cannot reach Ollama at ${HOST} (connection refused); start it with \`ollama serve\` or pass --host`);
      expect(error.attempts).toBe(4);
      expect(f.calls).toBe(4);
      expect(waits.waits).toEqual([100, 200, 400]);
    });

    it('does not retry a 400, and shows the provider message', async () => {
      const f = scriptedFetch([json(400, { error: 'invalid message format' })]);
      const error = (await ollama(f).complete(REQUEST).catch((e: unknown) => e)) as BackendError;
      expect([error.kind, error.status, f.calls]).toEqual(['http', 400, 1]);
      expect(error.message).toContain('invalid message format');
    });

    it('retries the OpenAI client too, exactly once per attempt (its own retries are off)', async () => {
      const waits = recorder();
      const ok = { id: 'x', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1 } };
      const f = scriptedFetch([json(500, { error: { message: 'oops' } }), json(429, { error: { message: 'slow down' } }, { 'retry-after': '0.25' }), json(200, ok)]);
      const backend = createOpenAiBackend({ baseUrl: 'http://127.0.0.1:8000/v1', apiKey: 'sk-test-abcdef', model: 'm', stream: false, policy: POLICY, fetch: f, hooks: { sleep: waits.sleep } });
      const response = await backend.complete(REQUEST);
      expect(response.usage).toEqual({ promptTokens: 5, completionTokens: 1 });
      expect(f.calls).toBe(3);
      expect(waits.waits).toEqual([100, 250]);
    });
  });
});
