/**
 * Finished runs as the main thread keeps them until the report and the summary are made: a run's
 * records (its packed steps and events: packed-run.ts, about 50 KB for 400 steps) go to a spill store
 * (spill-file.ts) and are read back at each read of `steps` or `events`; the rest (config, summary,
 * probes) stays. On 100 scenarios x 400 steps x 15 strategies the records were about 100 MB of the
 * main thread's heap at the end of the matrix, its peak. The file is closed once no run that reads
 * from it can be reached.
 */
import { deserialize, serialize } from 'node:v8';
import { unpackRunFrom, type PackedRecords, type PackedRun } from '../core/packed-run.js';
import type { RunResult } from '../core/run-records.js';
import { openSpillFile, spillStore, type SpillFile, type SpillStore } from './spill-file.js';

/** Closes a spill store once the token its runs hold is collected: no run can read it any more. */
const unreachable = new FinalizationRegistry<SpillStore>((store) => store.close());

/** Puts each finished run's records away, giving the run that reads them back. */
export function runSpill(open: (prefix: string) => SpillFile = openSpillFile): (run: PackedRun) => RunResult {
  const store = spillStore('ctxbench-runs-', open);
  const token = {}; // held by every run that reads the store, so the file stays open while one can
  unreachable.register(token, store);
  return ({ records, ...rest }) => {
    const bytes = store.put(serialize(records));
    return unpackRunFrom(rest, () => {
      void token;
      return deserialize(bytes()) as PackedRecords;
    });
  };
}
