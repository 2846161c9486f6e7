/**
 * The scenarios that files, folders and globs lead to (`--scenario`, `bench scenarios list`), with the
 * files of no known format that folders and globs led to summed up in one line on stderr.
 */
import { loadScenarioPaths, skippedNote, type LoadedScenario } from '../scenarios/load.js';
import { printable } from './printable.js';

/** Every scenario the paths lead to; `bench: skipped N file(s) of no known format: ...` when some were skipped. */
export async function loadScenariosAt(patterns: readonly string[]): Promise<LoadedScenario[]> {
  const { scenarios, skipped } = await loadScenarioPaths(patterns);
  if (skipped.length > 0) process.stderr.write(`bench: ${printable(skippedNote(skipped))}\n`);
  return scenarios;
}
