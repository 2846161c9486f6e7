/**
 * The backend `bench run` replays against: the mock, or a live Ollama / OpenAI-compatible server
 * behind the record/replay cache. A live server is checked once before the first request sent, so a
 * server that is down, lacks the model or refuses the key stops the command with one line.
 */
import { CtxbenchError } from '../core/errors.js';
import { createFolders } from '../core/folders.js';
import type { TokenCounter } from '../core/tokens.js';
import { cachedBackend, type CachedBackend } from '../llm/cache.js';
import { DEFAULT_CACHE_DIR } from '../llm/defaults.js';
import type { MockOptions } from '../llm/mock.js';
import { createBackend, parseProvider } from '../llm/providers.js';
import { preflighted, type PreflightVerdict } from '../llm/preflight.js';
import type { BackendError } from '../llm/retry.js';
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
  /**
   * Aborted, with the BackendError as its reason, when the preflight that waited for the first request
   * the cache could not answer found the server unusable: the matrix stops there.
   */
  readonly unusable: AbortSignal;
  /** Whose prices its runs cost (LiveBackend.priceModel); undefined for the mock: each scenario's model. */
  readonly priceModel?: string | undefined;
}

const LIVE_MODES = ['measure', 'full'];

/**
 * The backend `--model` names. A live one is checked (its preflight) before anything is stored, unless
 * the cache holds answers of this server and model: a re-run from the cache sends nothing, not even
 * the check, and works with the server down. The check then waits for the first request the cache
 * cannot answer, and a server found unusable there aborts `unusable`.
 */
export async function openBackend(flags: BackendFlags, counter: TokenCounter, mock: MockOptions): Promise<OpenedBackend> {
  const spec = parseProvider(flags.model);
  parseChoice('--live', flags.live, LIVE_MODES);
  const retry = { ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }), ...(flags.retries === undefined ? {} : { attempts: flags.retries + 1 }) };
  const hooks = {
    onRetry: (error: BackendError, attempt: number, delayMs: number) =>
      process.stderr.write(`bench: warning: attempt ${attempt} failed (${error.message}); retrying in ${Math.ceil(delayMs / 1000)} s\n`),
  };
  const created = createBackend(spec, { host: flags.host, baseUrl: flags.baseUrl, counter, mock, retry, hooks });
  const unusable = new AbortController();
  if (spec.provider === 'mock') return { backend: created, options: created.options, live: false, unusable: unusable.signal };

  const live = created as LiveBackend;
  // A cache folder that cannot be one (a file, under /proc) is said now, not as "0 hits" and failed writes.
  if (flags.cache) await createFolders(flags.cacheDir ?? DEFAULT_CACHE_DIR, `--cache-dir ${flags.cacheDir ?? DEFAULT_CACHE_DIR}`);
  const checked = preflighted(live, (verdict) => {
    if (!verdict.ok) return unusable.abort(verdict.error);
    warnAbout(verdict, live, flags.window);
  });
  const cache = cachedBackend(checked, { dir: flags.cacheDir, baseUrl: live.url, model: live.model, options: live.options, enabled: flags.cache });
  if (!(await cache.holdsAnswers())) {
    const verdict = await checked.check();
    if (!verdict.ok) throw new CtxbenchError('BACKEND_UNREACHABLE', verdict.error.message);
  }
  const maxOutputTokens = flags.live === 'measure' ? 1 : undefined;
  const options = { ...live.options, url: live.url, live: flags.live };
  return { backend: cache, cache, maxOutputTokens, options, live: true, unusable: unusable.signal, priceModel: live.priceModel };
}

/** The warnings of a preflight that lets the runs go on: a busy server, a --window above the model's length. */
function warnAbout(verdict: PreflightVerdict & { ok: true }, live: LiveBackend, window: number | undefined): void {
  if (verdict.warning !== undefined) process.stderr.write(`bench: warning: ${verdict.warning}\n`);
  const { contextLength } = verdict.info;
  if (contextLength !== undefined && window !== undefined && window > contextLength) {
    // Ollama caps num_ctx at the model's length and then cuts the front of longer prompts silently;
    // OpenAI-compatible servers refuse them (or cut them, as some local ones do).
    process.stderr.write(
      `bench: warning: --window ${window} is larger than ${live.model}'s context length (${contextLength}): the server cuts or refuses longer prompts (a run whose prompts it cut ends as truncated)\n`,
    );
  }
}
