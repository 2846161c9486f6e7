import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assistantMessage,
  strategyOrigin,
  systemMessage,
  toolMessage,
  userMessage,
  withContent,
  type Message,
} from '../core/messages.js';
import { cachedBackend, clearCache, type CacheOptions } from './cache.js';
import { DEFAULT_CACHE_DIR } from './defaults.js';
import type { Backend, ChatRequest, ChatResponse } from '../core/backend.js';

// Fixtures: a short tool-using conversation, and a fake backend that counts its calls.
const API_KEY = 'sk-test-SECRET-0123456789abcdef';
const BASE_URL = 'http://127.0.0.1:11434';
const MESSAGES: readonly Message[] = [
  systemMessage({ id: 'm0', content: 'You are a coding agent.' }),
  userMessage({ id: 'm1', content: 'List the files.' }),
  assistantMessage({ id: 'm2', content: '', toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }] }),
  toolMessage({ id: 'm3', toolCallId: 'call_1', name: 'bash', content: 'README.md\nsrc' }),
];
const REQUEST: ChatRequest = { messages: MESSAGES, purpose: 'agent' };

interface FakeBackend extends Backend {
  calls: number;
  failNext: number;
}

function fakeBackend(name = 'ollama:chat:qwen2.5-coder:7b'): FakeBackend {
  const fake: FakeBackend = {
    name,
    calls: 0,
    failNext: 0,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      fake.calls += 1;
      if (fake.failNext > 0) {
        fake.failNext -= 1;
        throw new Error('HTTP 500 from the server');
      }
      const response = {
        message: assistantMessage({
          id: `reply:${fake.calls}`,
          origin: strategyOrigin('live', request.purpose),
          content: `answer #${fake.calls} to ${request.messages.length} messages`,
          toolCalls: [{ id: 'call_9', name: 'read_file', arguments: '{"path":"README.md"}' }],
        }),
        usage: { promptTokens: 120 + fake.calls }, // completionTokens not reported: must stay undefined
        usageSource: 'provider' as const,
        finishReason: 'stop',
      };
      return response;
    },
  };
  return fake;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ctxbench-cache-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const wrap = (inner: Backend, options: Partial<CacheOptions> = {}) =>
  cachedBackend(inner, { dir, baseUrl: BASE_URL, model: 'qwen2.5-coder:7b', options: { numCtx: 8192, maxTokens: 512, stream: false }, ...options });

async function entryFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for (const shard of await readdir(root)) for (const name of await readdir(join(root, shard))) files.push(join(root, shard, name));
  return files;
}

