/**
 * Ollama's API: POST /api/chat (NDJSON stream by default, one JSON object with stream: false),
 * GET /api/tags, POST /api/show, GET /api/version. Errors are `{"error": "..."}` like Ollama's.
 *
 * num_ctx as Ollama applies it: 2048 when not sent, capped at the model's context length, and a
 * longer prompt is silently cut at the front (answer.ts fitContext); prompt_eval_count tells.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Message } from '../core/messages.js';
import { withTools } from '../core/tokens.js';
import { complete, fitContext } from './answer.js';
import { isRecord, MALFORMED_JSON, sendAnswer, sendJson, sendStream, streamPieces } from './http.js';
import { BadRequest, fromOllama, toolsOf } from './messages.js';
import { findModel, withTag } from './models.js';
import { FAULT_DEFAULTS } from './faults.js';
import type { Exchange, Fault, ModelSpec } from './types.js';

export const OLLAMA_DEFAULT_NUM_CTX = 2048;
export const OLLAMA_VERSION = '0.6.4';
/** The architecture /api/show reports: the context length is `model_info["llama.context_length"]`. */
const ARCHITECTURE = 'llama';
const MODIFIED_AT = '2025-01-01T00:00:00Z';

const error = (res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void =>
  sendJson(res, status, { error: message }, headers);

const notFound = (res: ServerResponse, model: string): void => error(res, 404, `model '${model}' not found`);

/** A positive whole number option, or undefined (Ollama: num_predict -1 / -2 mean "no limit"). */
function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The model the body names (`model`, or the older `name`); undefined after answering 400 when there is none. */
function requestedModel(x: Exchange): string | undefined {
  const model = isRecord(x.body) ? (x.body['model'] ?? x.body['name']) : undefined;
  if (typeof model === 'string' && model !== '') return model;
  error(x.res, 400, x.bodyInvalid || !isRecord(x.body) ? 'invalid request body: expected a JSON object' : 'model is required');
  return undefined;
}

export async function ollamaChat(x: Exchange): Promise<void> {
  const model = requestedModel(x);
  if (model === undefined) return;
  const spec = findModel(x.models, model);
  if (!spec) return notFound(x.res, model);
  const body = x.body as Record<string, unknown>;
  let messages: Message[];
  try {
    messages = fromOllama(body['messages'] ?? []);
  } catch (e) {
    if (e instanceof BadRequest) return error(x.res, 400, e.message);
    throw e;
  }
  const created_at = new Date().toISOString();
  if (messages.length === 0) {
    // Ollama loads the model and says so when there is nothing to answer.
    return sendJson(x.res, 200, { model, created_at, message: { role: 'assistant', content: '' }, done: true, done_reason: 'load' });
  }
  const options = isRecord(body['options']) ? body['options'] : {};
  const numCtx = Math.min(positive(options['num_ctx']) ?? OLLAMA_DEFAULT_NUM_CTX, spec.contextLength);
  // The tool definitions go into the prompt (Ollama's template renders them): counted, and cut with it.
  const fitted = fitContext(messages, numCtx, withTools(x.counter, toolsOf(body['tools'])));
  if (fitted.truncation) x.record.truncation = fitted.truncation;
  const reply = complete(fitted.kept, positive(options['num_predict']), x.counter);

  const chunk = (content: string) => ({ model, created_at, message: { role: 'assistant', content } });
  const counts = x.fault === 'no-usage' ? {} : { prompt_eval_count: fitted.promptTokens, eval_count: reply.completionTokens };
  const final = (content: string) => ({ ...chunk(content), done: true, done_reason: reply.finish, ...durations(fitted.promptTokens, reply.completionTokens), ...counts });
  const cut = x.fault === 'cut-stream';
  if (body['stream'] === false) return sendAnswer(x.res, final(reply.content), { cut, malformed: x.fault === 'malformed-json' });
  const frames = x.fault === 'malformed-json'
    ? [`${MALFORMED_JSON}\n`]
    : [...streamPieces(reply.content).map((p) => ({ ...chunk(p), done: false })), final('')].map((o) => `${JSON.stringify(o)}\n`);
  return sendStream(x.res, 'application/x-ndjson', frames, cut);
}

/** Plausible timings in nanoseconds (0.1 ms per prompt token, 10 ms per output token), for tokens/s. */
function durations(promptTokens: number, outputTokens: number) {
  const [load, prompt, output] = [1_000_000, promptTokens * 100_000, outputTokens * 10_000_000];
  return { total_duration: load + prompt + output, load_duration: load, prompt_eval_duration: prompt, eval_duration: output };
}

const details = () => ({ parent_model: '', format: 'gguf', family: ARCHITECTURE, families: [ARCHITECTURE], parameter_size: '7B', quantization_level: 'Q4_K_M' });
const digest = (name: string): string => createHash('sha256').update(withTag(name)).digest('hex');

export function ollamaTags(x: Exchange): void {
  const models = x.models.map((m) => ({ name: withTag(m.name), model: withTag(m.name), modified_at: MODIFIED_AT, size: 4_683_087_332, digest: digest(m.name), details: details() }));
  sendJson(x.res, 200, { models });
}

export function ollamaShow(x: Exchange): void {
  const model = requestedModel(x);
  if (model === undefined) return;
  const spec = findModel(x.models, model);
  if (!spec) return notFound(x.res, model);
  sendJson(x.res, 200, showResponse(spec));
}

function showResponse(spec: ModelSpec) {
  return {
    license: '',
    modelfile: `# Modelfile generated by ctxbench serve-mock\nFROM ${withTag(spec.name)}\n`,
    parameters: '',
    template: '{{ .Prompt }}',
    details: details(),
    model_info: {
      'general.architecture': ARCHITECTURE,
      'general.basename': spec.name,
      'general.parameter_count': 7_000_000_000,
      [`${ARCHITECTURE}.context_length`]: spec.contextLength,
    },
    capabilities: ['completion', 'tools'],
    modified_at: MODIFIED_AT,
  };
}

export function ollamaVersion(x: Exchange): void {
  sendJson(x.res, 200, { version: OLLAMA_VERSION });
}

export function ollamaFault(res: ServerResponse, fault: Fault): void {
  if (fault.kind === 'http429') {
    const seconds = fault.retryAfterSeconds ?? FAULT_DEFAULTS.retryAfterSeconds;
    return error(res, 429, 'server busy, please try again (mock fault: http429)', { 'Retry-After': String(seconds) });
  }
  error(res, 500, 'llama runner process has terminated (mock fault: http500)');
}
