/**
 * Every file ctxbench writes goes through here. The rules: an output never replaces an input of the
 * same command (compared as files: device and inode, or the real path of what does not exist yet);
 * an existing file is replaced only by a file of its own kind, recognized by its first bytes, or
 * when it is empty; and a write goes to a temp file in the same folder and is renamed over the
 * target, so a killed write never leaves half a file. A refusal is one line starting with the
 * output's flag and path, and nothing is written.
 */
import { constants } from 'node:fs';
import { access, open, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CtxbenchError } from './errors.js';
import { canonicalPath, createFolders } from './folders.js';
import { removeStaleTemps, tempPathFor, type TempPurpose } from './temp-files.js';

/** How much of an existing file its kind is recognized from. */
export const HEAD_BYTES = 64 * 1024;

/** A kind of file ctxbench writes, recognized by its first bytes. */
export interface FileKind {
  /** What it is, in an error line: "an HTML report". */
  readonly name: string;
  /** Whether `head` (the first HEAD_BYTES of a file, or all of a shorter one) starts a file of this kind. */
  matches(head: Buffer): boolean;
}

/** A file the command reads, named in an error line by `label` (`--db r.duckdb`). */
export interface CommandInput {
  readonly label: string;
  readonly file: string;
}

export interface OutputSpec {
  /** The flag and the path as given (`--report out.html`): the start of every error line. */
  readonly label: string;
  /** The only kind of non-empty file this output may replace. */
  readonly kind: FileKind;
  /** The command's inputs: the output may be none of them. Default is none. */
  readonly inputs?: readonly CommandInput[] | undefined;
}

/** Where a checked output goes. */
export interface OutputTarget {
  readonly path: string;
  /** A FIFO or device (`/dev/stdout`): written into, never replaced by a rename. */
  readonly inPlace: boolean;
}

const refused = (message: string): CtxbenchError => new CtxbenchError('OUTPUT_INVALID', message);

/** Whether `a` and `b` are one file: device and inode when both exist, else their canonical paths. */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
  if (sa !== undefined && sb !== undefined) return sa.dev === sb.dev && sa.ino === sb.ino;
  return (await canonicalPath(a)) === (await canonicalPath(b));
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Checks that `file` may be written under the rules above and creates its folder; throws
 * OUTPUT_INVALID otherwise. Commands call it before their work, so a refused output wastes none.
 */
export async function checkOutput(file: string, spec: OutputSpec): Promise<OutputTarget> {
  const { label, kind } = spec;
  // `-o out/` means a folder; resolving it would quietly write a file named `out`.
  if (/[\\/]$/.test(file)) throw refused(`${label}: a folder, not a file`);
  for (const input of spec.inputs ?? []) {
    if (await sameFile(file, input.file)) throw refused(`${label}: the same file as ${input.label}; an output never replaces an input (pass another path)`);
  }
  const target = path.resolve(file);
  await createFolders(path.dirname(target), label);
  const info = await stat(target).catch(() => undefined);
  // A file is written through a temp file beside it: its folder must take one, known before the work
  // (a read-only file system refused the report only after the whole matrix).
  if (info === undefined || info.isFile()) {
    await access(path.dirname(target), constants.W_OK).catch((error: unknown) => {
      throw writeError(label, error);
    });
  }
  if (info === undefined) return { path: target, inPlace: false };
  if (info.isDirectory()) throw refused(`${label}: a folder, not a file`);
  if (!info.isFile()) return { path: target, inPlace: true };
  if (info.size > 0) {
    const head = await readHead(target).catch((error: NodeJS.ErrnoException) => {
      throw refused(`${label}: cannot read the file there to see what it is (${error.code ?? error.message})`);
    });
    if (!kind.matches(head)) throw refused(`${label}: not replaced: the file there is not ${kind.name} (remove it or pass another path)`);
  }
  // Through a symbolic link to the file it names: the link stays.
  return { path: await realpath(target), inPlace: false };
}

/**
 * Writes `target` through a temp file beside it, which `fill` writes, and a rename: a reader sees the
 * old file or the new one, never part of one. Leftover temp files of dead processes in that folder go
 * first. On failure the temp file (and a DuckDB `.wal` beside it) is removed and the error is thrown on,
 * as one line starting with `label` unless it is one already.
 */
export async function replaceAtomically(target: string, label: string, fill: (temp: string) => Promise<void>, purpose?: TempPurpose): Promise<void> {
  await removeStaleTemps(path.dirname(target));
  const temp = tempPathFor(target, purpose);
  try {
    await fill(temp);
    await rename(temp, target);
  } catch (error) {
    // The write's error is the one worth reporting, even if the cleanup fails too.
    await Promise.all([rm(temp, { force: true }), rm(`${temp}.wal`, { force: true })]).catch(() => undefined);
    throw error instanceof CtxbenchError ? error : writeError(label, error);
  }
}

const writeError = (label: string, error: unknown): CtxbenchError => {
  const { code, message } = error as NodeJS.ErrnoException;
  // Node's "EROFS: read-only file system, access '/x'": the code and its meaning, without the path.
  const meaning = /^(E[A-Z]+: [^,]+)/.exec(String(message))?.[1];
  return refused(`${label}: cannot write (${meaning ?? code ?? String(message).split('\n')[0]})`);
};

/** Checks `file` (checkOutput) and writes `content` to it atomically (replaceAtomically). */
export async function writeOutput(file: string, content: string | Buffer, spec: OutputSpec): Promise<void> {
  const target = await checkOutput(file, spec);
  if (target.inPlace) {
    await writeFile(target.path, content).catch((error: unknown) => {
      throw writeError(spec.label, error);
    });
    return;
  }
  await replaceAtomically(target.path, spec.label, (temp) => writeFile(temp, content, { flag: 'wx' }));
}

/**
 * checkOutput for each of a command's outputs, and none the same file as another (one would replace
 * the other, or be refused as the wrong kind after the work): all are checked before any is written.
 */
export async function checkOutputs(outputs: readonly { readonly file: string; readonly spec: OutputSpec }[]): Promise<void> {
  for (const [i, { file, spec }] of outputs.entries()) {
    for (const earlier of outputs.slice(0, i)) {
      if (await sameFile(file, earlier.file)) throw refused(`${spec.label}: the same file as ${earlier.spec.label}; each output needs its own path`);
    }
    await checkOutput(file, spec);
  }
}
