import { describe, expect, it } from 'vitest';
import { assistantMessage } from '../core/messages.js';
import { judgePreflightFailure, preflighted, type PreflightVerdict } from './preflight.js';
import { BackendError } from './retry.js';
import type { ChatRequest, LiveBackend, ServerInfo } from '../core/backend.js';

// Fixtures: the failures a preflight meets, and a live backend that counts its checks and requests.
const URL = 'http://127.0.0.1:11434';
const DOWN = new BackendError('unreachable', `cannot reach Ollama at ${URL} (connection refused); start it with \`ollama serve\` or pass --host`, { retryable: true });
const NO_MODEL = new BackendError('http', `Ollama at ${URL} has no model 'x'; run \`ollama pull x\``, { status: 404 });
const REFUSED = new BackendError('http', `${URL}/v1 refused the API key (401: bad key); check OPENAI_API_KEY`, { status: 401 });
const FORBIDDEN = new BackendError('http', `${URL}/v1 refused the API key (403: no access); check OPENAI_API_KEY`, { status: 403 });
const SILENT = new BackendError('timeout', `Ollama at ${URL} did not answer within 300 s`);
const NOT_OLLAMA = new BackendError('protocol', `Ollama at ${URL} sent a response that is not JSON (Unexpected token <)`);
const BUSY = new BackendError('http', `Ollama at ${URL} answered 503 for model 'x': overloaded`, { status: 503, retryable: true });
const LIMITED = new BackendError('http', `${URL}/v1 answered 429 for model 'x': slow down`, { status: 429, retryable: true });
const CUT = new BackendError('protocol', `the answer of Ollama at ${URL} was cut off`, { retryable: true });
const REQUEST: ChatRequest = { messages: [], purpose: 'agent' };

function fakeLive(check: () => Promise<ServerInfo>) {
  const counts = { checks: 0, requests: 0 };
  const live: LiveBackend = {
    name: 'ollama:chat:x',
    url: URL,
    model: 'x',
    options: {},
    priceModel: 'x',
    preflight: () => {
      counts.checks += 1;
      return check();
    },
    complete: async () => {
      counts.requests += 1;
      return { message: assistantMessage({ id: 'r', content: 'ok' }), usage: {}, usageSource: 'provider' };
    },
  };
  return { live, counts };
}

describe('judgePreflightFailure', () => {
  it.each([
    ['a server that is down', DOWN],
    ['an unknown model (404)', NO_MODEL],
    ['a refused key (401)', REFUSED],
    ['a forbidden key (403)', FORBIDDEN],
    ['a server that does not answer in time', SILENT],
    ['an answer in another protocol', NOT_OLLAMA],
  ])('stops the runs on %s: each would fail the same way', (_what, error) => {
    expect(judgePreflightFailure(error)).toEqual({ ok: false, error });
  });

  it.each([
    ['503', BUSY],
    ['429', LIMITED],
    ['a cut answer', CUT],
  ])('only warns on a busy server (%s): the runs retry it', (_what, error) => {
    expect(judgePreflightFailure(error)).toEqual({ ok: true, info: {}, warning: `the check before the first request failed (${error.message}); the runs retry as usual` });
  });
});

describe('preflighted', () => {
  it('checks once, before the first request, however many requests wait for it', async () => {
    const { live, counts } = fakeLive(async () => ({ contextLength: 8192 }));
    const verdicts: PreflightVerdict[] = [];
    const backend = preflighted(live, (v) => verdicts.push(v));
    await Promise.all([backend.complete(REQUEST), backend.complete(REQUEST), backend.complete(REQUEST)]);
    await backend.complete(REQUEST);
    expect(counts).toEqual({ checks: 1, requests: 4 });
    expect(verdicts).toEqual([{ ok: true, info: { contextLength: 8192 } }]);
    expect(backend.name).toBe(live.name);
  });

  it('check() runs it ahead of the requests, which then do not check again', async () => {
    const { live, counts } = fakeLive(async () => ({}));
    const backend = preflighted(live);
    expect(await backend.check()).toEqual({ ok: true, info: {} });
    await backend.complete(REQUEST);
    expect(counts).toEqual({ checks: 1, requests: 1 });
  });

  it('a server found unusable: every request fails at once with the check\'s error, none is sent', async () => {
    const { live, counts } = fakeLive(() => Promise.reject(DOWN));
    const verdicts: PreflightVerdict[] = [];
    const backend = preflighted(live, (v) => verdicts.push(v));
    await expect(backend.complete(REQUEST)).rejects.toBe(DOWN);
    await expect(backend.complete(REQUEST)).rejects.toBe(DOWN);
    expect(counts).toEqual({ checks: 1, requests: 0 });
    expect(verdicts).toEqual([{ ok: false, error: DOWN }]);
  });

  it('a busy server at the check: the requests go on (with their retries)', async () => {
    const { live, counts } = fakeLive(() => Promise.reject(BUSY));
    const backend = preflighted(live);
    await backend.complete(REQUEST);
    expect((await backend.check()).ok).toBe(true);
    expect(counts).toEqual({ checks: 1, requests: 1 });
  });

  it('a bug in the check is not taken for a verdict', async () => {
    const { live } = fakeLive(() => Promise.reject(new TypeError('x is undefined')));
    await expect(preflighted(live).check()).rejects.toThrow(TypeError);
  });
});
