/**
 * The OpenAI-compatible backend: /chat/completions through the `openai` npm client (OpenAI itself,
 * vLLM, llama.cpp server, LM Studio, Ollama's /v1).
 *
 * - The client retries twice by default (a 500 would cost three requests): maxRetries 0, we retry.
 * - Its timeout stops at the response headers: a fetch with AbortSignal.timeout covers the body too.
 * - Streaming asks for stream_options.include_usage; the usage comes in a last chunk with no
 *   choices, and is lost when the stream breaks. A stream that ends without a finish_reason was cut.
 * - The API key is required by the client even for local servers (any string works) and never
 *   appears in a message: the provider's text is redacted before it is shown.
 * - This route cannot set num_ctx: the window is the server's business. Where the model list says
 *   the model's context length (vLLM, llama.cpp server, LM Studio, OpenRouter), preflight returns it.
 * - Usage values are checked (usage.ts); prompt_tokens_details.cached_tokens gives the prompt-cache
 *   hits, where the server reports them (vLLM sends null details).
 * - Runs are priced at the served model's list prices (unknown for a model the registry lacks).
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { assistantMessage, strategyOrigin, type ToolCall } from '../core/messages.js';
import { fromOpenAiToolCalls, openAiTools, toOpenAiMessages } from './convert.js';
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
import { checkUsage, isTokenCount, type CheckedUsage } from './usage.js';
import type { ChatRequest, ChatResponse, LiveBackend, ServerInfo } from '../core/backend.js';

export interface OpenAiSettings extends Transport {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 */
  readonly baseUrl: string;
  /** Any string for local servers; never printed. */
  readonly apiKey: string;
  readonly model: string;
  /** Stream with stream_options.include_usage. Default true. */
  readonly stream?: boolean | undefined;
}

interface Answer {
  readonly content: string;
  readonly toolCalls: ToolCall[];
  readonly finishReason: string | undefined;
  readonly usage: CheckedUsage;
}

type Body = Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;

/** Parallel tool calls one answer may hold: a stream's call index past it is malformed. */
const MAX_TOOL_CALLS = 1024;