describe('hits and misses', () => {
  it('answers a second identical request from disk without calling the backend', async () => {
    const inner = fakeBackend();
    const first = await wrap(inner).complete(REQUEST);
    expect(first.cached).toBeUndefined();
    expect(inner.calls).toBe(1);

    const cache = wrap(inner); // a new process would build a new wrapper: the hit comes from the files
    const second = await cache.complete(REQUEST);
    expect(inner.calls).toBe(1);
    expect(second.cached).toBe(true);
    expect(second.message).toEqual(first.message);
    expect(Object.isFrozen(second.message)).toBe(true);
    expect(second.usage).toEqual({ promptTokens: 121 });
    expect(second.usage.completionTokens).toBeUndefined();
    expect(second.usageSource).toBe('provider');
    expect(second.finishReason).toBe('stop');
    expect(cache.stats).toEqual({ hits: 1, misses: 0, writes: 0, writeErrors: 0 });
    expect(cache.name).toBe(inner.name);
  });

  it("replays the provider's cached tokens and the usage fields it dropped", async () => {
    const invalidUsage = [{ field: 'usage.completion_tokens', problem: '-3 is not a token count' }];
    const inner: Backend = { name: 'openai:chat:gpt-4o', complete: async (request) => ({ ...(await fakeBackend().complete(request)), usage: { promptTokens: 900, cachedTokens: 640 }, invalidUsage }) };
    await wrap(inner).complete(REQUEST);
    const replayed = await wrap(inner).complete(REQUEST);
    expect([replayed.cached, replayed.usage, replayed.invalidUsage]).toEqual([true, { promptTokens: 900, cachedTokens: 640 }, invalidUsage]);
  });

  it('stores one file per entry, sharded by the first two hex characters of the sha256 key', async () => {
    const cache = wrap(fakeBackend());
    await cache.complete(REQUEST);
    const key = cache.keyOf(REQUEST);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await entryFiles(dir)).toEqual([join(dir, key.slice(0, 2), `${key}.json`)]);
    expect(cache.stats).toEqual({ hits: 0, misses: 1, writes: 1, writeErrors: 0 });
  });

  it('ignores message ids and origins, which never reach the provider', async () => {
    const inner = fakeBackend();
    const cache = wrap(inner);
    await cache.complete(REQUEST);
    const renamed = MESSAGES.map((message, i) => ({ ...withContent(message, message.content, strategyOrigin('mask', 'edit')), id: `other-${i}` }));
    const hit = await cache.complete({ messages: renamed, purpose: 'agent' });
    expect(hit.cached).toBe(true);
    expect(inner.calls).toBe(1);
  });

  describe('any change that reaches the provider is a miss', () => {
    const changes: Record<string, [ChatRequest, Partial<CacheOptions>]> = {
      'message content': [{ ...REQUEST, messages: [...MESSAGES.slice(0, 3), withContent(MESSAGES[3]!, 'README.md', MESSAGES[3]!.origin)] }, {}],
      'one message more': [{ ...REQUEST, messages: [...MESSAGES, userMessage({ id: 'm4', content: 'Go on.' })] }, {}],
      'a tool call': [
        {
          ...REQUEST,
          messages: MESSAGES.map((m) =>
            m.role === 'assistant' ? assistantMessage({ ...m, toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls -a"}' }] }) : m,
          ),
        },
        {},
      ],
      'a tool_call_id': [
        { ...REQUEST, messages: MESSAGES.map((m) => (m.role === 'tool' ? toolMessage({ ...m, toolCallId: 'call_2' }) : m)) },
        {},
      ],
      'the window in the request': [{ ...REQUEST, window: 16384 }, {}],
      'max output tokens in the request': [{ ...REQUEST, maxOutputTokens: 1 }, {}],
      'another request field': [{ ...REQUEST, expect: { sections: ['Goal'] } }, {}],
      model: [REQUEST, { model: 'llama3.1:8b' }],
      'base URL': [REQUEST, { baseUrl: 'http://127.0.0.1:11435' }],
      'the window option': [REQUEST, { options: { numCtx: 16384, maxTokens: 512, stream: false } }],
      'the max output tokens option': [REQUEST, { options: { numCtx: 8192, maxTokens: 1, stream: false } }],
      'the streaming option': [REQUEST, { options: { numCtx: 8192, maxTokens: 512, stream: true } }],
    };
    for (const [what, [request, options]] of Object.entries(changes)) {
      it(what, async () => {
        const inner = fakeBackend();
        await wrap(inner).complete(REQUEST);
        const response = await wrap(inner, options).complete(request);
        expect(response.cached).toBeUndefined();
        expect(inner.calls).toBe(2);
      });
    }

    it('provider', async () => {
      const inner = fakeBackend();
      await wrap(inner).complete(REQUEST);
      const other = fakeBackend('openai:chat:qwen2.5-coder:7b');
      await wrap(other).complete(REQUEST);
      expect(other.calls).toBe(1);
    });

    it('but option order does not matter', async () => {
      const inner = fakeBackend();
      await wrap(inner).complete(REQUEST);
      expect((await wrap(inner, { options: { stream: false, maxTokens: 512, numCtx: 8192 } }).complete(REQUEST)).cached).toBe(true);
    });
  });
});

describe('errors and bad entries', () => {
  it('never caches an error: the next call reaches the backend', async () => {
    const inner = fakeBackend();
    inner.failNext = 1;
    const cache = wrap(inner);
    await expect(cache.complete(REQUEST)).rejects.toThrow('HTTP 500');
    expect(await readdir(dir)).toEqual([]);
    const retried = await cache.complete(REQUEST);
    expect(retried.cached).toBeUndefined();
    expect(inner.calls).toBe(2);
    expect((await cache.complete(REQUEST)).cached).toBe(true);
    expect(inner.calls).toBe(2);
  });

  for (const [what, text] of [
    ['truncated JSON', '{"version":1,"key":'],
    ['valid JSON of the wrong shape', '{"version":1,"response":{"message":"hi"}}'],
    ['an empty file', ''],
  ] as const) {
    it(`treats ${what} as a miss and overwrites it`, async () => {
      const inner = fakeBackend();
      const cache = wrap(inner);
      await cache.complete(REQUEST);
      const [file] = await entryFiles(dir);
      await writeFile(file!, text);
      const response = await cache.complete(REQUEST);
      expect(response.cached).toBeUndefined();
      expect(inner.calls).toBe(2);
      expect(JSON.parse(await readFile(file!, 'utf8'))).toMatchObject({ version: 1, key: cache.keyOf(REQUEST) });
      expect((await cache.complete(REQUEST)).cached).toBe(true);
    });
  }

  for (const [what, extra] of [
    ['a finish reason that is no text', { finishReason: 7 }],
    ['a field of its own (it was restored over the response: invalidUsage 5 crashed the run)', { finishReason: 'stop', invalidUsage: 5 }],
  ] as const) {
    it(`treats an entry with ${what} as a miss`, async () => {
      const inner = fakeBackend();
      const cache = wrap(inner);
      await cache.complete(REQUEST);
      const [file] = await entryFiles(dir);
      const entry = JSON.parse(await readFile(file!, 'utf8'));
      await writeFile(file!, JSON.stringify({ ...entry, response: { ...entry.response, extra } }));
      const response = await cache.complete(REQUEST);
      expect(response.cached).toBeUndefined();
      expect(inner.calls).toBe(2);
    });
  }

  describe('usage values in an entry that are no token count (a hand-edited or foreign file)', () => {
    for (const value of [-190, 12.5, 1e300, 'abc', null]) {
      it(`answers with promptTokens ${JSON.stringify(value)} dropped and named, never a crash or a silent re-request`, async () => {
        const inner = fakeBackend();
        const cache = wrap(inner);
        await cache.complete(REQUEST);
        const [file] = await entryFiles(dir);
        const entry = JSON.parse(await readFile(file!, 'utf8'));
        entry.response.usage = { promptTokens: value, completionTokens: 5 };
        await writeFile(file!, JSON.stringify(entry));
        const response = await cache.complete(REQUEST);
        expect([response.cached, inner.calls]).toEqual([true, 1]);
        expect(response.usage).toEqual({ completionTokens: 5 });
        expect(response.invalidUsage).toEqual([{ field: 'cache entry usage.promptTokens', problem: expect.stringMatching(/is not a token count/) as string }]);
      });
    }
  });

  it('warns but still answers when an entry cannot be written', async () => {
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'a file where the cache directory should be');
    const warnings: string[] = [];
    const cache = cachedBackend(fakeBackend(), { dir: blocker, onWarning: (message) => warnings.push(message) });
    expect((await cache.complete(REQUEST)).message.content).toContain('answer #1');
    expect(cache.stats.writeErrors).toBe(1);
    expect(warnings).toHaveLength(1);
  });
});

