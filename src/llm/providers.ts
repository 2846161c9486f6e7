/**
 * Provider strings as users write them (promptfoo style) and the backends they make:
 *
 *   mock                   the deterministic mock (llm/mock.ts)
 *   ollama:chat:<model>    Ollama's /api/chat; the model may contain ':' (qwen2.5-coder:7b)
 *   openai:chat:<model>    any OpenAI-compatible /chat/completions (OpenAI, vLLM, llama.cpp, LM Studio)
 *
 * Where the server is: the option (flag or config), then the environment (OLLAMA_HOST,
 * OPENAI_BASE_URL), then the default. The API key: the option, then OPENAI_API_KEY; local servers
 * take any string. The key never becomes part of a name, an option, a message or a URL we print.
 */
import { CtxbenchError } from '../core/errors.js';
import type { TokenCounter } from '../core/tokens.js';
import { createMockBackend, type MockOptions } from './mock.js';
import { OLLAMA_DEFAULT_HOST, OPENAI_DEFAULT_BASE_URL } from './defaults.js';
import { createOllamaBackend } from './ollama.js';
import { createOpenAiBackend } from './openai.js';
import { RETRY_DEFAULTS, type RetryHooks, type RetryPolicy } from './retry.js';
import type { ConfiguredBackend, LiveBackend } from '../core/backend.js';

export type ProviderSpec =
  | { readonly provider: 'mock' }
  | { readonly provider: 'ollama' | 'openai'; readonly model: string };

export const PROVIDER_FORMS = 'mock, ollama:chat:<model> (e.g. ollama:chat:qwen2.5-coder:7b) or openai:chat:<model>';

/** Parses a provider string; an unknown one fails with the forms that are known. */
export function parseProvider(text: string): ProviderSpec {
  const spec = text.trim();
  if (spec === 'mock') return { provider: 'mock' };
  const match = /^(ollama|openai):chat:(.*)$/.exec(spec);
  if (match) {
    const model = match[2]!.trim();
    if (model === '') throw new CtxbenchError('OPTION_INVALID', `provider '${spec}' names no model; use ${PROVIDER_FORMS}`);
    return { provider: match[1] as 'ollama' | 'openai', model };
  }
  const short = /^(ollama|openai):(.+)$/.exec(spec);
  const hint = short ? ` (did you mean ${short[1]}:chat:${short[2]}?)` : '';
  throw new CtxbenchError('OPTION_INVALID', `unknown provider '${spec}'${hint}; use ${PROVIDER_FORMS}`);
}

type Env = Readonly<Record<string, string | undefined>>;

export interface BackendOptions {
  /** Ollama's URL. Default: OLLAMA_HOST, then http://127.0.0.1:11434. */
  readonly host?: string | undefined;
  /** The OpenAI-compatible base URL. Default: OPENAI_BASE_URL, then https://api.openai.com/v1. */
  readonly baseUrl?: string | undefined;
  /** Default: OPENAI_API_KEY; required for api.openai.com only (local servers take any string). */
  readonly apiKey?: string | undefined;
  /** Where the variables come from. Default: process.env. */
  readonly env?: Env | undefined;
  /** Stream answers. Default: false for Ollama, true for OpenAI (with include_usage). */
  readonly stream?: boolean | undefined;
  /** Ollama's num_ctx for requests without `window`. */
  readonly window?: number | undefined;
  /** Attempts, backoff and per-request timeout. Defaults: RETRY_DEFAULTS. */
  readonly retry?: Partial<RetryPolicy> | undefined;
  readonly hooks?: RetryHooks | undefined;
  /** The fetch under the timeout (tests). Default: the global fetch. */
  readonly fetch?: typeof fetch | undefined;
  /** The mock's tokenizer (required for `mock`). */
  readonly counter?: TokenCounter | undefined;
  readonly mock?: MockOptions | undefined;
}

