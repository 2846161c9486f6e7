import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';

/**
 * Reads the JSON file at `relative` (e.g. "results_summary.json" or "logs/<id>/report.json") next to
 * `file` or in one of the `levels` folders above it, nearest first. Benchmark runs keep their outcome
 * labels at the run's root, a few folders above each trajectory. Undefined when there is none.
 */
export async function readSidecar(file: string, relative: string, levels = 3): Promise<unknown> {
  let dir = path.dirname(path.resolve(file));
  for (let level = 0; level <= levels; level++) {
    const candidate = path.join(dir, relative);
    const text = await readFile(candidate, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw scenarioInvalid(candidate, `cannot read the sidecar file next to ${path.basename(file)} (${error.code ?? error.message})`);
    });
    if (text !== undefined) {
      try {
        return JSON.parse(text);
      } catch (error) {
        throw scenarioInvalid(candidate, `not valid JSON: ${(error as Error).message}`);
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}