export function createOpenAiBackend(settings: OpenAiSettings): LiveBackend {
  const url = displayUrl(settings.baseUrl);
  const { model, apiKey } = settings;
  const stream = settings.stream ?? true;
  const name = `openai:chat:${model}`;
  const client = new OpenAI({
    apiKey,
    baseURL: settings.baseUrl,
    maxRetries: 0,
    timeout: settings.policy.timeoutMs,
    fetch: timedFetch(settings.policy.timeoutMs, cappedFetch(MAX_RESPONSE_BYTES, streamedAlways(settings.fetch ?? fetch))),
    // The client logs unparsable stream chunks itself; the BackendError says it in one line.
    logLevel: 'off',
  });
  let replies = 0;

  const cutOff = (detail: string): BackendError =>
    new BackendError('protocol', `the answer of ${url} was cut off (model '${model}': ${detail})`, { retryable: true });
  /** An answer the client parsed but that is not a chat completion: the run ends on it, in one line, never a crash or a store of garbage. */
  const malformed = (what: string): BackendError => new BackendError('protocol', `${url} sent a malformed answer for model '${model}': ${what}`);
  const text = (value: unknown, field: string): string => {
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') throw malformed(`${field} is not text (${oneLine(JSON.stringify(value) ?? String(value), apiKey)})`);
    return value;
  };
  const reason = (value: unknown, field: string): string | undefined => (value === undefined || value === null ? undefined : text(value, field));
  const checkedToolCalls = <T>(value: T | null | undefined): T | null | undefined => {
    if (value === undefined || value === null) return value;
    if (!Array.isArray(value)) throw malformed('message.tool_calls is not a list');
    for (const call of value as unknown[]) {
      const fn = typeof call === 'object' && call !== null ? (call as { function?: { name?: unknown; arguments?: unknown } }).function : undefined;
      if (typeof fn?.name !== 'string' || typeof fn.arguments !== 'string') throw malformed(`a tool call without a function name and arguments (${oneLine(JSON.stringify(call) ?? 'none', apiKey)})`);
    }
    return value;
  };

  const streamed = async (body: Body, replyId: string): Promise<Answer> => {
    const chunks = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
    let content = '';
    const calls: { id: string; name: string; arguments: string }[] = [];
    let finishReason: string | undefined;
    let usage: CheckedUsage = { usage: {}, invalid: [] };
    for await (const chunk of chunks) {
      if (typeof chunk !== 'object' || chunk === null || !Array.isArray(chunk.choices)) throw malformed('a stream chunk without a choices list');
      if (chunk.usage) usage = usageOf(chunk.usage);
      const choice: unknown = chunk.choices[0]; // the usage chunk has none
      if (choice === undefined) continue;
      if (typeof choice !== 'object' || choice === null) throw malformed('a choice that is no object');
      const { delta = {}, finish_reason } = choice as { delta?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown };
      content += text(delta.content, 'delta.content');
      if (delta.tool_calls !== undefined && delta.tool_calls !== null && !Array.isArray(delta.tool_calls)) throw malformed('delta.tool_calls is not a list');
      for (const part of (delta.tool_calls ?? []) as unknown[]) {
        const { index, id, function: fn } = (typeof part === 'object' && part !== null ? part : {}) as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };
        // An index is a call's place among at most a few parallel calls: past MAX_TOOL_CALLS it would
        // make a sparse list of that length.
        if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= MAX_TOOL_CALLS) throw malformed(`a tool call delta whose index is not 0 to ${MAX_TOOL_CALLS - 1} (${oneLine(JSON.stringify(part) ?? 'none', apiKey)})`);
        const call = (calls[index as number] ??= { id: '', name: '', arguments: '' });
        const callId = text(id, 'tool_calls[].id');
        if (callId) call.id = callId;
        // The name comes whole in the call's first delta; some servers repeat it.
        const name = text(fn?.name, 'tool_calls[].function.name');
        if (name && !call.name) call.name = name;
        call.arguments += text(fn?.arguments, 'tool_calls[].function.arguments');
      }
      finishReason = reason(finish_reason, 'finish_reason') ?? finishReason;
    }
    if (finishReason === undefined) throw cutOff('the stream ended without a finish_reason');
    const toolCalls = calls.filter(Boolean).map((c, index) => ({ ...c, id: c.id || `${replyId}:call:${index}` }));
    return { content, toolCalls, finishReason, usage };
  };

  const whole = async (body: Body): Promise<Answer> => {
    const completion = await client.chat.completions.create({ ...body, stream: false });
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice) throw new BackendError('protocol', `${url} answered without a choice (model '${model}')`);
    if (typeof choice.message !== 'object' || choice.message === null) throw malformed('a choice without a message');
    return {
      content: text(choice.message.content, 'message.content'),
      toolCalls: fromOpenAiToolCalls(checkedToolCalls(choice.message.tool_calls)),
      finishReason: reason(choice.finish_reason, 'finish_reason'),
      usage: usageOf(completion.usage),
    };
  };

  const classify = (error: unknown): BackendError => {
    if (error instanceof BackendError) return error;
    if (isTooLarge(error)) return tooLargeError(url, model);
    if (error instanceof APIConnectionTimeoutError || isTimeout(error)) {
      const limit = isHeadersTimeout(error) ? "300 s (Node's fetch limit on waiting for response headers)" : `${settings.policy.timeoutMs / 1000} s`;
      return new BackendError('timeout', `${url} did not answer within ${limit} (model '${model}'); raise the request timeout`);
    }
    if (error instanceof APIError && error.status !== undefined) return httpError(error);
    const connection = connectionFailure(error);
    if (connection === CUT_MID_RESPONSE) return cutOff(connection);
    if (connection || error instanceof APIConnectionError) {
      return new BackendError(
        'unreachable',
        `cannot reach the OpenAI-compatible server at ${url} (${connection ?? 'connection error'}); check that it is running, or pass --base-url`,
        { retryable: true },
      );
    }
    if (error instanceof SyntaxError) {
      return new BackendError('protocol', `${url} sent a response that is not JSON (${oneLine(error.message, apiKey)})`);
    }
    // An error object inside a stream, or anything else the client threw.
    return new BackendError('protocol', `${url} failed on model '${model}': ${oneLine(error instanceof Error ? error.message : String(error), apiKey)}`);
  };

  const httpError = (error: APIError): BackendError => {
    const status = error.status as number;
    const message = providerMessage(error, apiKey);
    if (status === 404) {
      const hint = /\/v\d+$/.test(url) ? '' : ' (most servers want a /v1 suffix)';
      return new BackendError('http', `${url} has no model '${model}' (404: ${message}); check the model name and --base-url${hint}`, { status });
    }
    if (status === 401 || status === 403) {
      return new BackendError('http', `${url} refused the API key (${status}: ${message}); check OPENAI_API_KEY`, { status });
    }
    const retryable = status === 429 || status >= 500;
    const retryAfterMs = retryable ? retryAfterOf(error.headers) : undefined;
    return new BackendError('http', `${url} answered ${status} for model '${model}': ${message}`, { status, retryable, retryAfterMs });
  };

  return {
    name,
    url,
    model,
    priceModel: model,
    options: { url, model, stream },
    async preflight(): Promise<ServerInfo> {
      try {
        const listed = (await client.models.list()).data.find((m) => m.id === model);
        if (listed) {
          const contextLength = contextLengthOf(listed);
          return contextLength === undefined ? {} : { contextLength };
        }
      } catch (error) {
        // A server without GET /models (some local ones) cannot say; anything else is what a run would meet.
        if (!(error instanceof APIError && error.status === 404)) throw classify(error);
      }
      // Not listed: an alias the server still serves (Ollama's tags, llama.cpp's single model), or no
      // such model. One output token tells, and fails as the runs would.
      try {
        await whole({ model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 1 });
      } catch (error) {
        throw classify(error);
      }
      return {};
    },
    async complete(request: ChatRequest): Promise<ChatResponse> {
      const tools = openAiTools(request);
      const body: Body = {
        model,
        messages: toOpenAiMessages(request.messages),
        ...(tools.length > 0 ? { tools } : {}),
        ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
      };
      replies += 1;
      const replyId = `openai:${request.purpose}:${replies}`;
      const answer = await withRetries(
        () => (stream ? streamed(body, replyId) : whole(body)),
        classify,
        settings.policy,
        settings.hooks,
      );
      const { usage, invalid } = answer.usage;
      return {
        message: assistantMessage({ id: replyId, origin: strategyOrigin('openai', request.purpose), content: answer.content, toolCalls: answer.toolCalls }),
        usage,
        usageSource: 'provider',
        finishReason: answer.finishReason,
        ...(invalid.length > 0 ? { invalidUsage: invalid } : {}),
      };
    },
  };
}

