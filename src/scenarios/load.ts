/**
 * Finding and reading scenario files: ctxbench scenarios (JSON/YAML) and any format an importer knows.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CtxbenchError, isCtxbenchError, scenarioInvalid } from '../core/errors.js';
import { withoutByteOrderMark } from '../core/text-file.js';
import { findScenarioFiles, isScenarioFileName, pathAlone, type FoundFile, type PathLabel } from './find.js';
import { IMPORTERS, findImporter } from './importers/index.js';
import type { CallJoiner, Importer } from './importers/types.js';
import type { ScenarioFile } from './schema.js';
import { parseScenario, type Scenario } from './scenario.js';
import { parseYamlData, taggedYamlData } from './yaml.js';

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
  text = withoutByteOrderMark(text);
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
  const all = await importData(await readStructured(file), file);
  if (!all) throw unknownFormat(file);
  return all;
}

/** The scenarios of a file's data, as importFileAll; undefined when it holds no format ctxbench knows. */
async function importData(raw: unknown, file: string): Promise<ImportedFile[] | undefined> {
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

/** The call files of one group (an importer's `calls`: a folder), as they are read. */
interface CallRun {
  readonly format: string;
  readonly joiner: CallJoiner;
  readonly files: string[];
  /** The first error a call file of the group gave: the group fails as a whole. */
  error?: CtxbenchError;
}

export interface ImportedSet {
  /** Every scenario, in the order of the files (each file's in file order). */
  readonly imported: ImportedFile[];
  /** The files a folder or a glob led to that hold no format ctxbench knows, in order. */
  readonly skipped: string[];
}

/** What one file, or the call files of one group, gave: its scenarios, a skip, or the error that fails it. */
export type FoundUnit =
  | { readonly kind: 'imported'; readonly imported: ImportedFile[] }
  | { readonly kind: 'skipped'; readonly file: string }
  | { readonly kind: 'failed'; readonly error: CtxbenchError; readonly files: number };

/**
 * Every scenario of the files a `--scenario` path led to (findScenarioFiles), each validated: what
 * importFileAll gives for each file, except that
 * - the call files of a group (a format with `calls`: OpenHands' llm_completions/<instance>/*.json)
 *   join into the runs they hold, placed where the first of them was and named after their folder
 *   (`<folder>#<i>` when it holds several runs);
 * - a file a folder or a glob led to that holds no format ctxbench knows is skipped (a file named on
 *   its own must be of a known format; any file that does not parse, or holds an invalid scenario,
 *   is an error).
 * The first error fails it: importFound; readFound gives each file's (or group's) result, as
 * `bench scenarios validate` lists them.
 */
export async function importFound(found: readonly FoundFile[], onRead?: (done: number, total: number) => void): Promise<ImportedSet> {
  const units = await readFound(found, onRead);
  const failed = units.find((unit) => unit.kind === 'failed');
  if (failed) throw failed.error;
  return {
    imported: units.flatMap((unit) => (unit.kind === 'imported' ? unit.imported : [])),
    skipped: units.flatMap((unit) => (unit.kind === 'skipped' ? [unit.file] : [])),
  };
}

/** importFound's result per file or group of call files, in file order; a CtxbenchError fails only its unit. */
export async function readFound(found: readonly FoundFile[], onRead?: (done: number, total: number) => void): Promise<FoundUnit[]> {
  const units: (FoundUnit | CallRun)[] = [];
  const runs = new Map<string, CallRun>();
  for (const [index, { file, named }] of found.entries()) {
    if (index > 0) onRead?.(index, found.length);
    // Outside a folder's extensions a glob's match is not read: a README.md is no broken JSON file.
    if (!named && !isScenarioFileName(file)) {
      units.push({ kind: 'skipped', file });
      continue;
    }
    const error = await failure(async () => {
      const raw = await readStructured(file).catch(async (error: unknown) => {
        if (!named && (await isOtherTaggedYaml(file))) return OTHER_YAML;
        throw error;
      });
      if (raw === OTHER_YAML) {
        units.push({ kind: 'skipped', file });
        return;
      }
      const importer = isNativeScenario(raw) ? undefined : findImporter(raw, file);
      if (!importer?.calls) {
        const all = await importData(raw, file);
        if (!all && named) throw unknownFormat(file);
        units.push(all ? { kind: 'imported', imported: all } : { kind: 'skipped', file });
        return;
      }
      const key = `${importer.format}\n${importer.calls.runOf(raw, file)}`;
      let run = runs.get(key);
      if (run === undefined) {
        run = { format: importer.format, joiner: importer.calls.join(), files: [] };
        runs.set(key, run);
        units.push(run);
      }
      run.files.push(file);
      const joining = run;
      joining.error ??= await failure(() => joining.joiner.add(raw, file));
    });
    if (error) units.push({ kind: 'failed', error, files: 1 });
  }
  if (found.length > 0) onRead?.(found.length, found.length);
  return Promise.all(units.map(async (unit) => ('joiner' in unit ? joinedRun(unit) : unit)));
}

/** What readFound reads a folder's YAML file with custom tags that is no ctxbench scenario as: of no known format. */
const OTHER_YAML = Symbol('other YAML');

/**
 * True for a YAML file that parses but uses custom tags and is no ctxbench scenario (an mkdocs.yml):
 * not broken, just another tool's file. A scenario with custom tags is still refused.
 */
async function isOtherTaggedYaml(file: string): Promise<boolean> {
  if (!/\.ya?ml$/i.test(file)) return false;
  const data = taggedYamlData(withoutByteOrderMark(await readFile(file, 'utf8').catch(() => '')));
  return data !== undefined && !isNativeScenario(data);
}

/** The scenarios of a group of call files, or the error that fails the group. */
async function joinedRun(run: CallRun): Promise<FoundUnit> {
  let imported: ImportedFile[] = [];
  const error =
    run.error ??
    (await failure(async () => {
      const all = run.joiner.scenarios();
      const file = run.files.length === 1 ? run.files[0]! : path.dirname(run.files[0]!);
      imported = all.map((data, i) => ({ scenario: parseScenario(data, runFile(file, i, all.length)), format: run.format, data }));
    }));
  return error ? { kind: 'failed', error, files: run.files.length } : { kind: 'imported', imported };
}

/** The CtxbenchError `work` throws (a user's file is wrong), undefined when it succeeds; any other error is a bug and propagates. */
async function failure(work: () => Promise<void>): Promise<CtxbenchError | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    if (isCtxbenchError(error)) return error;
    throw error;
  }
}