/** Makes the backend a provider string names; `name` is the provider string (never a key). */
export function createBackend(spec: string | ProviderSpec, options: BackendOptions = {}): ConfiguredBackend | LiveBackend {
  const parsed = typeof spec === 'string' ? parseProvider(spec) : spec;
  if (parsed.provider === 'mock') {
    if (!options.counter) throw new Error('createBackend(mock) needs options.counter');
    return createMockBackend(options.counter, options.mock);
  }
  const transport = { policy: retryPolicy(options.retry), hooks: options.hooks, fetch: options.fetch };
  if (parsed.provider === 'ollama') {
    return createOllamaBackend({ ...transport, host: resolveOllamaHost(options), model: parsed.model, stream: options.stream, window: options.window });
  }
  const baseUrl = resolveOpenAiBaseUrl(options);
  return createOpenAiBackend({ ...transport, baseUrl, apiKey: resolveApiKey(baseUrl, options), model: parsed.model, stream: options.stream });
}

const setting = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/**
 * Ollama's URL from --host, then OLLAMA_HOST, in the forms Ollama itself accepts: `host`,
 * `host:port`, `:port`, or a full URL; without a scheme it is http and port 11434.
 */
export function resolveOllamaHost(options: Pick<BackendOptions, 'host' | 'env'> = {}): string {
  const env = options.env ?? process.env;
  const [value, source] = pick([options.host, '--host'], [env['OLLAMA_HOST'], 'OLLAMA_HOST']);
  if (value === undefined) return OLLAMA_DEFAULT_HOST;
  let text = value.startsWith(':') ? `127.0.0.1${value}` : value;
  const explicit = text.includes('://');
  if (!explicit) text = `http://${text}`;
  const url = parseUrl(text, source, value);
  if (!explicit && url.port === '') url.port = '11434';
  return stripSlash(url.toString());
}

/** The OpenAI-compatible base URL from --base-url, then OPENAI_BASE_URL. */
export function resolveOpenAiBaseUrl(options: Pick<BackendOptions, 'baseUrl' | 'env'> = {}): string {
  const env = options.env ?? process.env;
  const [value, source] = pick([options.baseUrl, '--base-url'], [env['OPENAI_BASE_URL'], 'OPENAI_BASE_URL']);
  if (value === undefined) return OPENAI_DEFAULT_BASE_URL;
  return stripSlash(parseUrl(value, source, value).toString());
}

/**
 * The key for `baseUrl`: the option, then OPENAI_API_KEY. OpenAI itself needs a real one; other
 * servers ignore it but the client insists on some string.
 */
export function resolveApiKey(baseUrl: string, options: Pick<BackendOptions, 'apiKey' | 'env'> = {}): string {
  const env = options.env ?? process.env;
  const [key] = pick([options.apiKey, 'apiKey'], [env['OPENAI_API_KEY'], 'OPENAI_API_KEY']);
  if (key !== undefined) return key;
  if (new URL(baseUrl).hostname === 'api.openai.com') {
    throw new CtxbenchError('OPTION_INVALID', `${baseUrl} needs an API key: set OPENAI_API_KEY (or pass --base-url for a local server)`);
  }
  return 'ctxbench-local';
}

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...RETRY_DEFAULTS, ...overrides };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) {
    throw new CtxbenchError('OPTION_INVALID', `retry attempts must be a whole number >= 1 (got ${policy.attempts})`);
  }
  for (const name of ['baseDelayMs', 'maxDelayMs', 'timeoutMs'] as const) {
    if (!(policy[name] >= 0) || (name === 'timeoutMs' && policy[name] === 0)) {
      throw new CtxbenchError('OPTION_INVALID', `${name} must be a positive number of milliseconds (got ${policy[name]})`);
    }
  }
  return policy;
}

/** The first of (value, where it came from) that is set. */
function pick(...candidates: [string | undefined, string][]): [string | undefined, string] {
  for (const [value, source] of candidates) if (setting(value) !== undefined) return [setting(value), source];
  return [undefined, 'default'];
}

function parseUrl(text: string, source: string, original: string): URL {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // reported below
  }
  throw new CtxbenchError('OPTION_INVALID', `${source} '${original}' is not an http(s) URL (e.g. http://127.0.0.1:11434)`);
}

const stripSlash = (url: string): string => url.replace(/\/+$/, '');
