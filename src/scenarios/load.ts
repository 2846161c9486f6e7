/**
 * Finding and reading scenario files: ctxbench scenarios (JSON/YAML) and any format an importer knows.
 */
import { readFile } from 'node:fs/promises';
import { CtxbenchError, scenarioInvalid } from '../core/errors.js';
import { findScenarioFiles, isScenarioFileName, type FoundFile } from './find.js';
import { IMPORTERS, findImporter } from './importers/index.js';
import type { Importer } from './importers/types.js';
import type { ScenarioFile } from './schema.js';
import { parseScenario, type Scenario } from './scenario.js';
import { parseYamlData } from './yaml.js';

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
 * scenarios (one per line) loads too. Ids must be unique within the file. A file that holds no format
 * ctxbench knows is an error listing the known ones.
 */
export async function importFileAll(file: string): Promise<ImportedFile[]> {
  const all = await importKnown(file);
  if (!all) throw unknownFormat(file);
  return all;
}

/** As importFileAll, but undefined for a file that holds no format ctxbench knows. */
async function importKnown(file: string): Promise<ImportedFile[] | undefined> {
  const raw = await readStructured(file);
  const native = Array.isArray(raw) && raw.length > 0 && raw.every(isNativeScenario);
  if (isNativeScenario(raw) || native) {
    const all = (native ? raw : [raw]) as ScenarioFile[];
    return checkIds(all.map((data, i) => ({ scenario: parseScenario(data, runFile(file, i, all.length)), format: 'ctxbench', data })), file);
  }
  const importer = findImporter(raw, file);
  if (!importer) return undefined;
  const all = await convertAll(importer, raw, file);
  if (all.length === 0) throw scenarioInvalid(file, 'holds no runs');
  return checkIds(all.map((data, i) => ({ scenario: parseScenario(data, runFile(file, i, all.length)), format: importer.format, data })), file);
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
  return new CtxbenchError('FORMAT_UNKNOWN', `${file}: not a format ctxbench knows (${knownFormats(importers)})`);
}

const knownFormats = (importers: readonly Importer[]): string => `known: ${['ctxbench (scenario file)', ...importers.map((i) => i.format)].join(', ')}`;

/**
 * The scenarios of a file a `--scenario` path led to; undefined when a folder or a glob led to it and
 * it holds no format ctxbench knows (skipped). A file named on its own must be of a known format, and
 * any file that does not parse, or holds an invalid scenario, is an error.
 */
export async function loadFoundFile({ file, named }: FoundFile): Promise<LoadedScenario[] | undefined> {
  // Outside a folder's extensions a glob's match is not read: a README.md is no broken JSON file.
  if (!named && !isScenarioFileName(file)) return undefined;
  const all = named ? await importFileAll(file) : await importKnown(file);
  return all?.map(({ scenario, format }) => ({ scenario, format }));
}

export interface ScenarioSet {
  /** Every scenario, in the order of the files' paths (each file's in file order). */
  readonly scenarios: LoadedScenario[];
  /** The files found in folders or by globs that hold no format ctxbench knows, in path order. */
  readonly skipped: string[];
}

/**
 * Loads every scenario that files, folders and globs lead to (findScenarioFiles), skipping the files
 * of no known format that folders and globs lead to; fails, naming what it skipped, when that leaves
 * no scenario at all.
 */
export async function loadScenarioPaths(patterns: readonly string[]): Promise<ScenarioSet> {
  const scenarios: LoadedScenario[] = [];
  const skipped: string[] = [];
  for (const found of await findScenarioFiles(patterns)) {
    const loaded = await loadFoundFile(found);
    if (loaded) scenarios.push(...loaded);
    else skipped.push(found.file);
  }
  if (scenarios.length === 0) throw noScenarioFound(patterns, skipped);
  return { scenarios, skipped };
}

/** The error for paths that led only to files of no known format (`skipped`, not empty). */
export function noScenarioFound(patterns: readonly string[], skipped: readonly string[]): CtxbenchError {
  return new CtxbenchError('SCENARIO_NOT_FOUND', `--scenario ${patterns.join(', ')}: no scenario found: ${skipped.length} file(s) of no known format (${firstFew(skipped)}; ${knownFormats(IMPORTERS)})`);
}

/** The one line that sums up the files skipped for holding no known format: how many, the first few. */
export const skippedNote = (skipped: readonly string[]): string => `skipped ${skipped.length} file(s) of no known format: ${firstFew(skipped)}`;

const FEW = 3;
const firstFew = (files: readonly string[]): string =>
  `${files.slice(0, FEW).join(', ')}${files.length > FEW ? ` and ${files.length - FEW} more` : ''}`;
