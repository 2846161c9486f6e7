/**
 * The Ollama backend: /api/chat through the `ollama` npm client.
 *
 * What bites with Ollama, and what this file does about it:
 * - Its default num_ctx is small and a longer prompt is SILENTLY truncated (HTTP 200, front dropped):
 *   every request sends options.num_ctx = the window, and suspectTruncation() compares the
 *   prompt_eval_count it reports with the local estimate.
 * - prompt_eval_count is missing (or 0) when the prompt came from its cache: usage stays undefined,
 *   never 0, and the runner falls back to its own count. A count that is no count (negative, a
 *   string...) is dropped and named (usage.ts). Ollama reports no prompt-cache hits.
 * - It runs on the user's own hardware: its runs cost $0 (priceModel local).
 * - ollama-js has no timeout, never retries, does not read OLLAMA_HOST, mutates the request object
 *   and hides the response headers of an error: a fresh client per attempt, with a fetch that times
 *   out and remembers Retry-After, and a copy of the request.
 */
import { Ollama, type ChatRequest as OllamaChatRequest, type ChatResponse as OllamaChatResponse, type ShowResponse } from 'ollama';
import { assistantMessage, strategyOrigin, type ToolCall } from '../core/messages.js';
import { fromOllamaToolCalls, ollamaTools, toOllamaMessages } from './convert.js';
import {
  BackendError,
  connectionFailure,
  CUT_MID_RESPONSE,
  displayUrl,
  isHeadersTimeout,
  isTimeout,
  oneLine,
  parseRetryAfter,
  timedFetch,
  cappedFetch,
  isTooLarge,
  MAX_RESPONSE_BYTES,
  tooLargeError,
  withRetries,
  type Transport,
} from './retry.js';
import { checkUsage, isTokenCount } from './usage.js';
import { LOCAL_PRICE_MODEL } from '../core/models.js';
import type { ChatRequest, ChatResponse, LiveBackend, ServerInfo } from '../core/backend.js';

export interface OllamaSettings extends Transport {
  /** Base URL, e.g. http://127.0.0.1:11434 (see providers.ts for OLLAMA_HOST forms). */
  readonly host: string;
  readonly model: string;
  /** Stream the answer as NDJSON. Default false (the prompt is evaluated before any byte either way). */
  readonly stream?: boolean | undefined;
  /** num_ctx for requests that carry no `window`. */
  readonly window?: number | undefined;
}

/** The answer of one attempt, streamed or not. */
interface Answer {
  readonly content: string;
  readonly toolCalls: ToolCall[];
  readonly doneReason: string | undefined;
  /** The counts as sent, checked by checkUsage. */
  readonly promptEvalCount: unknown;
  readonly evalCount: unknown;
}

