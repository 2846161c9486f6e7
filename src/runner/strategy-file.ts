/**
 * An outside strategy: `--strategy ./my-strategy.ts` (or .mts, .js, .mjs). TypeScript loads without a
 * build step through tsx's `tsImport`, which compiles the file and what it imports for this import
 * only (no process-wide hook). The file's default export (or its export named `strategy`) must be
 * what `defineStrategy` returns.
 *
 * Its runs carry the file's name and a digest of its source, so the gate names a changed strategy
 * as a change instead of comparing it with the old numbers as if nothing happened.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CtxbenchError, errorLine } from '../core/errors.js';
import { specProblem, type ParamSpecs } from '../core/params.js';
import type { StrategySource } from '../core/run-records.js';
import type { StrategyDefinition } from '../core/strategy.js';
import { PRESET_NAMES, select, STRATEGY_NAMES, type Selection } from '../strategies/index.js';

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

/** Where a strategy loaded from a file came from: plain data, so a worker thread can load it again. */
export interface StrategyFile {
  /** Absolute path. */
  readonly path: string;
  /** What the user typed, for messages. */
  readonly given: string;
  /** sha256 of the file's bytes, hex, first 12 characters. */
  readonly digest: string;
}

export interface LoadedStrategyFile {
  readonly strategy: StrategyDefinition;
  readonly file: StrategyFile;
}

/** True when a `--strategy` value names a file rather than a built-in: it has a path separator or a script extension. */
export function isStrategyPath(value: string): boolean {
  return value.includes('/') || value.includes('\\') || EXTENSIONS.some((ext) => value.endsWith(ext));
}

/** The first 12 hex characters of the sha256 of `source`: enough to tell two versions of a file apart. */
export const sourceDigest = (source: string | Buffer): string => createHash('sha256').update(source).digest('hex').slice(0, 12);

/**
 * Reads, digests and imports the strategy file `given` (relative to `cwd`). Every failure is one line
 * naming the file as it was given: `label` (default `--strategy <given>`; `bench verify`'s is its argument).
 */
export async function loadStrategyFile(given: string, cwd = process.cwd(), label = `--strategy ${given}`): Promise<LoadedStrategyFile> {
  const absolute = path.resolve(cwd, given);
  const fail = (problem: string): CtxbenchError => new CtxbenchError('STRATEGY_INVALID', `${label}: ${problem}`);
  if (!EXTENSIONS.some((ext) => absolute.endsWith(ext))) throw fail(`not a strategy file (expected ${EXTENSIONS.join(', ')})`);
  let source: Buffer;
  try {
    if (!statSync(absolute).isFile()) throw fail('not a file');
    source = readFileSync(absolute);
  } catch (error) {
    if (error instanceof CtxbenchError) throw error;
    throw fail('no such file');
  }
  const file: StrategyFile = { path: absolute, given, digest: sourceDigest(source) };
  return { strategy: await importStrategy(file, fail), file };
}

/**
 * Loads `file` again where it is needed once more (a matrix worker thread): the same source, or a
 * one-line error, so no run of a file edited meanwhile is labelled with the digest of the old one.
 */
export async function reloadStrategyFile(file: StrategyFile): Promise<StrategyDefinition> {
  const fail = (problem: string): CtxbenchError => new CtxbenchError('STRATEGY_INVALID', `--strategy ${file.given}: ${problem}`);
  let digest: string;
  try {
    digest = sourceDigest(readFileSync(file.path));
  } catch {
    throw fail('no longer readable since bench read it');
  }
  if (digest !== file.digest) throw fail(`changed while bench ran (source ${file.digest} -> ${digest}); run again`);
  return importStrategy(file, fail);
}

/** How runs of `file` are labelled: its path relative to `cwd` (where bench runs), with `/` separators, and its digest. */
export function strategySource(file: StrategyFile, cwd = process.cwd()): StrategySource {
  return { file: path.relative(cwd, file.path).split(path.sep).join('/'), digest: file.digest };
}

