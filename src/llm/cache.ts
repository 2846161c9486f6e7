/**
 * A record/replay cache of LLM calls, wrapping any Backend (on by default for live backends).
 *
 * Key: sha256 of a stable serialization of the provider (backend.name), base URL, model, the
 * backend options that shape the answer (num_ctx, max output tokens, streaming...) and the request:
 * its messages as the provider sees them (role, content, tool calls, tool_call_id, tool name; NOT
 * message ids, origins or recorded usage, which never reach the provider) and every other request
 * field. Credentials (api keys, secrets, authorization headers, user:password in the base URL) are
 * dropped before hashing and never stored.
 *
 * Storage: one JSON file per entry, `<dir>/<first 2 hex chars>/<key>.json`, written to a temp file
 * and renamed, so concurrent runs and crashes never leave a partial entry. A file that cannot be
 * read back (corrupt, truncated, another version) is a miss and is overwritten. Errors are never
 * cached: a failed call is retried against the backend next time. The usage an entry replays is
 * checked like a server's (usage.ts): a value that is no token count is dropped and named.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { createFolders } from '../core/folders.js';
import { assistantMessage } from '../core/messages.js';
import { replaceAtomically } from '../core/output-file.js';
import { isTempName } from '../core/temp-files.js';
import { stableJson } from '../core/stable-json.js';
import type { Backend, ChatRequest, ChatResponse } from '../core/backend.js';
import { DEFAULT_CACHE_DIR } from './defaults.js';
import { checkUsage } from './usage.js';

/** Bump when the key material or the entry format changes: old entries become misses. */
const CACHE_VERSION = 1;

export interface CacheOptions {
  /** Where entries live. Default is `.ctxbench-cache/` under the current directory. */
  readonly dir?: string | undefined;
  /** The provider's base URL / host (part of the key; credentials in it are dropped). */
  readonly baseUrl?: string | undefined;
  /** The model name (part of the key). */
  readonly model?: string | undefined;
  /** Backend settings that change the answer: num_ctx / window, max output tokens, stream... */
  readonly options?: Readonly<Record<string, unknown>> | undefined;
  /** When false, every call goes to the backend and nothing is read or written. Default is true. */
  readonly enabled?: boolean | undefined;
  /** Told when an entry could not be written (the call itself still succeeds). */
  readonly onWarning?: ((message: string) => void) | undefined;
}

export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly writes: number;
  /** Entries that could not be written (disk full, read-only directory...). */
  readonly writeErrors: number;
}

export interface CachedBackend extends Backend {
  /** The wrapped backend. */
  readonly inner: Backend;
  /** The absolute cache directory. */
  readonly dir: string;
  readonly enabled: boolean;
  /** A snapshot of the counters so far. */
  readonly stats: CacheStats;
  /** The cache key of a request (sha256 hex), for tests and diagnostics. */
  keyOf(request: ChatRequest): string;
  /**
   * Whether an answer of this provider, base URL and model is stored (another model's or server's
   * never answers this one's requests). False when the cache is off.
   */
  holdsAnswers(): Promise<boolean>;
}

/** Wraps `backend` so identical requests are answered from disk, marked `cached: true`. */
export function cachedBackend(backend: Backend, options: CacheOptions = {}): CachedBackend {
  const dir = resolve(options.dir ?? DEFAULT_CACHE_DIR);
  const enabled = options.enabled ?? true;
  const counts = { hits: 0, misses: 0, writes: 0, writeErrors: 0 };
  const fixed = {
    v: CACHE_VERSION,
    provider: backend.name,
    baseUrl: options.baseUrl === undefined ? null : redactUrl(options.baseUrl),
    model: options.model ?? null,
    options: options.options ?? {},
  };
  const keyOf = (request: ChatRequest): string =>
    createHash('sha256').update(stableJson(canonical({ ...fixed, request })), 'utf8').digest('hex');

  return {
    name: backend.name,
    inner: backend,
    dir,
    enabled,
    get stats(): CacheStats {
      return { ...counts };
    },
    keyOf,
    // The entries' own provider, baseUrl and model fields (the key is a hash): a scan, stopping at the first.
    holdsAnswers: async () => enabled && (await someEntry(dir, (entry) => entry['provider'] === fixed.provider && entry['baseUrl'] === fixed.baseUrl && entry['model'] === fixed.model)),
    async complete(request: ChatRequest): Promise<ChatResponse> {
      if (!enabled) return backend.complete(request);
      const key = keyOf(request);
      const file = entryPath(dir, key);
      const stored = await readEntry(file, key);
      if (stored) {
        counts.hits += 1;
        return stored;
      }
      counts.misses += 1;
      const response = await backend.complete(request); // a failure propagates and is not stored
      try {
        await writeEntry(file, key, fixed, request.purpose, response);
        counts.writes += 1;
      } catch (error) {
        counts.writeErrors += 1;
        options.onWarning?.(error instanceof Error ? error.message : String(error));
      }
      return response;
    },
  };
}

/** Removes every cache entry under `dir` (and leftover temp files); returns how many entries went. */
export async function clearCache(dir: string = DEFAULT_CACHE_DIR): Promise<number> {
  const root = resolve(dir);
  let removed = 0;
  for (const shard of await listDir(root)) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue; // only what the cache wrote: never a user's file
    const shardDir = join(root, shard);
    for (const name of await listDir(shardDir)) {
      // Entries, temp files being written, and the temp files of older versions (`<key>.json.<pid>.<hex>.tmp`).
      if (!/^[0-9a-f]{64}\.json(\..+\.tmp)?$/.test(name) && !isTempName(name)) continue;
      await rm(join(shardDir, name), { force: true });
      if (name.endsWith('.json')) removed += 1;
    }
    await rmdir(shardDir).catch(() => undefined); // kept when something else lives there
  }
  await rmdir(root).catch(() => undefined);
  return removed;
}

