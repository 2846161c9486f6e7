/**
 * A server with broken usage counts, on 127.0.0.1: a proxy in front of the local model server that
 * passes every request on and rewrites the usage of each chat answer (Ollama's counts in its final
 * object, OpenAI's usage object), whole or streamed, leaving the rest of the answer as the server
 * sent it. What a real server with a usage bug sends, through the real clients.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The fields to set: on an Ollama answer's counts (prompt_eval_count...), on an OpenAI usage object (prompt_tokens...). */
export interface UsageOverrides {
  readonly ollama?: Readonly<Record<string, unknown>>;
  readonly openai?: Readonly<Record<string, unknown>>;
}

export interface BadUsageProxy {
  readonly url: string;
  close(): Promise<void>;
}

const CHAT_PATHS = ['/api/chat', '/v1/chat/completions'];

function rewrite(text: string, overrides: UsageOverrides): string {
  const patch = (json: string): string => {
    const value = JSON.parse(json) as Record<string, unknown>;
    if ('prompt_eval_count' in value || 'eval_count' in value) Object.assign(value, overrides.ollama);
    if (typeof value['usage'] === 'object' && value['usage'] !== null) Object.assign(value['usage'], overrides.openai);
    return JSON.stringify(value);
  };
  // SSE (`data: {...}` events), NDJSON (one object a line) or one JSON object.
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('data: {')) return `data: ${patch(line.slice(6))}`;
      return line.startsWith('{') ? patch(line) : line;
    })
    .join('\n');
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startBadUsageProxy(target: string, overrides: UsageOverrides): Promise<BadUsageProxy> {
  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/';
      const body = await bodyOf(req);
      const upstream = await fetch(`${target}${path}`, {
        method: req.method,
        headers: { 'Content-Type': req.headers['content-type'] ?? 'application/json' },
        body: body.length > 0 ? body : undefined,
      });
      const text = await upstream.text();
      const sent = CHAT_PATHS.includes(path.split('?')[0]!) && upstream.ok ? rewrite(text, overrides) : text;
      res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' }).end(sent);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
