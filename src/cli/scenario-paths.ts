/**
 * The scenarios that files, folders and globs lead to (`--scenario`, `bench scenarios list`), with the
 * files of no known format that folders and globs led to summed up in one line on stderr.
 */
import type { PathLabel } from '../scenarios/find.js';
import { loadScenarioPaths, skippedNote, type ScenarioSet } from '../scenarios/load.js';
import { printable } from './printable.js';

/**
 * Every scenario the paths lead to, and the files skipped; `bench: skipped N file(s) of no known
 * format: ...` when some were. `label`: how errors name a path (the path alone by default).
 */
export async function loadScenariosAt(patterns: readonly string[], onRead?: (done: number, total: number) => void, label?: PathLabel): Promise<ScenarioSet> {
  const set = await loadScenarioPaths(patterns, onRead, label);
  if (set.skipped.length > 0) process.stderr.write(`bench: ${printable(skippedNote(set.skipped))}\n`);
  return set;
}
