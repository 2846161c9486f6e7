/**
 * A server on 127.0.0.1 that answers what the project's model server (src/server) does not: every
 * request gets the status and JSON body a function gives for "METHOD /path" (a proxy refusing the
 * key, a server without GET /models, one that serves a model its listing leaves out).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** "METHOD /path" of every request, in arrival order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

export async function faultServer(answer: (request: string) => readonly [status: number, body: unknown]): Promise<FaultServer> {
  const requests: string[] = [];
  const http = createServer((req, res) => {
    const request = `${req.method} ${req.url}`;
    requests.push(request);
    const [status, body] = answer(request);
    req.resume();
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** OpenAI's error body. */
export const openAiError = (message: string, code: string | null = null) => ({ error: { message, type: 'invalid_request_error', param: null, code } });
