/**
 * OpenAI's chat completions: POST /v1/chat/completions (one JSON object, or SSE `data: {...}` chunks
 * ending with `data: [DONE]`, plus a usage chunk with empty choices when
 * stream_options.include_usage is set) and GET /v1/models (with vLLM's max_model_len). The usage
 * says what the server's prompt cache served (prompt_tokens_details.cached_tokens, prompt-cache.ts).
 * Errors have OpenAI's body shape
 * `{error: {message, type, param, code}}` and, where we know them, its exact messages.
 *
 * Unlike Ollama, OpenAI checks what it is sent: broken tool-call pairing and a prompt longer than the
 * model's context are 400s, never a silent cut.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Message } from '../core/messages.js';
import { checkPairing, type Violation } from '../core/pairing.js';
import { withTools } from '../core/tokens.js';
import { complete } from './answer.js';
import { FAULT_DEFAULTS } from './faults.js';
import { isRecord, MALFORMED_JSON, sendAnswer, sendJson, sendStream, streamPieces } from './http.js';
import { BadRequest, fromOpenAi, toolsOf } from './messages.js';
import { findModel } from './models.js';
import type { Exchange, Fault } from './types.js';

interface OpenAiError {
  readonly message: string;
  readonly type: string;
  readonly param?: string | null;
  readonly code?: string | null;
}

function error(res: ServerResponse, status: number, e: OpenAiError, headers?: Record<string, string>): void {
  sendJson(res, status, { error: { message: e.message, type: e.type, param: e.param ?? null, code: e.code ?? null } }, headers);
}

const invalid = (res: ServerResponse, message: string, param: string | null = null, code: string | null = null): void =>
  error(res, 400, { message, type: 'invalid_request_error', param, code });

export const TOOL_WITHOUT_CALL = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
export const CALLS_WITHOUT_RESULTS =
  "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ";

/** Ids of the calls of the assistant message at `at` that the tool messages right after it do not answer. */
function unanswered(messages: readonly Message[], at: number): string[] {
  const owner = messages[at];
  if (owner?.role !== 'assistant') return [];
  const answered = new Set<string>();
  for (const m of messages.slice(at + 1)) {
    if (m.role !== 'tool') break;
    answered.add(m.toolCallId);
  }
  return owner.toolCalls.filter((c) => !answered.has(c.id)).map((c) => c.id);
}

/** OpenAI's rejection for one pairing violation, and where in the messages OpenAI meets it. */
function rejectionOf(v: Violation, messages: readonly Message[]): { at: number; message: string; param: string } {
  const owner = v.toolCallId === undefined ? -1 : messages.findIndex((m) => m.role === 'assistant' && m.toolCalls.some((c) => c.id === v.toolCallId));
  const missing = owner >= 0 && (owner < v.index || messages[v.index]?.role !== 'tool') ? unanswered(messages, owner) : [];
  if (missing.length > 0) return { at: owner, message: CALLS_WITHOUT_RESULTS + missing.join(', '), param: `messages.[${owner}].role` };
  if (messages[v.index]?.role === 'tool') return { at: v.index, message: TOOL_WITHOUT_CALL, param: `messages.[${v.index}].role` };
  // Two calls with one id, each answered: not a message OpenAI documents; ours names the id.
  return { at: v.index, message: `Invalid parameter: duplicate tool_call_id '${v.toolCallId}' in messages.[${v.index}].tool_calls.`, param: `messages.[${v.index}].tool_calls` };
}

/** The 400 OpenAI answers a context with broken pairing with: the first problem in message order. */
export function pairingRejection(messages: readonly Message[]): { message: string; param: string } | undefined {
  const first = checkPairing(messages, { request: true })
    .map((v) => rejectionOf(v, messages))
    .sort((a, b) => a.at - b.at)[0];
  return first && { message: first.message, param: first.param };
}

