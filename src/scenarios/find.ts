/**
 * Finding the files that `--scenario` paths lead to: a file, a folder walked like a dataset root, or a
 * glob (picomatch: `*`, `?`, `**`, brace sets `{json,yaml}`, classes `[ab]`).
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { CtxbenchError } from '../core/errors.js';

/** The extensions a file found in a folder must have to be read as a possible scenario. */
const SCENARIO_EXTENSIONS = ['.json', '.jsonl', '.yaml', '.yml', '.traj'];

/** True for a name with an extension a scenario file can have (.json, .jsonl, .yaml, .yml, .traj; any case). */
export const isScenarioFileName = (file: string): boolean => SCENARIO_EXTENSIONS.includes(path.extname(file).toLowerCase());

/**
 * How a command names a path in its errors: `--scenario x` for `bench run`'s flag, the path alone for
 * the arguments of `bench scenarios`.
 */
export type PathLabel = (path: string) => string;

/** The path as it was given. */
export const pathAlone: PathLabel = (p) => p;

/** A file a `--scenario` path led to. */
export interface FoundFile {
  readonly file: string;
  /**
   * True when a path named the file itself: it must hold a known format. Else a folder or a glob led
   * to it, and a file that holds no known format is skipped.
   */
  readonly named: boolean;
}

/**
 * Every file the paths lead to, sorted, each once however many paths and links lead to it (the first
 * path in order stands for it). A file is itself (named); a folder leads to its files with a scenario
 * extension, subfolders included; a glob to every file it matches. Symlinked folders and files are
 * followed (a link cycle is walked once and ends there); hidden files and folders (`.name`)
 * are passed over in folders, and left to globs that name them. A path that does not exist, or that
 * leads to no file, is an error naming it.
 */
export async function findScenarioFiles(patterns: readonly string[], label: PathLabel = pathAlone): Promise<FoundFile[]> {
  const found: { file: string; named: boolean; real: string }[] = [];
  for (const pattern of patterns) {
    const files = await findFiles(pattern, label);
    if (files.length === 0) throw new CtxbenchError('SCENARIO_NOT_FOUND', `${label(pattern)}: no scenario files found`);
    found.push(...files);
  }
  const byReal = new Map<string, FoundFile>();
  for (const { file, named, real } of found.sort((a, b) => compare(a.file, b.file))) {
    const first = byReal.get(real);
    byReal.set(real, { file: first?.file ?? file, named: named || (first?.named ?? false) });
  }
  return [...byReal.values()];
}

async function findFiles(pattern: string, label: PathLabel): Promise<{ file: string; named: boolean; real: string }[]> {
  const info = await stat(pattern).catch(() => undefined);
  // A path that exists is a path, even when its name has glob characters (`run[1].json`).
  if (info?.isFile()) return [{ file: pattern, named: true, real: await realpath(pattern) }];
  if (info?.isDirectory()) {
    const files = await walk(pattern, { hidden: false, depth: Infinity });
    return files.filter((f) => isScenarioFileName(f.file)).map((f) => ({ ...f, named: false }));
  }
  // A device, FIFO or socket exists: saying there is no such file would send the user looking for one.
  if (info !== undefined) throw new CtxbenchError('SCENARIO_NOT_FOUND', `${label(pattern)}: not a file or folder (a device, FIFO or socket)`);
  const { base, glob, isGlob } = picomatch.scan(pattern);
  if (!isGlob) throw new CtxbenchError('SCENARIO_NOT_FOUND', `${label(pattern)}: no such file or directory`);
  const root = base === '' ? '.' : base;
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) return [];
  // The walk goes only where the glob can match: into hidden folders when it names one (picomatch
  // leaves them to such patterns), and no deeper than its folders when it has no `**` (so `*.json`
  // does not walk a home folder).
  const hidden = /(^|[/{,])\./.test(glob);
  const depth = glob.includes('**') ? Infinity : glob.split('/').length;
  const matches = picomatch(glob);
  const files = await walk(root, { hidden, depth });
  return files.filter((f) => matches(path.relative(root, f.file).split(path.sep).join('/'))).map((f) => ({ ...f, named: false }));
}

/**
 * Every file under `root` with its real path, following symlinks. A real folder is walked again only
 * when reached nearer the root than before (where `depth` may have cut the first walk short), so a
 * cycle of links, which only leads deeper, ends where it comes back. A link that leads nowhere is
 * passed over. `hidden`: whether `.name` entries are walked; `depth`: how many path segments below
 * `root` a file may have.
 */
async function walk(root: string, options: { readonly hidden: boolean; readonly depth: number }): Promise<{ file: string; real: string }[]> {
  /** Each real folder walked, at the least level it was walked at. */
  const walked = new Map<string, number>();
  const files: { file: string; real: string }[] = [];
  const visit = async (dir: string, level: number): Promise<void> => {
    const real = await realpath(dir);
    if ((walked.get(real) ?? Infinity) <= level) return;
    walked.set(real, level);
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      throw new CtxbenchError('SCENARIO_NOT_FOUND', `${dir}: cannot read the folder (${error.code ?? String(error)})`);
    });
    for (const entry of entries.sort((a, b) => compare(a.name, b.name))) {
      if (!options.hidden && entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      const target = entry.isSymbolicLink() ? await stat(full).catch(() => undefined) : entry;
      if (target?.isDirectory()) {
        if (level < options.depth) await visit(full, level + 1);
      } else if (target?.isFile()) files.push({ file: full, real: entry.isSymbolicLink() ? await realpath(full) : path.join(real, entry.name) });
    }
  };
  await visit(root, 1);
  return files;
}

/** Code-unit order, the same on every machine and locale. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
