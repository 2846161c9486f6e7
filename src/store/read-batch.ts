/**
 * Reading what one `bench run` stored (or every run), for the report and its baseline: the runs with
 * the batches they came from, or one line saying why there is nothing to read.
 */
import { CtxbenchError } from '../core/errors.js';
import type { BatchInfo, CalibrationRecord, RunResult } from '../core/run-records.js';
import { ResultStore } from './result-store.js';

export interface StoredRuns {
  readonly runs: RunResult[];
  /** The batches of those runs, oldest first. */
  readonly batches: BatchInfo[];
  /** The token calibration those batches counted with. */
  readonly calibration: CalibrationRecord[];
}

/** The runs of `batch` (a batch id, "all", or the latest when undefined) in the results database `db`, which `flag` names. */
export async function readBatch(db: string, batch?: string, flag = '--db'): Promise<StoredRuns> {
  const store = await ResultStore.openExisting(db, flag);
  try {
    const batchId = await store.batchNamed(batch);
    const runs = batch !== 'all' && batchId === undefined ? [] : await store.loadRuns(batchId === undefined ? {} : { batchId });
    if (runs.length === 0) {
      const which = batch === undefined || batch === 'all' ? 'it' : `batch ${batch}`;
      throw new CtxbenchError('STORE_ERROR', `${db}: no runs in ${which}; run \`bench run --db ${db}\` first`);
    }
    const batchIds = [...new Set(runs.map((r) => r.batchId))];
    return { runs, batches: await store.loadBatches(batchIds), calibration: await store.loadCalibration(batchIds) };
  } finally {
    await store.close();
  }
}
