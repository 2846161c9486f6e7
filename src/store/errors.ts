/**
 * Turns DuckDB and file-system failures into one-line CtxbenchErrors, so no raw DuckDB message or
 * stack reaches the user.
 */
import { CtxbenchError } from '../core/errors.js';

/** The gist of a failure: first line, without DuckDB's "IO Error: " or Node's "ENOTDIR: " prefix and quoted paths. */
export function shortReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reason = (message.split('\n')[0] ?? '')
    .replace(/^[A-Za-z ]*Error: /, '') // DuckDB: "IO Error: ..."
    .replace(/^E[A-Z]+: ([^,]*),.*$/, '$1') // Node: "ENOTDIR: not a directory, mkdir '/x'"
    .replace(/^[^"]*"[^"]*": /, '') // DuckDB: 'Cannot open file "/x": Not a directory'
    .trim();
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}

/** Classifies a failure to open `file` as a database; `flag` is the option that named it, if any (hints name it). */
export function openError(file: string, error: unknown, flag: string | null = '--db', writer = true): CtxbenchError {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes('Could not set lock on file')) {
    return new CtxbenchError(
      'STORE_LOCKED',
      `${file}: another process has it open (DuckDB allows one writer); wait for it${flag === null ? '' : ` or use another ${flag}`}`,
    );
  }
  // DuckDB recognizes a SQLite file and asks for its scanner extension, which it may not load (instances.ts).
  if (message.includes('not a valid DuckDB database file') || /extension "[^"]*sqlite_scanner/i.test(message)) {
    const hint = flag === null ? '' : `; pass a ctxbench results database${writer ? ' or a new path' : ''} as ${flag}`;
    return new CtxbenchError('STORE_ERROR', `${file}: not a DuckDB database file${hint}`);
  }
  return new CtxbenchError('STORE_ERROR', `${flag === null ? '' : `${flag} `}${file}: cannot open (${shortReason(error)})`);
}
