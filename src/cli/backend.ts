/**
 * The backend `bench run` replays against: the mock, or a live Ollama / OpenAI-compatible server
 * behind the record/replay cache. A live server is checked once before anything is stored, so a
 * server that is down or lacks the model stops the command with one line.
 */
import { readdir } from 'node:fs/promises';
import { CtxbenchError } from '../core/errors.js';
import type { TokenCounter } from '../core/tokens.js';
import { cachedBackend, type CachedBackend } from '../llm/cache.js';
import type { MockOptions } from '../llm/mock.js';
import { createBackend, parseProvider } from '../llm/providers.js';
import { BackendError } from '../llm/retry.js';
import type { Backend, LiveBackend } from '../core/backend.js';
import type { Params } from '../core/params.js';
import { parseChoice } from './options.js';

export interface BackendFlags {
  readonly model: string;
  readonly host?: string | undefined;
  readonly baseUrl?: string | undefined;
  /** `measure`: one output token per agent step (the recorded turn is used anyway); `full`: let it answer. */
  readonly live: string;
  readonly cache: boolean;
  readonly cacheDir?: string | undefined;
  readonly timeout?: number | undefined;
  readonly retries?: number | undefined;
  /** --window, to compare with the model's trained context length. */
  readonly window?: number | undefined;
}

export interface OpenedBackend {
  readonly backend: Backend;
  /** Stored with every run (the mock's recall, a live server's URL and mode). */
  readonly options: Params;
  /** Output tokens asked per agent step (live `measure`), or undefined. */
  readonly maxOutputTokens?: number | undefined;
  readonly cache?: CachedBackend | undefined;
  /** A model server (not the mock): its answers are the model's own. */
  readonly live: boolean;
  /** Whose prices its runs cost (LiveBackend.priceModel); undefined for the mock: each scenario's model. */
  readonly priceModel?: string | undefined;
}

const LIVE_MODES = ['measure', 'full'];

export async function openBackend(flags: BackendFlags, counter: TokenCounter, mock: MockOptions): Promise<OpenedBackend> {
  const spec = parseProvider(flags.model);
  parseChoice('--live', flags.live, LIVE_MODES);
  const retry = { ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }), ...(flags.retries === undefined ? {} : { attempts: flags.retries + 1 }) };
  const hooks = {
    onRetry: (error: BackendError, attempt: number, delayMs: number) =>
      process.stderr.write(`bench: warning: attempt ${attempt} failed (${error.message}); retrying in ${Math.ceil(delayMs / 1000)} s\n`),
  };
  const created = createBackend(spec, { host: flags.host, baseUrl: flags.baseUrl, counter, mock, retry, hooks });
  if (spec.provider === 'mock') return { backend: created, options: created.options, live: false };

  const live = created as LiveBackend;
  const cache = cachedBackend(live, { dir: flags.cacheDir, baseUrl: live.url, model: live.model, options: live.options, enabled: flags.cache });
  const maxOutputTokens = flags.live === 'measure' ? 1 : undefined;
  const options = { ...live.options, url: live.url, live: flags.live };
  const opened = { backend: cache, cache, maxOutputTokens, options, live: true, priceModel: live.priceModel };
  // A re-run from a filled cache sends nothing, not even the check, and works with the server down.
  if (flags.cache && (await hasEntries(cache.dir))) return opened;
  let info;
  try {
    info = await live.preflight();
  } catch (error) {
    if (error instanceof BackendError) throw new CtxbenchError('BACKEND_UNREACHABLE', error.message);
    throw error;
  }
  if (info.modelListed === false) process.stderr.write(`bench: warning: ${live.url} does not list model '${live.model}'\n`);
  if (info.contextLength !== undefined && flags.window !== undefined && flags.window > info.contextLength) {
    // Ollama caps num_ctx at the model's length and then cuts the front of longer prompts silently;
    // OpenAI-compatible servers refuse them (or cut them, as some local ones do).
    process.stderr.write(
      `bench: warning: --window ${flags.window} is larger than ${live.model}'s context length (${info.contextLength}): the server cuts or refuses longer prompts (a run whose prompts it cut ends as truncated)\n`,
    );
  }
  return opened;
}

async function hasEntries(dir: string): Promise<boolean> {
  return (await readdir(dir).catch(() => [])).length > 0;
}
