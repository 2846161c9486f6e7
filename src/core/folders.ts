/**
 * Output folders, created without Node's recursive mkdir: on some paths (under /proc) it retries the
 * same mkdir forever. Here the walk goes up to the nearest existing ancestor once, then creates each
 * missing level once, and the first refusal is one line naming the flag, the folder and the errno.
 */
import { mkdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { CtxbenchError } from './errors.js';

/** `file` as the user reads it best: relative to the current folder when inside it, else absolute. */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  if (relative === '') return '.';
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

interface Ancestry {
  /** The nearest ancestor of the path (itself included) that exists. */
  readonly existing: string;
  readonly isFolder: boolean;
  /** The levels below it that do not exist, outermost first. */
  readonly missing: readonly string[];
}

async function nearestExisting(file: string, label: string): Promise<Ancestry> {
  const missing: string[] = [];
  let current = path.resolve(file);
  for (;;) {
    try {
      return { existing: current, isFolder: (await stat(current)).isDirectory(), missing };
    } catch (error) {
      const parent = path.dirname(current);
      // ENOTDIR: a file stands somewhere above, and going up finds it.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === current) throw folderError(label, current, error);
      missing.unshift(current);
      current = parent;
    }
  }
}

/** The error of a folder path where a file stands: `label: file is a file, not a folder (ENOTDIR)`. */
export function notAFolder(label: string, file: string): CtxbenchError {
  return new CtxbenchError('OUTPUT_INVALID', `${label}: ${shownPath(path.resolve(file))} is a file, not a folder (ENOTDIR)`);
}

/** One line: ENOTDIR names the file in the way; the others name the folder, the errno and what it means. */
function folderError(label: string, folder: string, error: unknown): CtxbenchError {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ENOTDIR') return notAFolder(label, folder);
  // mkdir under /proc says ENOENT although the parent exists; Node's own words ("no such file") mislead there.
  const reason = code === 'ENOENT' ? 'the file system allows no folder there' : (/^E[A-Z]+: ([^,]*)/.exec(message)?.[1] ?? message);
  return new CtxbenchError('OUTPUT_INVALID', `${label}: cannot create the folder ${shownPath(folder)} (${code ?? 'error'}: ${reason})`);
}

/**
 * Creates `dir` and its missing parents, one plain mkdir each. `label` starts every error line: the
 * flag and the path as given (`--db /proc/x/r.duckdb`).
 */
export async function createFolders(dir: string, label: string): Promise<void> {
  const { existing, isFolder, missing } = await nearestExisting(dir, label);
  if (!isFolder) throw folderError(label, existing, { code: 'ENOTDIR' });
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (error) {
      // Made meanwhile by another process: fine when it is a folder.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && (await stat(level)).isDirectory()) continue;
      throw folderError(label, level, (error as NodeJS.ErrnoException).code === 'EEXIST' ? { code: 'ENOTDIR' } : error);
    }
  }
}

/** `file` with the symbolic links of its existing part resolved, so two spellings of one place compare equal. */
export async function canonicalPath(file: string): Promise<string> {
  const resolved = path.resolve(file);
  const existing = await nearestExisting(resolved, file).then(
    (a) => a.existing,
    () => resolved,
  );
  return path.join(await realpath(existing).catch(() => existing), path.relative(existing, resolved));
}