describe('credentials', () => {
  it('never puts an API key in keys or stored files', async () => {
    const inner = fakeBackend();
    const withKey = wrap(inner, {
      baseUrl: `https://user:${API_KEY}@api.example.com/v1?api-key=${API_KEY}`,
      options: { numCtx: 8192, maxTokens: 512, stream: false, apiKey: API_KEY, headers: { Authorization: `Bearer ${API_KEY}` } },
    });
    await withKey.complete(REQUEST);
    const otherKey = wrap(inner, {
      baseUrl: 'https://user:another-key@api.example.com/v1?api-key=another-key',
      options: { numCtx: 8192, maxTokens: 512, stream: false, apiKey: 'another-key', headers: { Authorization: 'Bearer another-key' } },
    });
    expect(otherKey.keyOf(REQUEST)).toBe(withKey.keyOf(REQUEST)); // the key plays no part in the hash
    expect((await otherKey.complete(REQUEST)).cached).toBe(true);
    for (const file of await entryFiles(dir)) {
      expect(file).not.toContain(API_KEY);
      expect(await readFile(file, 'utf8')).not.toContain(API_KEY);
      expect(await readFile(file, 'utf8')).toContain('https://api.example.com/v1');
    }
  });
});

describe('disabled', () => {
  it('passes every call through and writes nothing', async () => {
    const inner = fakeBackend();
    const cache = wrap(inner, { enabled: false });
    await cache.complete(REQUEST);
    await cache.complete(REQUEST);
    expect(inner.calls).toBe(2);
    expect(await readdir(dir)).toEqual([]);
    expect(cache.stats).toEqual({ hits: 0, misses: 0, writes: 0, writeErrors: 0 });
  });

  it('defaults to .ctxbench-cache under the current directory', () => {
    expect(cachedBackend(fakeBackend()).dir).toBe(join(process.cwd(), DEFAULT_CACHE_DIR));
  });
});

describe('holdsAnswers', () => {
  it("is true once an answer of this provider, base URL and model is stored, never for another's", async () => {
    const cache = wrap(fakeBackend());
    expect(await cache.holdsAnswers()).toBe(false); // no folder yet
    await wrap(fakeBackend(), { model: 'llama3' }).complete(REQUEST);
    await wrap(fakeBackend(), { baseUrl: 'http://gpu-box:11434' }).complete(REQUEST);
    await wrap(fakeBackend('openai:chat:qwen2.5-coder:7b')).complete(REQUEST);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    expect(await cache.holdsAnswers()).toBe(false);
    await cache.complete(REQUEST);
    expect(await wrap(fakeBackend()).holdsAnswers()).toBe(true);
    expect(await wrap(fakeBackend(), { enabled: false }).holdsAnswers()).toBe(false);
  });

  it('skips entries it cannot read', async () => {
    const cache = wrap(fakeBackend());
    await cache.complete(REQUEST);
    const [file] = await entryFiles(dir);
    await writeFile(file!, '{ not json');
    expect(await cache.holdsAnswers()).toBe(false);
  });
});

describe('clearCache', () => {
  it('removes every entry, says how many, and leaves other files alone', async () => {
    const cache = wrap(fakeBackend());
    await cache.complete(REQUEST);
    await cache.complete({ ...REQUEST, purpose: 'summary' });
    await cache.complete({ ...REQUEST, messages: MESSAGES.slice(0, 2) });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    expect(await clearCache(dir)).toBe(3);
    expect(await readdir(dir)).toEqual(['notes.txt']);
    expect(await clearCache(dir)).toBe(0);
    const again = await cache.complete(REQUEST);
    expect(again.cached).toBeUndefined();
  });

  it('returns 0 for a directory that does not exist', async () => {
    expect(await clearCache(join(dir, 'missing'))).toBe(0);
  });
});
