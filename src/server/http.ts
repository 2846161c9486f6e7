/**
 * Writing responses, whole or streamed, and the two faults that break them on the wire: a cut
 * (half the bytes, then the socket is destroyed) and a body that is not JSON.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a malformed-json fault sends instead of the answer: looks like JSON, is not. */
export const MALFORMED_JSON = '{"model": "mock-model", "message": {"role": "assistant", "content": "ok"';

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Writes `data`, waits until it has left for the socket, then destroys the connection mid-response. */
async function writeThenCut(res: ServerResponse, data: string | Buffer): Promise<void> {
  await new Promise<void>((resolve) => res.write(data, () => resolve()));
  res.destroy();
}

/**
 * A whole JSON answer. `cut`: the headers promise the full length, half the bytes arrive, then the
 * connection drops. `malformed`: a body that is not JSON, with the JSON content type.
 */
export async function sendAnswer(res: ServerResponse, body: unknown, faults: { cut: boolean; malformed: boolean }): Promise<void> {
  if (!faults.cut && !faults.malformed) return sendJson(res, 200, body);
  const bytes = Buffer.from(faults.malformed ? MALFORMED_JSON : JSON.stringify(body), 'utf8');
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': bytes.length });
  if (!faults.cut) return void res.end(bytes);
  await writeThenCut(res, bytes.subarray(0, Math.floor(bytes.length / 2)));
}

/**
 * A streamed answer, one frame (an NDJSON line, an SSE event) at a time. `cut`: only the first half
 * of the frames is sent (never the last one, which carries done / [DONE]), then the connection drops.
 */
export async function sendStream(res: ServerResponse, contentType: string, frames: readonly string[], cut: boolean): Promise<void> {
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache' });
  if (!cut) return void res.end(frames.join(''));
  await writeThenCut(res, frames.slice(0, Math.max(1, Math.floor(frames.length / 2))).join(''));
}

/** The answer's text in stream pieces: one word (with its trailing space) per frame, like tokens arriving. */
export function streamPieces(content: string): string[] {
  const pieces = content.match(/\s*\S+\s*/g) ?? [];
  return pieces.length > 0 ? pieces : [content];
}
