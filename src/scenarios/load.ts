/**
 * Finding and reading scenario files: ctxbench scenarios (JSON/YAML) and any format an importer knows.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { CtxbenchError, scenarioInvalid } from '../core/errors.js';
import { IMPORTERS, findImporter } from './importers/index.js';
import type { CallJoiner, Importer } from './importers/types.js';
import type { ScenarioFile } from './schema.js';
import { parseScenario, type Scenario } from './scenario.js';
import { parseYamlData } from './yaml.js';

const SCENARIO_EXTENSIONS = ['.json', '.jsonl', '.yaml', '.yml', '.traj'];

/**
 * Reads a JSON, JSONL (a list of its non-empty lines) or YAML file; a syntax error names the file and,
 * for JSON, the position (for JSONL, the line).
 */
export async function readStructured(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CtxbenchError('SCENARIO_NOT_FOUND', `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const yaml = /\.ya?ml$/i.test(file);
  const lines = /\.jsonl$/i.test(file);
  try {
    return yaml ? parseYamlData(text) : lines ? parseJsonLines(text) : JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0];
    throw scenarioInvalid(file, `not valid ${yaml ? 'YAML' : lines ? 'JSONL' : 'JSON'}: ${reason}`);
  }
}

function parseJsonLines(text: string): unknown[] {
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch (error) {
      throw new Error(`line ${i + 1}: ${(error as Error).message}`);
    }
  });
}

export interface LoadedScenario {
  readonly scenario: Scenario;
  /** "ctxbench" for native files, else the importer's format name. */
  readonly format: string;
}

export interface ImportedFile extends LoadedScenario {
  /** The scenario in the ctxbench file format, ready to write out. */
  readonly data: ScenarioFile;
}

/** Loads a file that holds exactly one scenario (any known format). */
export async function loadScenario(file: string): Promise<LoadedScenario> {
  const { scenario, format } = await importFile(file);
  return { scenario, format };
}

/** Loads every scenario of a file: one per recorded run (tau-bench lists, JSONL), in file order. */
export async function loadScenarios(file: string): Promise<LoadedScenario[]> {
  return (await importFileAll(file)).map(({ scenario, format }) => ({ scenario, format }));
}

/** Reads any known format holding exactly one run, in the ctxbench format, validated. */
export async function importFile(file: string): Promise<ImportedFile> {
  const all = await importFileAll(file);
  if (all.length !== 1) throw scenarioInvalid(file, `holds ${all.length} runs; import it to a folder or a .jsonl file`);
  return all[0]!;
}

/** Every scenario of a file: one per run from importers with convertMany, else the one `convert` gives. */
export async function convertAll(importer: Importer, data: unknown, file: string): Promise<ScenarioFile[]> {
  return importer.convertMany ? importer.convertMany(data, file) : [await importer.convert(data, file)];
}

/**
 * Every scenario of a file, in file order, each validated on its own; when the file holds several,
 * each scenario's `file` is `<file>#<index>`, so errors and reports name the run. A JSONL of ctxbench
 * scenarios (one per line) loads too. Ids must be unique within the file.
 */
export async function importFileAll(file: string): Promise<ImportedFile[]> {
  return importData(await readStructured(file), file);
}

async function importData(raw: unknown, file: string): Promise<ImportedFile[]> {
  const native = Array.isArray(raw) && raw.length > 0 && raw.every(isNativeScenario);
  if (isNativeScenario(raw) || native) {
    const all = (native ? raw : [raw]) as ScenarioFile[];
    return checkIds(all.map((data, i) => ({ scenario: parseScenario(data, runFile(file, i, all.length)), format: 'ctxbench', data })), file);
  }
  const importer = findImporter(raw, file);
  if (!importer) throw unknownFormat(file);
  const all = await convertAll(importer, raw, file);
  if (all.length === 0) throw scenarioInvalid(file, 'holds no runs');
  return checkIds(all.map((data, i) => ({ scenario: parseScenario(data, runFile(file, i, all.length)), format: importer.format, data })), file);
}

/** The call files of one recorded run (an importer's `calls`), as they are read. */
interface CallRun {
  readonly format: string;
  readonly joiner: CallJoiner;
  readonly files: string[];
}

/**
 * Every scenario of `files`, in their order, each validated: what importFileAll gives for each file,
 * except that the call files of one recorded run (a format with `calls`: OpenHands'
 * llm_completions/<instance>/*.json) join into one scenario, placed where the first of them was and
 * named after their folder when there are several.
 */
export async function importFiles(files: readonly string[]): Promise<ImportedFile[]> {
  const slots: (ImportedFile[] | CallRun)[] = [];
  const runs = new Map<string, CallRun>();
  for (const file of files) {
    const raw = await readStructured(file);
    const importer = isNativeScenario(raw) ? undefined : findImporter(raw, file);
    if (!importer?.calls) {
      slots.push(await importData(raw, file));
      continue;
    }
    const key = `${importer.format}\n${importer.calls.runOf(raw, file)}`;
    let run = runs.get(key);
    if (run === undefined) {
      run = { format: importer.format, joiner: importer.calls.join(), files: [] };
      runs.set(key, run);
      slots.push(run);
    }
    await run.joiner.add(raw, file);
    run.files.push(file);
  }
  return slots.flatMap((slot) => {
    if (Array.isArray(slot)) return slot;
    const data = slot.joiner.scenario();
    const file = slot.files.length === 1 ? slot.files[0]! : path.dirname(slot.files[0]!);
    return [{ scenario: parseScenario(data, file), format: slot.format, data }];
  });
}

/** Loads every scenario of `files` (see importFiles). */
export async function loadScenarioFiles(files: readonly string[]): Promise<LoadedScenario[]> {
  return (await importFiles(files)).map(({ scenario, format }) => ({ scenario, format }));
}

function runFile(file: string, index: number, count: number): string {
  return count > 1 ? `${file}#${index}` : file;
}

function checkIds(imported: ImportedFile[], file: string): ImportedFile[] {
  const seen = new Map<string, number>();
  imported.forEach(({ scenario }, i) => {
    const first = seen.get(scenario.id);
    if (first !== undefined) throw scenarioInvalid(file, `runs ${first} and ${i} have the same id ${scenario.id}`);
    seen.set(scenario.id, i);
  });
  return imported;
}

export function isNativeScenario(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'ctxbench' in data;
}

export function unknownFormat(file: string, importers: readonly Importer[] = IMPORTERS): CtxbenchError {
  const known = ['ctxbench (scenario file)', ...importers.map((i) => i.format)].join(', ');
  return new CtxbenchError('FORMAT_UNKNOWN', `${file}: not a format ctxbench knows (known: ${known})`);
}

/**
 * Expands files, directories (recursively, scenario extensions only) and globs (`*`, `**`, `?`) into a
 * sorted, de-duplicated list. A pattern that matches nothing is an error naming it.
 */
export async function resolveScenarioPaths(patterns: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const pattern of patterns) {
    const matches = /[*?]/.test(pattern) ? await expandGlob(pattern) : await expandPath(pattern);
    if (matches.length === 0) {
      throw new CtxbenchError('SCENARIO_NOT_FOUND', `--scenario ${pattern}: no scenario files found`);
    }
    matches.forEach((m) => found.add(m));
  }
  return [...found].sort();
}

async function expandPath(target: string): Promise<string[]> {
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new CtxbenchError('SCENARIO_NOT_FOUND', `--scenario ${target}: no such file or directory`);
  if (info.isFile()) return [target];
  return (await walk(target)).filter(isScenarioFileName);
}

async function expandGlob(pattern: string): Promise<string[]> {
  const normalized = pattern.split(path.sep).join('/');
  const firstWild = normalized.search(/[*?]/);
  const base = normalized.slice(0, normalized.lastIndexOf('/', firstWild) + 1) || './';
  const regex = globToRegExp(normalized.startsWith('./') ? normalized.slice(2) : normalized);
  const files = await walk(base).catch(() => [] as string[]);
  return files.filter((f) => regex.test(f.split(path.sep).join('/').replace(/^\.\//, '')));
}

/** `**` spans folders, `*` and `?` stay within one path segment. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      out += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

function isScenarioFileName(file: string): boolean {
  return SCENARIO_EXTENSIONS.includes(path.extname(file).toLowerCase());
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}