/** Whether an entry under `dir` (read as JSON, unreadable ones skipped) satisfies `test`; stops at the first. */
async function someEntry(dir: string, test: (entry: Record<string, unknown>) => boolean): Promise<boolean> {
  for (const shard of await listDir(dir)) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue;
    for (const name of await listDir(join(dir, shard))) {
      if (!/^[0-9a-f]{64}\.json$/.test(name)) continue;
      const entry = await readJson(join(dir, shard, name));
      if (typeof entry === 'object' && entry !== null && test(entry as Record<string, unknown>)) return true;
    }
  }
  return false;
}

/** The file's JSON, or undefined when it cannot be read or parsed. */
async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

// ---- key material ----

/** Option and header names that carry credentials (normalized: lowercase, letters and digits only). */
const SECRET_NAMES = /apikey|secret|password|passwd|authorization|accesstoken|authtoken|bearer|credential|cookie/;
const isSecretName = (name: string): boolean => {
  const normalized = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return normalized === 'key' || normalized === 'token' || SECRET_NAMES.test(normalized);
};

/** The base URL without user:password and without credential query parameters. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    for (const name of [...parsed.searchParams.keys()]) if (isSecretName(name)) parsed.searchParams.delete(name);
    return parsed.toString().replace(/\/+$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//').replace(/\/+$/, '');
  }
}

/**
 * The part of a value that can change the provider's answer: messages reduced to what is sent,
 * credentials dropped, functions and non-plain objects (an AbortSignal) left out.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record['role'] === 'string' && typeof record['content'] === 'string') return sentMessage(record);
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(record)) if (!isSecretName(name)) out[name] = canonical(item);
  return out;
}

/** A message as the provider sees it: no id, origin or recorded usage. */
function sentMessage(message: Record<string, unknown>): unknown {
  const sent: Record<string, unknown> = { role: message['role'], content: message['content'] };
  if (message['role'] === 'assistant') sent['toolCalls'] = canonical(message['toolCalls'] ?? []);
  if (message['role'] === 'tool') {
    sent['toolCallId'] = message['toolCallId'];
    sent['name'] = message['name'];
  }
  return sent;
}

// ---- entries ----

const count = z.number().optional();
const raw = z.unknown().optional();
const entrySchema = z.object({
  version: z.literal(CACHE_VERSION),
  key: z.string(),
  response: z.object({
    message: z.object({
      id: z.string(),
      origin: z.union([
        z.object({ source: z.literal('scenario') }),
        z.object({ source: z.literal('strategy'), strategy: z.string(), action: z.string() }),
      ]),
      content: z.string(),
      toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
      usage: z
        .object({ promptTokens: count, completionTokens: count, cachedTokens: count, reasoningTokens: count })
        .optional(),
    }),
    // Any value: checked on reading (checkUsage), so a bad count is named rather than a silent miss.
    usage: z.object({ promptTokens: raw, completionTokens: raw, cachedTokens: raw }),
    usageSource: z.enum(['local', 'provider']),
    invalidUsage: z.array(z.object({ field: z.string(), problem: z.string() })).optional(),
    /** The response's other fields, restored as stored; an entry with anything else (or a reason that is no text) is a miss. */
    extra: z.object({ finishReason: z.string().optional() }).strict(),
  }),
});

function entryPath(dir: string, key: string): string {
  return join(dir, key.slice(0, 2), `${key}.json`);
}

/** The stored response, or undefined for a missing, unreadable or mismatched entry (a miss). */
async function readEntry(file: string, key: string): Promise<ChatResponse | undefined> {
  let parsed: z.infer<typeof entrySchema>;
  try {
    const result = entrySchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (!result.success || result.data.key !== key) return undefined;
    parsed = result.data;
  } catch {
    return undefined;
  }
  const { message, usage, usageSource, invalidUsage = [], extra } = parsed.response;
  const field = (name: keyof typeof usage) => [`cache entry usage.${name}`, usage[name]] as const;
  const checked = checkUsage({ promptTokens: field('promptTokens'), completionTokens: field('completionTokens'), cachedTokens: field('cachedTokens') });
  const invalid = [...invalidUsage, ...checked.invalid];
  return {
    ...extra,
    message: assistantMessage(message),
    usage: checked.usage,
    usageSource,
    cached: true,
    ...(invalid.length > 0 ? { invalidUsage: invalid } : {}),
  };
}

async function writeEntry(
  file: string,
  key: string,
  fixed: { provider: string; baseUrl: string | null; model: string | null },
  purpose: string,
  response: ChatResponse,
): Promise<void> {
  const { message, usage, usageSource, invalidUsage, cached: _cached, ...extra } = response;
  const entry = {
    version: CACHE_VERSION,
    key,
    // For people reading the files; not part of the lookup. Never holds credentials.
    provider: fixed.provider,
    baseUrl: fixed.baseUrl,
    model: fixed.model,
    purpose,
    createdAt: new Date().toISOString(),
    response: {
      message: { id: message.id, origin: message.origin, content: message.content, toolCalls: message.toolCalls, usage: message.usage },
      usage,
      usageSource,
      ...(invalidUsage === undefined ? {} : { invalidUsage }),
      extra,
    },
  };
  const label = `cache entry ${file}`;
  await createFolders(dirname(file), label);
  await replaceAtomically(file, label, (temp) => writeFile(temp, `${JSON.stringify(entry, null, 2)}\n`, { encoding: 'utf8', flag: 'wx' }));
}

async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}