export function createOllamaBackend(settings: OllamaSettings): LiveBackend {
  const url = displayUrl(settings.host);
  const { model } = settings;
  const stream = settings.stream ?? false;
  const name = `ollama:chat:${model}`;
  let replies = 0;

  /** One attempt with a fresh client: ollama-js keeps no per-request state we could read back. */
  const attempt = async (body: OllamaChatRequest, replyId: string): Promise<Answer> => {
    let retryAfter: string | null = null;
    const base = readableErrors(settings.fetch ?? fetch);
    const remembering: typeof fetch = async (input, init) => {
      const response = await base(input, init);
      if (!response.ok) retryAfter = response.headers.get('retry-after');
      return stream && response.ok ? strictNdjson(response) : response;
    };
    const client = new Ollama({ host: settings.host, fetch: timedFetch(settings.policy.timeoutMs, cappedFetch(MAX_RESPONSE_BYTES, remembering)) });
    try {
      return stream ? await streamed(client, body, replyId) : await whole(client, body, replyId);
    } catch (error) {
      throw classify(error, retryAfter);
    }
  };

  const classify = (error: unknown, retryAfter: string | null): BackendError => {
    if (error instanceof BackendError) return error;
    if (isTooLarge(error)) return tooLargeError(`Ollama at ${url}`, model);
    const status = responseStatus(error);
    if (status !== undefined) return httpError(status, providerMessage(error), parseRetryAfter(retryAfter));
    if (isTimeout(error)) {
      const limit = isHeadersTimeout(error) ? "300 s (Node's fetch limit on waiting for response headers)" : `${settings.policy.timeoutMs / 1000} s`;
      return new BackendError('timeout', `Ollama at ${url} did not answer within ${limit} (model '${model}'); raise the request timeout or use a smaller window`);
    }
    const connection = connectionFailure(error);
    // ollama-js says so when a stream ends without its final `done` chunk.
    const cut = connection === CUT_MID_RESPONSE || (error instanceof Error && /did not receive done/i.test(error.message));
    if (cut) {
      return new BackendError('protocol', `the answer of Ollama at ${url} was cut off (model '${model}': ${connection ?? 'stream ended early'})`, { retryable: true });
    }
    if (connection) {
      return new BackendError('unreachable', `cannot reach Ollama at ${url} (${connection}); start it with \`ollama serve\` or pass --host`, { retryable: true });
    }
    if (error instanceof SyntaxError) {
      return new BackendError('protocol', `Ollama at ${url} sent a response that is not JSON (${oneLine(error.message)})`);
    }
    return new BackendError('protocol', `Ollama at ${url} failed on model '${model}': ${oneLine(error instanceof Error ? error.message : String(error))}`);
  };

  const httpError = (status: number, message: string, retryAfterMs: number | undefined): BackendError => {
    if (status === 404 && /model/i.test(message)) {
      return new BackendError('http', `Ollama at ${url} has no model '${model}'; run \`ollama pull ${model}\``, { status });
    }
    if (status === 404) {
      return new BackendError('http', `${url} answered 404 (${message}); is it an Ollama server? check --host`, { status });
    }
    const retryable = status === 429 || status >= 500;
    return new BackendError('http', `Ollama at ${url} answered ${status} for model '${model}': ${message}`, { status, retryable, retryAfterMs });
  };

  return {
    name,
    url,
    model,
    priceModel: LOCAL_PRICE_MODEL,
    options: { url, model, stream },
    async preflight(): Promise<ServerInfo> {
      const client = new Ollama({ host: settings.host, fetch: timedFetch(settings.policy.timeoutMs, cappedFetch(MAX_RESPONSE_BYTES, readableErrors(settings.fetch ?? fetch))) });
      try {
        return { contextLength: contextLengthOf(await client.show({ model })) };
      } catch (error) {
        throw classify(error, null);
      }
    },
    async complete(request: ChatRequest): Promise<ChatResponse> {
      const numCtx = request.window ?? settings.window;
      if (numCtx === undefined) throw new Error(`${name}: a request needs the context window (num_ctx); pass ChatRequest.window`);
      const tools = ollamaTools(request);
      const body: OllamaChatRequest = {
        model,
        messages: toOllamaMessages(request.messages),
        options: { num_ctx: numCtx, ...(request.maxOutputTokens === undefined ? {} : { num_predict: request.maxOutputTokens }) },
        ...(tools.length > 0 ? { tools } : {}),
      };
      replies += 1;
      const replyId = `ollama:${request.purpose}:${replies}`;
      const answer = await withRetries(
        () => attempt(body, replyId),
        (error) => classify(error, null),
        settings.policy,
        settings.hooks,
      );
      const { usage, invalid } = checkUsage({ promptTokens: ['prompt_eval_count', answer.promptEvalCount], completionTokens: ['eval_count', answer.evalCount] });
      return {
        message: assistantMessage({ id: replyId, origin: strategyOrigin('ollama', request.purpose), content: answer.content, toolCalls: answer.toolCalls }),
        // A prompt of messages is never 0 tokens: 0 means "served from cache, not counted".
        usage: { promptTokens: usage.promptTokens || undefined, completionTokens: usage.completionTokens },
        usageSource: 'provider',
        finishReason: answer.doneReason,
        ...(invalid.length > 0 ? { invalidUsage: invalid } : {}),
      };
    },
  };
}

// Each call gets a fresh object: the client writes `stream` into the request it is given.
async function whole(client: Ollama, body: OllamaChatRequest, replyId: string): Promise<Answer> {
  const response: Partial<OllamaChatResponse> = await client.chat({ ...body, stream: false });
  if (typeof response?.message !== 'object' || response.message === null) {
    throw new Error(`an answer without a message: ${oneLine(JSON.stringify(response) ?? 'nothing')}`);
  }
  return {
    content: textOf(response.message.content, 'message.content'),
    toolCalls: fromOllamaToolCalls(toolCallsOf(response.message.tool_calls), replyId),
    doneReason: reasonOf(response.done_reason),
    promptEvalCount: response.prompt_eval_count,
    evalCount: response.eval_count,
  };
}