/** A matrix column, and the file its strategy came from when it is an outside one. */
export interface StrategySelection extends Selection {
  readonly file?: StrategyFile | undefined;
}

/**
 * `select` (strategies/index.ts) with strategy files among the names (`-s raw,./mine.ts`): the
 * built-ins and presets first, then each file once, in the order given. A file's strategy may share
 * its name with no built-in, preset or other file: runs are stored and compared by that name.
 */
export async function selectStrategies(strategies: readonly string[], presets: readonly string[] = [], cwd = process.cwd()): Promise<StrategySelection[]> {
  const values = strategies.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const paths = values.filter(isStrategyPath);
  const names = values.filter((v) => !isStrategyPath(v));
  const builtIn = names.length > 0 || presets.length > 0 || paths.length === 0 ? select(names, presets) : [];
  const files = new Map<string, StrategySelection>();
  for (const given of paths) {
    const { strategy, file } = await loadStrategyFile(given, cwd);
    if (files.has(file.path)) continue;
    const clash = (what: string): CtxbenchError =>
      new CtxbenchError('STRATEGY_INVALID', `--strategy ${given}: its strategy is named "${strategy.name}", ${what}; runs are stored by name: rename it`);
    if (STRATEGY_NAMES.includes(strategy.name)) throw clash('the name of a built-in strategy');
    if (PRESET_NAMES.includes(strategy.name)) throw clash('the name of a preset');
    const twin = [...files.values()].find((s) => s.name === strategy.name);
    if (twin) throw clash(`as is the strategy of ${twin.file!.given}`);
    files.set(file.path, { name: strategy.name, strategy, file });
  }
  return [...builtIn, ...files.values()];
}

async function importStrategy(file: StrategyFile, fail: (problem: string) => CtxbenchError): Promise<StrategyDefinition> {
  let module: Record<string, unknown>;
  try {
    module = isTypeScript(file.path) ? await importTypeScript(file.path) : await import(pathToFileURL(file.path).href);
  } catch (error) {
    throw fail(`cannot load it: ${errorLine(error)}`);
  }
  const exported = pickExport(module);
  const problem = definitionProblem(exported);
  if (problem !== undefined) throw fail(problem);
  return exported as StrategyDefinition;
}

const isTypeScript = (file: string): boolean => file.endsWith('.ts') || file.endsWith('.mts');

async function importTypeScript(file: string): Promise<Record<string, unknown>> {
  // tsx is loaded on first use only: runs of built-in strategies never pay for it.
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
}

/** The default export, or the export named `strategy`; a module compiled from CommonJS nests them once more under `default`. */
function pickExport(module: Record<string, unknown>): unknown {
  const nested = isObject(module.default) ? module.default : {};
  const candidates = [module.default, module.strategy, nested.default, nested.strategy];
  return candidates.find((c) => isObject(c) && 'create' in c) ?? candidates.find((c) => isObject(c) && 'name' in c);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Why `value` is not a strategy definition, or undefined when it is one. */
export function definitionProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'exports no strategy (export default defineStrategy({ ... }))';
  if (typeof value.name !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/i.test(value.name)) return 'its strategy needs a name of letters, digits, ".", "_" or "-"';
  if (typeof value.summary !== 'string') return `strategy ${value.name}: needs a summary (one line for bench strategies)`;
  if (typeof value.create !== 'function') return `strategy ${value.name}: needs create(params) returning { beforeRequest }`;
  if (typeof value.thresholds !== 'function') return `strategy ${value.name}: build it with defineStrategy (thresholds missing)`;
  if (!isObject(value.params)) return `strategy ${value.name}: params must be an object of parameter specs`;
  for (const [name, spec] of Object.entries(value.params as ParamSpecs)) {
    const problem = isObject(spec) ? specProblem(name, spec) : `${name}: not a parameter spec`;
    if (problem !== undefined) return `strategy ${value.name}: parameter ${problem}`;
  }
  return undefined;
}