function maxTokensOf(body: Record<string, unknown>): number | undefined {
  const value = body['max_completion_tokens'] ?? body['max_tokens'];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

export async function openAiChat(x: Exchange): Promise<void> {
  if (x.bodyInvalid || !isRecord(x.body)) {
    return invalid(x.res, 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload.)');
  }
  const body = x.body;
  const model = body['model'];
  if (typeof model !== 'string' || model === '') return invalid(x.res, 'you must provide a model parameter');
  const spec = findModel(x.models, model);
  if (!spec) {
    const message = `The model \`${model}\` does not exist or you do not have access to it.`;
    return error(x.res, 404, { message, type: 'invalid_request_error', code: 'model_not_found' });
  }
  let messages: Message[];
  try {
    messages = fromOpenAi(body['messages']);
  } catch (e) {
    if (e instanceof BadRequest) return invalid(x.res, e.message, e.param);
    throw e;
  }
  if (messages.length === 0) return invalid(x.res, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  const rejection = pairingRejection(messages);
  if (rejection) return invalid(x.res, rejection.message, rejection.param);
  // The tool definitions are billed with the prompt, as providers bill them.
  const promptTokens = withTools(x.counter, toolsOf(body['tools'])).countContext(messages);
  if (promptTokens > spec.contextLength) {
    const message = `This model's maximum context length is ${spec.contextLength} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`;
    return invalid(x.res, message, 'messages', 'context_length_exceeded');
  }
  const reply = complete(messages, maxTokensOf(body), x.counter);
  const cachedTokens = x.promptCache.serve(messages, x.counter);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: reply.completionTokens,
    total_tokens: promptTokens + reply.completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  };
  const withUsage = x.fault !== 'no-usage';
  const head = { id: `chatcmpl-mock-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model, system_fingerprint: 'fp_ctxbench_mock' };
  const cut = x.fault === 'cut-stream';

  if (body['stream'] !== true) {
    const choice = { index: 0, message: { role: 'assistant', content: reply.content, refusal: null }, logprobs: null, finish_reason: reply.finish };
    const answer = { ...head, object: 'chat.completion', choices: [choice], ...(withUsage ? { usage } : {}) };
    return sendAnswer(x.res, answer, { cut, malformed: x.fault === 'malformed-json' });
  }
  const includeUsage = isRecord(body['stream_options']) && body['stream_options']['include_usage'] === true;
  const chunk = (delta: object, finish: string | null) => ({
    ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}),
  });
  const chunks = [
    chunk({ role: 'assistant', content: '', refusal: null }, null),
    ...streamPieces(reply.content).map((p) => chunk({ content: p }, null)),
    chunk({}, reply.finish),
    ...(includeUsage && withUsage ? [{ ...head, object: 'chat.completion.chunk', choices: [], usage }] : []),
  ];
  const events = x.fault === 'malformed-json' ? [MALFORMED_JSON] : [...chunks.map((c) => JSON.stringify(c)), '[DONE]'];
  return sendStream(x.res, 'text/event-stream; charset=utf-8', events.map((e) => `data: ${e}\n\n`), cut);
}

export function openAiModels(x: Exchange): void {
  sendJson(x.res, 200, { object: 'list', data: x.models.map((m) => ({ id: m.name, object: 'model', created: 1_735_689_600, owned_by: 'ctxbench', max_model_len: m.contextLength })) });
}

export function openAiFault(res: ServerResponse, fault: Fault): void {
  if (fault.kind === 'http429') {
    const seconds = fault.retryAfterSeconds ?? FAULT_DEFAULTS.retryAfterSeconds;
    const message = `Rate limit reached for requests (mock fault: http429). Please try again in ${seconds}s.`;
    return error(res, 429, { message, type: 'requests', code: 'rate_limit_exceeded' }, { 'Retry-After': String(seconds) });
  }
  error(res, 500, { message: 'The server had an error while processing your request. Sorry about that! (mock fault: http500)', type: 'server_error' });
}
