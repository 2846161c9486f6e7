/**
 * One DuckDB instance per database file per process: two instances on one file in the same process
 * do not see each other's writes and can corrupt it. Stores on the same file share an instance and
 * the last one to close closes it, which releases the file lock for other processes.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { CtxbenchError } from '../core/errors.js';

/**
 * DuckDB never fetches or loads code on its own: a foreign file (a SQLite database given as --db) would
 * make it download a scanner extension from the internet. Parquet, which `bench export` writes, is
 * built in.
 */
export const INSTANCE_OPTIONS: Readonly<Record<string, string>> = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
};

interface Shared {
  readonly instance: Promise<DuckDBInstance>;
  readonly readOnly: boolean;
  users: number;
}

const shared = new Map<string, Shared>();

/**
 * `path` must be absolute, so that two spellings of one file share an entry. `readOnly` opens a new
 * instance in DuckDB's read-only mode (a reader's: it reads a file on a read-only file system, and
 * never writes, not even a checkpoint); an instance already open serves readers, and a writer unless
 * it was opened read-only (then the writer is refused in one line, as another process's lock is).
 */
export async function acquireInstance(path: string, readOnly = false): Promise<DuckDBInstance> {
  let entry = shared.get(path);
  if (entry === undefined) {
    entry = { instance: DuckDBInstance.create(path, readOnly ? { ...INSTANCE_OPTIONS, access_mode: 'READ_ONLY' } : INSTANCE_OPTIONS), readOnly, users: 0 };
    shared.set(path, entry);
  } else if (entry.readOnly && !readOnly) {
    throw new CtxbenchError('STORE_LOCKED', `${path}: open for reading in this process; it cannot be written until that ends`);
  }
  entry.users += 1;
  try {
    return await entry.instance;
  } catch (error) {
    // A failed open is not cached: the next attempt (after the lock is released, say) retries.
    if (shared.get(path) === entry) shared.delete(path);
    throw error;
  }
}

export async function releaseInstance(path: string): Promise<void> {
  const entry = shared.get(path);
  if (entry === undefined) return;
  entry.users -= 1;
  if (entry.users > 0) return;
  shared.delete(path);
  (await entry.instance).closeSync();
}
