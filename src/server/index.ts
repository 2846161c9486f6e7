/**
 * The local model server: speaks Ollama's /api/chat, /api/tags, /api/show and OpenAI's
 * /v1/chat/completions, answers deterministically, counts usage with the local tokenizer, and
 * misbehaves on request (faults). Live backends are built and tested against it; `bench serve-mock`
 * runs it for users.
 *
 *   const server = await startModelServer({ models: [{ name: 'm', contextLength: 4096 }], faults: [{ kind: 'http500' }] });
 *   new Ollama({ host: server.url });  new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' });
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTokenCounter, DEFAULT_ENCODING, type TokenCounter } from '../core/tokens.js';
import { FAULT_DEFAULTS, faultSchedule, type FaultSchedule } from './faults.js';
import { parseJson, readBody } from './http.js';
import { checkModels, DEFAULT_MODELS } from './models.js';
import { ollamaChat, ollamaFault, ollamaShow, ollamaTags, ollamaVersion } from './ollama.js';
import { openAiChat, openAiFault, openAiModels } from './openai.js';
import { createPromptCache, type PromptCache } from './prompt-cache.js';
import type { Exchange, Fault, ModelSpec, RecordedRequest, Route, RunningServer, ServerOptions } from './types.js';

export * from './types.js';
export { DEFAULT_MODELS } from './models.js';
export { FAULT_DEFAULTS } from './faults.js';

interface Endpoint {
  readonly route: Route;
  /** Chat endpoints take faults; listings never do. */
  readonly chat: boolean;
  handle(x: Exchange): void | Promise<void>;
}

const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  'POST /api/chat': { route: 'ollama', chat: true, handle: ollamaChat },
  'GET /api/tags': { route: 'ollama', chat: false, handle: ollamaTags },
  'POST /api/show': { route: 'ollama', chat: false, handle: ollamaShow },
  'GET /api/version': { route: 'ollama', chat: false, handle: ollamaVersion },
  'POST /v1/chat/completions': { route: 'openai', chat: true, handle: openAiChat },
  'GET /v1/models': { route: 'openai', chat: false, handle: openAiModels },
};

const FAULT_RESPONSES: Readonly<Record<Route, (res: ServerResponse, fault: Fault) => void>> = { ollama: ollamaFault, openai: openAiFault };

interface State {
  readonly models: readonly ModelSpec[];
  readonly counter: TokenCounter;
  readonly faults: FaultSchedule;
  readonly requests: RecordedRequest[];
  readonly promptCache: PromptCache;
  /** Aborted on close(), so held-back responses (slow-first-byte) stop waiting. */
  readonly closing: AbortSignal;
}

export async function startModelServer(options: ServerOptions = {}): Promise<RunningServer> {
  const models = options.models ?? DEFAULT_MODELS;
  checkModels(models);
  const closing = new AbortController();
  const state: State = {
    models,
    counter: await createTokenCounter(options.encoding ?? DEFAULT_ENCODING),
    faults: faultSchedule(options.faults ?? []),
    requests: [],
    promptCache: createPromptCache(),
    closing: closing.signal,
  };
  const server = createServer((req, res) => {
    handle(req, res, state).catch((e: unknown) => internalError(res, e));
  });
  await listen(server, options.port ?? 0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    close: async () => {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, state: State): Promise<void> {
  res.on('error', () => {}); // a client that hung up is not the server's problem
  const method = req.method ?? 'GET';
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '') || '/';
  const text = await readBody(req);
  const parsed = parseJson(text);
  const record: RecordedRequest = { method, path, body: parsed.ok ? parsed.value : text };
  state.requests.push(record);

  if (method === 'GET' && path === '/') return void res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Ollama is running');
  const endpoint = ENDPOINTS[`${method} ${path}`];
  if (!endpoint) return void res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found');

  const fault = endpoint.chat ? state.faults.take(endpoint.route) : undefined;
  if (fault) record.fault = fault.kind;
  switch (fault?.kind) {
    case 'refuse':
      return void req.socket.destroy(); // no status, no headers: the client sees the connection drop
    case 'http500':
    case 'http429':
      return FAULT_RESPONSES[endpoint.route](res, fault);
    case 'slow-first-byte':
      await sleep(fault.delayMs ?? FAULT_DEFAULTS.delayMs, undefined, { signal: state.closing }).catch(() => undefined);
      if (res.destroyed || state.closing.aborted) return;
  }
  const shaping = fault?.kind === 'cut-stream' || fault?.kind === 'no-usage' || fault?.kind === 'malformed-json' ? fault.kind : undefined;
  await endpoint.handle({ body: parsed.ok ? parsed.value : undefined, bodyInvalid: !parsed.ok, res, record, fault: shaping, models: state.models, counter: state.counter, promptCache: state.promptCache });
}

function internalError(res: ServerResponse, e: unknown): void {
  if (res.headersSent || res.destroyed) return void res.destroy();
  const text = JSON.stringify({ error: `mock server bug: ${e instanceof Error ? e.message : String(e)}` });
  res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' }).end(text);
}
