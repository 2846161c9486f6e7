import { describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import { userMessage } from '../core/messages.js';
import { createTokenCounter } from '../core/tokens.js';
import { createBackend, parseProvider, resolveApiKey, resolveOllamaHost, resolveOpenAiBaseUrl, retryPolicy } from './providers.js';
import type { LiveBackend } from '../core/backend.js';
import type { BackendError } from './retry.js';

// Fixtures: a key that must never show, and a fetch that answers 401 echoing it like a careless server.
const SECRET = 'sk-proj-TOPSECRET-0123456789';
const ENV = { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', OLLAMA_HOST: '10.0.0.5:11500' };
const echoingKey: typeof fetch = async (_input, init) => {
  const auth = new Headers(init?.headers).get('authorization') ?? '';
  return new Response(JSON.stringify({ error: { message: `Incorrect API key provided: ${auth.replace('Bearer ', '')}` } }), {
    status: 401,
    headers: { 'Content-Type': 'application/json' },
  });
};

const problem = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CtxbenchError);
    return (e as Error).message;
  }
  throw new Error('expected an error');
};

describe('providers', () => {
  describe('parsing provider strings', () => {
    it('reads mock, ollama:chat:<model> and openai:chat:<model>', () => {
      expect(parseProvider('mock')).toEqual({ provider: 'mock' });
      expect(parseProvider('ollama:chat:llama3')).toEqual({ provider: 'ollama', model: 'llama3' });
      expect(parseProvider(' openai:chat:gpt-4o-mini ')).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    });

    it("keeps every ':' of the model name (Ollama tags)", () => {
      expect(parseProvider('ollama:chat:qwen2.5-coder:7b')).toEqual({ provider: 'ollama', model: 'qwen2.5-coder:7b' });
      expect(parseProvider('openai:chat:hf.co/org/model:Q4_K_M')).toEqual({ provider: 'openai', model: 'hf.co/org/model:Q4_K_M' });
    });

    it('rejects unknown providers with the forms that work', () => {
      expect(problem(() => parseProvider('anthropic:claude'))).toMatch(/unknown provider 'anthropic:claude'; use mock, ollama:chat:<model>/);
      expect(problem(() => parseProvider('ollama:chat:'))).toMatch(/names no model/);
    });

    it('suggests the chat form for a shorthand', () => {
      expect(problem(() => parseProvider('ollama:llama3'))).toContain('did you mean ollama:chat:llama3?');
    });
  });

  describe('where the server is', () => {
    it('takes the option first, then the environment, then the default', () => {
      expect(resolveOllamaHost({ host: 'http://gpu-box:11434', env: ENV })).toBe('http://gpu-box:11434');
      expect(resolveOllamaHost({ env: ENV })).toBe('http://10.0.0.5:11500');
      expect(resolveOllamaHost({ env: {} })).toBe('http://127.0.0.1:11434');
      expect(resolveOpenAiBaseUrl({ baseUrl: 'http://127.0.0.1:1234/v1/', env: ENV })).toBe('http://127.0.0.1:1234/v1');
      expect(resolveOpenAiBaseUrl({ env: ENV })).toBe('http://127.0.0.1:8000/v1');
      expect(resolveOpenAiBaseUrl({ env: {} })).toBe('https://api.openai.com/v1');
    });

    it('treats an empty variable as unset', () => {
      expect(resolveOllamaHost({ env: { OLLAMA_HOST: ' ' } })).toBe('http://127.0.0.1:11434');
    });

    it("reads OLLAMA_HOST the way Ollama does: host, host:port, :port, URL", () => {
      const host = (value: string) => resolveOllamaHost({ env: { OLLAMA_HOST: value } });
      expect(host('gpu-box')).toBe('http://gpu-box:11434');
      expect(host('gpu-box:8080')).toBe('http://gpu-box:8080');
      expect(host(':11500')).toBe('http://127.0.0.1:11500');
      expect(host('https://ollama.example.com')).toBe('https://ollama.example.com');
    });

    it('names the flag or variable of a URL it cannot use', () => {
      expect(problem(() => resolveOllamaHost({ env: { OLLAMA_HOST: 'ftp://x' } }))).toMatch(/^OLLAMA_HOST 'ftp:\/\/x' is not an http\(s\) URL/);
      expect(problem(() => resolveOpenAiBaseUrl({ baseUrl: 'not a url', env: {} }))).toMatch(/^--base-url 'not a url'/);
    });
  });

  describe('API keys', () => {
    it('takes the option, then OPENAI_API_KEY', () => {
      expect(resolveApiKey('http://127.0.0.1:8000/v1', { apiKey: 'sk-flag', env: ENV })).toBe('sk-flag');
      expect(resolveApiKey('http://127.0.0.1:8000/v1', { env: ENV })).toBe(SECRET);
    });

    it('makes one up for local servers (the client insists on a string)', () => {
      expect(resolveApiKey('http://127.0.0.1:8000/v1', { env: {} })).toBe('ctxbench-local');
    });

    it('requires one for api.openai.com', () => {
      expect(problem(() => resolveApiKey('https://api.openai.com/v1', { env: {} }))).toMatch(/set OPENAI_API_KEY/);
    });

    it('never shows the key in the name, the options or an error message', async () => {
      const backend = createBackend('openai:chat:gpt-4o-mini', { env: ENV, fetch: echoingKey, stream: false }) as LiveBackend;
      expect(backend.name).toBe('openai:chat:gpt-4o-mini');
      expect(JSON.stringify(backend)).not.toContain(SECRET);
      expect(JSON.stringify(backend.options)).not.toContain(SECRET);
      const error = (await backend.complete({ messages: [userMessage({ id: 'u', content: 'hi' })], purpose: 'agent' }).catch((e: unknown) => e)) as BackendError;
      expect(error.status).toBe(401);
      expect(error.message).toContain('Incorrect API key provided: ***');
      expect(error.message).not.toContain(SECRET);
      expect(String(error.stack)).not.toContain(SECRET);
    });

    it('never shows credentials of the base URL', () => {
      const backend = createBackend('openai:chat:m', { baseUrl: `https://me:${SECRET}@llm.example.com/v1`, env: {} }) as LiveBackend;
      expect(backend.url).toBe('https://llm.example.com/v1');
      expect(JSON.stringify(backend.options)).not.toContain(SECRET);
    });
  });

  describe('createBackend', () => {
    it('names each backend by its provider string and records what shapes its answers', () => {
      const ollama = createBackend('ollama:chat:qwen2.5-coder:7b', { env: ENV }) as LiveBackend;
      expect([ollama.name, ollama.url, ollama.model]).toEqual(['ollama:chat:qwen2.5-coder:7b', 'http://10.0.0.5:11500', 'qwen2.5-coder:7b']);
      expect(ollama.options).toEqual({ url: 'http://10.0.0.5:11500', model: 'qwen2.5-coder:7b', stream: false });
      const openai = createBackend({ provider: 'openai', model: 'gpt-4o' }, { env: ENV }) as LiveBackend;
      expect(openai.options).toEqual({ url: 'http://127.0.0.1:8000/v1', model: 'gpt-4o', stream: true });
    });

    it('makes the mock from a token counter', async () => {
      const backend = createBackend('mock', { counter: await createTokenCounter('chars4'), mock: { recall: 0.5 } });
      expect(backend.name).toBe('mock');
      expect(backend.options).toMatchObject({ recall: 0.5 });
    });

    it('checks the retry settings', () => {
      expect(retryPolicy({ attempts: 2 })).toMatchObject({ attempts: 2, timeoutMs: 300_000 });
      expect(problem(() => retryPolicy({ attempts: 0 }))).toMatch(/attempts must be a whole number >= 1/);
      expect(problem(() => retryPolicy({ timeoutMs: 0 }))).toMatch(/timeoutMs must be a positive number/);
    });
  });
});
