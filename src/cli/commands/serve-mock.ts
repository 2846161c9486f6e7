/**
 * `bench serve-mock`: runs the local model server (src/server) until SIGINT or SIGTERM, so live runs
 * (ollama:chat:<model>, openai:chat:<model>) can be tried and their faults rehearsed without a GPU.
 */
import { CtxbenchError } from '../../core/errors.js';
import { DEFAULT_MODELS, FAULT_DEFAULTS, FAULT_KINDS, startModelServer, type Fault, type FaultKind, type ModelSpec } from '../../server/index.js';
import { parseEncoding, parseTokenCount } from '../options.js';

export interface ServeMockOptions {
  readonly port: string;
  readonly model: string[];
  readonly fault: string[];
  readonly retryAfter: string;
  readonly delay: string;
  readonly encoding: string;
}

const invalid = (flag: string, value: string, expected: string): CtxbenchError =>
  new CtxbenchError('OPTION_INVALID', `${flag} ${value}: expected ${expected}`);

function wholeNumber(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw invalid(flag, value, `a whole number from ${min} to ${max}`);
  return n;
}

/** `name=ctx`, e.g. `qwen2.5-coder:7b=32k`. The name may contain ':' (Ollama tags) but not '='. */
export function parseModel(value: string): ModelSpec {
  const at = value.lastIndexOf('=');
  if (at <= 0) throw invalid('--model', value, 'name=contextLength, like qwen2.5-coder:7b=32k');
  return { name: value.slice(0, at), contextLength: parseTokenCount('--model', value.slice(at + 1), 1) };
}

/** `kind[:times]`, times a whole number or "inf". */
export function parseFault(value: string, retryAfterSeconds: number, delayMs: number): Fault {
  const [kind = '', times, ...rest] = value.split(':');
  if (!(FAULT_KINDS as readonly string[]).includes(kind) || rest.length > 0) throw invalid('--fault', value, `kind[:times] with kind one of ${FAULT_KINDS.join(', ')}`);
  const count = times === undefined ? FAULT_DEFAULTS.times : times === 'inf' ? Infinity : Number(times);
  if (count !== Infinity && !(Number.isInteger(count) && count >= 1)) throw invalid('--fault', value, 'times to be a whole number >= 1 or inf');
  return { kind: kind as FaultKind, times: count, retryAfterSeconds, delayMs };
}

const describeFault = (f: Fault): string => `${f.kind} x${f.times === Infinity ? 'inf' : f.times}`;

export async function serveMockCommand(options: ServeMockOptions): Promise<void> {
  const retryAfter = wholeNumber('--retry-after', options.retryAfter, 0);
  const delay = wholeNumber('--delay', options.delay, 0);
  const models = options.model.length > 0 ? options.model.map(parseModel) : undefined;
  const faults = options.fault.map((f) => parseFault(f, retryAfter, delay));
  const server = await startModelServer({
    port: wholeNumber('--port', options.port, 0, 65535),
    models,
    faults,
    encoding: parseEncoding(options.encoding),
  }).catch((e: NodeJS.ErrnoException) => {
    // EADDRINUSE, EACCES: the port; anything else is a bug.
    throw e.code === undefined ? e : new CtxbenchError('OPTION_INVALID', `--port ${options.port}: cannot listen on 127.0.0.1 (${e.code})`);
  });
  // Listening for Ctrl-C before saying so: a script may stop the server the moment it reads the URL.
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (s: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(s);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const served = (models ?? DEFAULT_MODELS).map((m) => `${m.name} (context ${m.contextLength})`);
  process.stdout.write(
    [
      `serving mock models at ${server.url}`,
      `  models: ${served.join(', ')}`,
      `  faults: ${faults.length > 0 ? faults.map(describeFault).join(', ') : 'none'}`,
      `  Ollama: OLLAMA_HOST=${server.url}   OpenAI-compatible: OPENAI_BASE_URL=${server.url}/v1`,
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  const signal = await stopped;
  await server.close();
  process.stdout.write(`stopped (${signal}) after ${server.requests.length} requests\n`);
}
