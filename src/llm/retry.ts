/**
 * What every live backend does the same way when a request fails: a per-attempt timeout, retries with
 * exponential backoff on the failures worth retrying (connection errors, a cut response, 429 with its
 * Retry-After, 5xx), and one error type, BackendError, whose one-line message names the server and
 * says what to do. The provider clients never retry on their own (ollama-js cannot, openai is set to
 * maxRetries: 0), so a failed attempt costs exactly one request.
 */

export type BackendErrorKind = 'unreachable' | 'http' | 'timeout' | 'protocol';

export interface BackendErrorDetails {
  /** The HTTP status, for kind 'http'. */
  readonly status?: number | undefined;
  /** Whether another attempt may succeed. */
  readonly retryable?: boolean | undefined;
  /** How long the server asked us to wait (429/503 Retry-After), in ms. */
  readonly retryAfterMs?: number | undefined;
}

/** A live request that failed; the message is one line naming the URL or model and the fix. */
export class BackendError extends Error {
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  /** How many attempts were made before giving up (set by withRetries). */
  attempts = 1;

  constructor(
    readonly kind: BackendErrorKind,
    message: string,
    details: BackendErrorDetails = {},
  ) {
    super(message);
    this.name = 'BackendError';
    this.status = details.status;
    this.retryable = details.retryable ?? false;
    this.retryAfterMs = details.retryAfterMs;
  }
}

export interface RetryPolicy {
  /** Most attempts per request, the first one included. Default 4. */
  readonly attempts: number;
  /** Wait before the first retry; doubled for each further retry. Default 1000 ms. */
  readonly baseDelayMs: number;
  /** Longest wait between attempts; a longer Retry-After is capped to it. Default 30 000 ms. */
  readonly maxDelayMs: number;
  /**
   * Per-attempt timeout, the whole response included. Default 300 000 ms: Node 20's fetch gives up
   * after 300 s without response headers anyway (UND_ERR_HEADERS_TIMEOUT).
   */
  readonly timeoutMs: number;
}

export const RETRY_DEFAULTS: RetryPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000, timeoutMs: 300_000 };

/** The wait before retry number `retry` (1 = the first retry): base * 2^(retry-1), capped. */
export function backoffDelay(retry: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>): number {
  return Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
}

/** A Retry-After header (seconds, or an HTTP date) in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RetryHooks {
  /** Waits between attempts (tests pass a recorder). Default: a real timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told about every failed attempt that will be retried (for a warning line). */
  readonly onRetry?: (error: BackendError, attempt: number, delayMs: number) => void;
}

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, or `policy.attempts` are used up.
 * `classify` turns whatever an attempt threw into a BackendError; the last one is rethrown with
 * `attempts` set. The wait is the server's Retry-After when it sent one, else the backoff schedule,
 * both capped at maxDelayMs.
 */
export async function withRetries<T>(
  attempt: (number: number) => Promise<T>,
  classify: (error: unknown) => BackendError,
  policy: Pick<RetryPolicy, 'attempts' | 'baseDelayMs' | 'maxDelayMs'>,
  hooks: RetryHooks = {},
): Promise<T> {
  const sleep = hooks.sleep ?? realSleep;
  for (let number = 1; ; number += 1) {
    try {
      return await attempt(number);
    } catch (thrown) {
      const error = classify(thrown);
      error.attempts = number;
      if (!error.retryable || number >= policy.attempts) throw error;
      const delay = Math.min(error.retryAfterMs ?? backoffDelay(number, policy), policy.maxDelayMs);
      hooks.onRetry?.(error, number, delay);
      await sleep(delay);
    }
  }
}

/**
 * A fetch that aborts after `timeoutMs`, body included (the clients' own timeouts stop at the
 * headers, and ollama-js has none). The caller's signal still works.
 */
export function timedFetch(timeoutMs: number, base: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return base(input, { ...init, signal });
  };
}

/**
 * The most bytes one response body may hold: 8 MiB, over 2 million tokens of text, far past any
 * model's output. A server that sends more is broken, and a single stream event of tens of MB takes
 * the clients' parsers minutes of CPU, which no timeout or signal can interrupt.
 */
