/**
 * Finished runs as the main thread keeps them until the report and the summary are made: a run's
 * records (its packed steps and events: packed-run.ts, about 50 KB for 400 steps) go to a spill file
 * (spill-file.ts) and are read back at each read of `steps` or `events`; the rest (config, summary,
 * probes) stays. On 100 scenarios x 400 steps x 15 strategies the records were about 100 MB of the
 * main thread's heap at the end of the matrix, its peak. A folder that cannot take the file keeps the
 * records in memory, as before. The file is closed once no run that reads from it can be reached.
 */
import { deserialize, serialize } from 'node:v8';
import { unpackRun, unpackRunFrom, type PackedRecords, type PackedRun } from '../core/packed-run.js';
import type { RunResult } from '../core/run-records.js';
import { openSpillFile, type SpillFile } from './spill-file.js';

/** Closes a spill file once the token its runs hold is collected: no run can read it any more. */
const unreachable = new FinalizationRegistry<SpillFile>((file) => file.close());

/** Puts each finished run's records away, giving the run that reads them back. */
export function runSpill(open: (prefix: string) => SpillFile = openSpillFile): (run: PackedRun) => RunResult {
  let spill: { readonly file: SpillFile; readonly token: object } | undefined;
  let writing = true; // until the file cannot be made or written: then runs keep their records
  return (run) => {
    if (!writing) return unpackRun(run);
    const { records, ...rest } = run;
    try {
      if (spill === undefined) {
        const file = open('ctxbench-runs-');
        spill = { file, token: {} };
        unreachable.register(spill.token, file);
      }
      const { file, token } = spill;
      const block = file.write(serialize(records));
      return unpackRunFrom(rest, () => {
        void token; // held by every run that reads the file, so the file stays open while one can
        return deserialize(file.read(block)) as PackedRecords;
      });
    } catch (error) {
      if (typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
      writing = false;
      return unpackRun(run);
    }
  };
}
