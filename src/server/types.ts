/**
 * The local model server's public types (re-exported by src/server/index.ts).
 */
import type { ServerResponse } from 'node:http';
import type { Encoding, TokenCounter } from '../core/tokens.js';
import type { PromptCache } from './prompt-cache.js';

export const FAULT_KINDS = ['refuse', 'http500', 'http429', 'slow-first-byte', 'cut-stream', 'no-usage', 'malformed-json'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Which protocol a request speaks: Ollama's /api/* or OpenAI's /v1/*. */
export type Route = 'ollama' | 'openai';

/**
 * Something a real server does wrong, injected into the next `times` chat requests (/api/chat,
 * /v1/chat/completions) of `path` (both protocols when unset). Listing routes (/api/tags, /api/show,
 * /v1/models) are never faulted, so a client's preflight does not use up a fault meant for a chat.
 */
export interface Fault {
  readonly kind: FaultKind;
  /** How many requests it hits (default 1; Infinity for every request). */
  readonly times?: number;
  readonly path?: Route;
  /** http429: the Retry-After header, in seconds (default 1). */
  readonly retryAfterSeconds?: number;
  /** slow-first-byte: how long the response headers are held back, in ms (default 1000). */
  readonly delayMs?: number;
}

export interface ModelSpec {
  readonly name: string;
  /** The model's trained context length: /api/show reports it, num_ctx is capped at it. */
  readonly contextLength: number;
}

export interface ServerOptions {
  /** Default 0: any free port (Node's fetch refuses some fixed ones). */
  readonly port?: number;
  /** Default: one model, 'mock-model', with a 32768-token context. */
  readonly models?: readonly ModelSpec[];
  readonly faults?: readonly Fault[];
  /** Tokenizer of the reported usage (default o200k_base). */
  readonly encoding?: Encoding;
}

/** Ollama's silent truncation of a prompt longer than num_ctx, as it happened to one request. */
export interface Truncation {
  /** The effective num_ctx: the one sent (2048 when not), capped at the model's context length. */
  readonly numCtx: number;
  /** Tokens of the whole prompt as sent. */
  readonly fullTokens: number;
  /** Tokens of what was kept: the prompt_eval_count reported. */
  readonly keptTokens: number;
  readonly droppedMessages: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  readonly body: unknown;
  /** The fault injected into this request, if any. */
  fault?: FaultKind;
  /** Set when the prompt was silently truncated to num_ctx (Ollama route only). */
  truncation?: Truncation;
}

export interface RunningServer {
  /** http://127.0.0.1:PORT (Ollama clients use it as is; OpenAI clients append /v1). */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

/** One request as a route handler sees it. */
export interface Exchange {
  /** The parsed JSON body (undefined when empty or not JSON: see `bodyInvalid`). */
  readonly body: unknown;
  readonly bodyInvalid: boolean;
  readonly res: ServerResponse;
  readonly record: RecordedRequest;
  /** A fault that shapes the answer (cut-stream, no-usage, malformed-json), if one hit this request. */
  readonly fault: FaultKind | undefined;
  readonly models: readonly ModelSpec[];
  readonly counter: TokenCounter;
  /** The server's prompt cache (OpenAI route: cached_tokens). */
  readonly promptCache: PromptCache;
}
