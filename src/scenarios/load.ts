/**
 * Finding and reading scenario files: ctxbench scenarios (JSON/YAML) and any format an importer knows.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CtxbenchError, scenarioInvalid } from '../core/errors.js';
import { IMPORTERS, findImporter } from './importers/index.js';
import type { Importer } from './importers/types.js';
import type { ScenarioFile } from './schema.js';
import { parseScenario, type Scenario } from './scenario.js';

const SCENARIO_EXTENSIONS = ['.json', '.yaml', '.yml'];

/** Reads a JSON or YAML file; a syntax error names the file and, for JSON, the position. */
export async function readStructured(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CtxbenchError('SCENARIO_NOT_FOUND', `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const yaml = /\.ya?ml$/i.test(file);
  try {
    return yaml ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0];
    throw scenarioInvalid(file, `not valid ${yaml ? 'YAML' : 'JSON'}: ${reason}`);
  }
}

export interface LoadedScenario {
  readonly scenario: Scenario;
  /** "ctxbench" for native files, else the importer's format name. */
  readonly format: string;
}

/** Loads one file: a ctxbench scenario, or a recorded trajectory converted by the matching importer. */
export async function loadScenario(file: string): Promise<LoadedScenario> {
  const { scenario, format } = await importFile(file);
  return { scenario, format };
}

export interface ImportedFile extends LoadedScenario {
  /** The scenario in the ctxbench file format, ready to write out. */
  readonly data: ScenarioFile;
}

/** Reads any known format and returns it in the ctxbench format, validated. */
export async function importFile(file: string): Promise<ImportedFile> {
  const raw = await readStructured(file);
  if (isNativeScenario(raw)) return { scenario: parseScenario(raw, file), format: 'ctxbench', data: raw as ScenarioFile };
  const importer = findImporter(raw, file);
  if (!importer) throw unknownFormat(file);
  const data = await importer.convert(raw, file);
  return { scenario: parseScenario(data, file), format: importer.format, data };
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
