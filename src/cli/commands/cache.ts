/**
 * `bench cache clear`: deletes the record/replay cache's entries.
 */
import { stat } from 'node:fs/promises';
import { notAFolder } from '../../core/folders.js';
import { clearCache } from '../../llm/cache.js';

export interface CacheClearOptions {
  readonly cacheDir: string;
}

export async function cacheClearCommand(options: CacheClearOptions): Promise<void> {
  // A file there holds no entries: saying "Removed 0" would hide the slip.
  if ((await stat(options.cacheDir).catch(() => undefined))?.isDirectory() === false) throw notAFolder(`--cache-dir ${options.cacheDir}`, options.cacheDir);
  process.stdout.write(`Removed ${await clearCache(options.cacheDir)} cached answer(s) from ${options.cacheDir}\n`);
}