/** importFound over files named on their own: each must hold a known format. */
export async function importFiles(files: readonly string[]): Promise<ImportedFile[]> {
  return (await importFound(files.map((file) => ({ file, named: true })))).imported;
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
  return new CtxbenchError('FORMAT_UNKNOWN', `${file}: not a format ctxbench knows (${knownFormats(importers)})`);
}

const knownFormats = (importers: readonly Importer[]): string => `known: ${['ctxbench (scenario file)', ...importers.map((i) => i.format)].join(', ')}`;

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
export async function loadScenarioPaths(
  patterns: readonly string[],
  onRead?: (done: number, total: number) => void,
  label: PathLabel = pathAlone,
): Promise<ScenarioSet> {
  const { imported, skipped } = await importFound(await findScenarioFiles(patterns, label), onRead);
  if (imported.length === 0) throw noScenarioFound(patterns, skipped, label);
  return { scenarios: imported.map(({ scenario, format }) => ({ scenario, format })), skipped };
}

/** The error for paths that led only to files of no known format (`skipped`, not empty). */
export function noScenarioFound(patterns: readonly string[], skipped: readonly string[], label: PathLabel = pathAlone): CtxbenchError {
  return new CtxbenchError('SCENARIO_NOT_FOUND', `${patterns.map(label).join(', ')}: no scenario found: ${skipped.length} file(s) of no known format (${firstFew(skipped)}; ${knownFormats(IMPORTERS)})`);
}

/** The one line that sums up the files skipped for holding no known format: how many, the first few. */
export const skippedNote = (skipped: readonly string[]): string => `skipped ${skipped.length} file(s) of no known format: ${firstFew(skipped)}`;

const FEW = 3;
const firstFew = (files: readonly string[]): string =>
  `${files.slice(0, FEW).join(', ')}${files.length > FEW ? ` and ${files.length - FEW} more` : ''}`;