/** A field of a JSON value the client hands over as typed (a server may send anything); undefined when it is no object. */
const fieldOf = (value: unknown, name: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined);

/** The usage object of an answer, checked. */
function usageOf(usage: unknown): CheckedUsage {
  return checkUsage({
    promptTokens: ['usage.prompt_tokens', fieldOf(usage, 'prompt_tokens')],
    completionTokens: ['usage.completion_tokens', fieldOf(usage, 'completion_tokens')],
    cachedTokens: ['usage.prompt_tokens_details.cached_tokens', fieldOf(fieldOf(usage, 'prompt_tokens_details'), 'cached_tokens')],
  });
}

/** The context length a model listing gives: vLLM's max_model_len, llama.cpp's meta.n_ctx_train, OpenRouter's and LM Studio's context_length. */
function contextLengthOf(listed: unknown): number | undefined {
  const candidates = [fieldOf(listed, 'max_model_len'), fieldOf(fieldOf(listed, 'meta'), 'n_ctx_train'), fieldOf(listed, 'context_length')];
  return candidates.find((value): value is number => isTokenCount(value) && value > 0);
}

/** Retry-After, or OpenAI's own retry-after-ms. */
function retryAfterOf(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  return Number.isFinite(ms) && ms >= 0 ? ms : parseRetryAfter(headers?.get('retry-after'));
}

/** The provider's own words: the body's error.message, else the client's text without its status prefix. */
function providerMessage(error: APIError, secret: string): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s*/, '');
  return oneLine(text, secret) || 'no message';
}

/**
 * A server that ignores `stream: true` and answers a whole completion (application/json): the same
 * answer as the stream it would have sent (one chunk with the message as its delta, then the usage),
 * where the client read no event and the answer counted as cut off, retried, then failed.
 */
function streamedAlways(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const asked = typeof init?.body === 'string' && init.body.includes('"stream":true');
    if (!asked || !response.ok || !response.headers.get('content-type')?.includes('application/json')) return response;
    const text = await response.text();
    let completion: { choices?: unknown; usage?: unknown } | null;
    try {
      completion = JSON.parse(text) as typeof completion;
    } catch {
      return new Response(text, { status: response.status, headers: { 'content-type': 'text/plain' } }); // the client says it is no stream
    }
    // Anything that is no list of choices goes on as it came: the stream's checks name it.
    const asChunks = Array.isArray(completion?.choices) ? (completion.choices as unknown[]).map(chunkChoice) : completion?.choices;
    const events = [{ ...completion, object: 'chat.completion.chunk', choices: asChunks, usage: undefined }, ...(completion?.usage ? [{ ...completion, choices: [], usage: completion.usage }] : [])];
    const body = [...events.map((e) => JSON.stringify(e)), '[DONE]'].map((data) => `data: ${data}\n\n`).join('');
    return new Response(body, { status: response.status, statusText: response.statusText, headers: { 'content-type': 'text/event-stream' } });
  };
}

/** A whole completion's choice as a stream chunk's: its message as the delta, each tool call with its index. */
function chunkChoice(choice: unknown, index: number): unknown {
  if (typeof choice !== 'object' || choice === null) return choice;
  const { message, finish_reason } = choice as { message?: unknown; finish_reason?: unknown };
  const calls = typeof message === 'object' && message !== null ? (message as { tool_calls?: unknown }).tool_calls : undefined;
  const indexed = Array.isArray(calls) ? { tool_calls: calls.map((call: unknown, i: number) => (typeof call === 'object' && call !== null ? { index: i, ...call } : call)) } : {};
  return { index, delta: typeof message === 'object' && message !== null ? { ...message, ...indexed } : message, finish_reason };
}
