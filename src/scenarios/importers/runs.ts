/** Ids and run counts for formats whose files carry no id of their own or hold several runs. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import { MAX_ID_LENGTH, type ScenarioFile } from '../schema.js';
import type { Importer } from './types.js';

/**
 * `text` as a scenario id: every run of characters an id cannot hold (see schema.ts) becomes one '-',
 * and a text longer than an id may be keeps its head and a digest of the whole, so two long names
 * that differ only at the end stay two ids.
 */
export function safeId(text: string): string {
  const id = text.replace(/[^A-Za-z0-9._:@+-]+/g, '-') || 'scenario';
  if (id.length <= MAX_ID_LENGTH) return id;
  const digest = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
  return `${id.slice(0, MAX_ID_LENGTH - digest.length - 1)}-${digest}`;
}

/** The file's name without `extension` (or without its last extension), as an id: "gpt-4o-airline.json" -> "gpt-4o-airline". */
export function fileStem(file: string, extension = path.extname(file)): string {
  return safeId(path.basename(file, extension));
}

/** The id of run `key` of a file that holds several: `<file-stem>@<key>` ("gpt-4o-airline@task-3.trial-0", "chats@7"). */
export function runId(file: string, key: string | number): string {
  return safeId(`${fileStem(file)}@${key}`);
}

/**
 * True when at least half of `items` (and at least one) pass `looksLike`. A file's format is the shape
 * of its runs as a whole: one broken run among good ones must not make the file "no known format"
 * (skipped unseen in a folder); the importer then names that run and field.
 */
export function mostly(items: unknown, looksLike: (item: unknown) => boolean): items is unknown[] {
  return Array.isArray(items) && items.length > 0 && items.filter(looksLike).length * 2 >= items.length;
}

/** What `convert` of a multi-run format does: the one run of the file, or an error naming the count. */
export function onlyRun<T>(runs: readonly T[], file: string): T {
  if (runs.length !== 1) {
    throw scenarioInvalid(file, `holds ${runs.length} runs; load it with importFileAll (scenarios/load.ts), one scenario per run`);
  }
  return runs[0]!;
}

/**
 * `detect`, `convert` and `convertMany` of a format whose file holds one run or several: `runsOf` finds
 * the runs (undefined when the data is not this format, which `expected` then describes in the error),
 * `convertRun` converts one, `index` being its place when the file holds several.
 */
export function runsImporter<T>(
  runsOf: (data: unknown) => readonly T[] | undefined,
  expected: string,
  convertRun: (run: T, index: number | undefined, file: string) => ScenarioFile,
): Pick<Importer, 'detect' | 'convert' | 'convertMany'> {
  const requireRuns = (data: unknown, file: string): readonly T[] => {
    const runs = runsOf(data);
    if (!runs) throw scenarioInvalid(file, expected);
    return runs;
  };
  return {
    detect: (data) => runsOf(data) !== undefined,
    convert: async (data, file) => convertRun(onlyRun(requireRuns(data, file), file), undefined, file),
    convertMany: async (data, file) => {
      const runs = requireRuns(data, file);
      return runs.map((run, i) => convertRun(run, runs.length > 1 ? i : undefined, file));
    },
  };
}