export const MAX_RESPONSE_BYTES = 8 * 2 ** 20;

/** What a capped fetch's body fails with past its limit. */
export class ResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer passed ${limit / 2 ** 20} MiB`);
    this.name = 'ResponseTooLarge';
  }
}

/** A fetch whose response body fails with ResponseTooLarge once it has passed `maxBytes`. */
export function cappedFetch(maxBytes: number, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    let bytes = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes > maxBytes) controller.error(new ResponseTooLarge(maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Whether `error` or one of its causes is a capped fetch's ResponseTooLarge (the clients wrap what the body throws). */
export function isTooLarge(error: unknown): boolean {
  return causeChain(error).some((e) => e instanceof ResponseTooLarge || field(e, 'name') === 'ResponseTooLarge');
}

/** The one line a response over MAX_RESPONSE_BYTES ends its run with. */
export const tooLargeError = (server: string, model: string): BackendError =>
  new BackendError('protocol', `${server} sent an answer of more than ${MAX_RESPONSE_BYTES / 2 ** 20} MiB for model '${model}' (ctxbench reads at most that: no model writes so much)`);

/** Errors and their causes, outermost first (fetch wraps the socket error in `cause`). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

const field = (error: unknown, name: 'code' | 'name' | 'message'): string =>
  typeof error === 'object' && error !== null && typeof (error as Record<string, unknown>)[name] === 'string'
    ? ((error as Record<string, string>)[name] as string)
    : '';

/** True when the attempt ran out of time: our AbortSignal.timeout, or Node's own fetch timeouts. */
export function isTimeout(error: unknown): boolean {
  return causeChain(error).some(
    (e) => field(e, 'name') === 'TimeoutError' || ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].includes(field(e, 'code')),
  );
}

/** Node's fetch gave up waiting for headers (300 s), whatever our own timeout said. */
export function isHeadersTimeout(error: unknown): boolean {
  return causeChain(error).some((e) => field(e, 'code') === 'UND_ERR_HEADERS_TIMEOUT');
}

const CONNECTION_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  ETIMEDOUT: 'connect timeout',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** connectionFailure() of a response whose body was cut: the request arrived, the answer did not. */
export const CUT_MID_RESPONSE = 'connection closed mid-response';

/**
 * What went wrong with the connection, in a few words ("connection refused"), or undefined when the
 * error is not a connection failure. A response cut mid-body shows up as undici's "terminated".
 */
export function connectionFailure(error: unknown): string | undefined {
  const chain = causeChain(error);
  // First: a cut body carries the same socket code as a refused request, under "terminated".
  if (chain.some((e) => field(e, 'message') === 'terminated')) return CUT_MID_RESPONSE;
  for (const e of chain) {
    const described = CONNECTION_CODES[field(e, 'code')];
    if (described) return described;
  }
  if (!chain.some((e) => field(e, 'name') === 'TypeError' && field(e, 'message') === 'fetch failed')) return undefined;
  // fetch's own reason when it has no socket code: "redirect count exceeded", "bad port" (a port
  // browsers block, which Node's fetch blocks too).
  return field(chain.at(-1), 'message') || 'fetch failed';
}

/** A URL safe to print: without user:password (keys never appear in messages). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * The first line of a provider's message, without a secret that may be echoed in it. Secrets shorter
 * than 6 characters are placeholders for local servers ("x"): blanking them would garble the text.
 */
export function oneLine(text: string, secret?: string): string {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  const clean = secret && secret.length >= 6 ? line.split(secret).join('***') : line;
  return clean.length > 300 ? `${clean.slice(0, 297)}...` : clean;
}

/** How a live backend sends its requests (shared by the Ollama and OpenAI backends). */
export interface Transport {
  readonly policy: RetryPolicy;
  readonly hooks?: RetryHooks | undefined;
  /** The fetch under the timeout (tests inject one). Default: the global fetch. */
  readonly fetch?: typeof fetch | undefined;
}
