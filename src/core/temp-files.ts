/**
 * Temp files that writes go through (a temp file beside the target, then a rename): named after the
 * target and the process that owns them, so a later write into the same folder can tell a leftover
 * of a killed process (kill -9 mid-write or mid-merge) from a write in progress, and remove it.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';

/** What the temp file is for, in its name: `.all.duckdb.merging-<pid>-<random>`. */
export type TempPurpose = 'writing' | 'merging';

/** `.<name>.<purpose>-<pid>-<8 hex>`, with DuckDB's `.wal` beside a temp database. */
const TEMP_NAME = /^\..+\.(?:writing|merging)-(\d+)-[0-9a-f]{8}(?:\.wal)?$/;

/** A new temp path beside `target` (hidden, owned by this process). */
export function tempPathFor(target: string, purpose: TempPurpose = 'writing'): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${purpose}-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Whether `name` is a temp file's name (of any process). */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/** Whether process `pid` runs (EPERM: it does, as another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the temp files in `dir` whose process is no longer alive; returns their names. Never throws. */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const stale = names.filter((name) => {
    const pid = TEMP_NAME.exec(name)?.[1];
    return pid !== undefined && !isAlive(Number(pid));
  });
  await Promise.all(stale.map((name) => rm(path.join(dir, name), { force: true }).catch(() => undefined)));
  return stale;
}