// What a server sends is checked before it is used: a field of the wrong type ends the run with one
// line (classify: "failed on model ...") instead of a crash, or garbage stored.
const shown = (value: unknown): string => oneLine(JSON.stringify(value) ?? String(value));
function textOf(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new Error(`${field} is not text (${shown(value)})`);
  return value;
}
const reasonOf = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : textOf(value, 'done_reason'));
function toolCallsOf(value: unknown): OllamaChatResponse['message']['tool_calls'] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`message.tool_calls is not a list (${shown(value)})`);
  for (const call of value as unknown[]) {
    const fn = typeof call === 'object' && call !== null ? (call as { function?: unknown }).function : undefined;
    if (typeof fn !== 'object' || fn === null || typeof (fn as { name?: unknown }).name !== 'string') throw new Error(`a tool call without a function name (${shown(call)})`);
  }
  return value as OllamaChatResponse['message']['tool_calls'];
}

/** NDJSON chunks: content and tool calls accumulate; the last chunk (done) carries the counts. */
async function streamed(client: Ollama, body: OllamaChatRequest, replyId: string): Promise<Answer> {
  let content = '';
  const calls: NonNullable<OllamaChatResponse['message']['tool_calls']> = [];
  let last: Partial<OllamaChatResponse> | undefined;
  for await (const chunk of await client.chat({ ...body, stream: true })) {
    content += textOf(chunk.message?.content, 'message.content');
    calls.push(...(toolCallsOf(chunk.message?.tool_calls) ?? []));
    last = chunk;
  }
  return {
    content,
    toolCalls: fromOllamaToolCalls(calls, replyId),
    doneReason: reasonOf(last?.done_reason),
    promptEvalCount: last?.prompt_eval_count,
    evalCount: last?.eval_count,
  };
}

/**
 * The response with a body that fails on the first line that is not JSON. ollama-js skips such lines
 * with a console warning and then reports a missing `done`, which would read as a cut stream and be
 * retried; a malformed stream is a protocol error.
 */
function strictNdjson(response: Response): Response {
  if (!response.body) return response;
  const decoder = new TextDecoder();
  let pending = '';
  const check = (line: string): void => {
    if (line.trim() !== '') JSON.parse(line); // throws SyntaxError into the reader
  };
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const lines = (pending + decoder.decode(chunk, { stream: true })).split('\n');
        pending = lines.pop() ?? '';
        lines.forEach(check);
        controller.enqueue(chunk);
      },
      flush() {
        check(pending + decoder.decode());
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** `<architecture>.context_length` of /api/show's model_info (a plain object on the wire). */
function contextLengthOf(show: ShowResponse): number | undefined {
  const info = show.model_info as unknown as Record<string, unknown> | undefined;
  const architecture = info?.['general.architecture'];
  const length = typeof architecture === 'string' ? info?.[`${architecture}.context_length`] : undefined;
  return isTokenCount(length) ? length : undefined;
}

/**
 * An error answer whose JSON `error` is an object (`{"error": {"message": "bad key"}}`, the OpenAI
 * shape some proxies send) with that error as text: ollama-js makes its message of `error` as it is,
 * which printed "[object Object]".
 */
function readableErrors(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok || !response.headers.get('content-type')?.includes('application/json')) return response;
    const text = await response.text();
    let error: unknown;
    try {
      error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    } catch {
      // Not JSON after all: ollama-js says so itself.
    }
    const message = typeof error === 'object' && error !== null ? ((error as { message?: unknown }).message ?? JSON.stringify(error)) : undefined;
    const body = typeof message === 'string' ? JSON.stringify({ error: message }) : text;
    const headers = new Headers(response.headers);
    headers.delete('content-length'); // of the body as it came
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** ollama-js throws ResponseError (not exported) with the HTTP status in status_code. */
function responseStatus(error: unknown): number | undefined {
  if (!(error instanceof Error) || error.name !== 'ResponseError') return undefined;
  const status = (error as { status_code?: unknown }).status_code;
  return typeof status === 'number' ? status : undefined;
}

function providerMessage(error: unknown): string {
  return oneLine(error instanceof Error ? error.message : String(error)) || 'no message';
}
