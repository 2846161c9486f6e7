/**
 * `bench export --parquet DIR`: a results database (latest batch, a given one, or all) as Parquet files.
 */
import path from 'node:path';
import { CtxbenchError } from '../../core/errors.js';
import { exportParquet } from '../../store/export.js';
import { ResultStore } from '../../store/result-store.js';

export interface ExportOptions {
  readonly parquet: string;
  readonly db: string;
  readonly batch?: string;
}

export async function exportCommand(options: ExportOptions): Promise<void> {
  const store = await ResultStore.openExisting(options.db);
  try {
    const batchId = await store.batchNamed(options.batch);
    if (options.batch === undefined && batchId === undefined) {
      throw new CtxbenchError('STORE_ERROR', `${options.db}: no batches to export; run \`bench run --db ${options.db}\` first`);
    }
    if (batchId !== undefined && (await store.findBatch(batchId)) === undefined) {
      throw new CtxbenchError('OPTION_INVALID', `--batch ${batchId}: no such batch in ${options.db}`);
    }
    const tables = await exportParquet(store, options.parquet, batchId);
    const which = batchId === undefined ? 'every batch' : `batch ${batchId}`;
    process.stdout.write(`Exported ${which} of ${options.db} to ${path.resolve(options.parquet)}:\n`);
    for (const t of tables) process.stdout.write(`  ${path.basename(t.file)}: ${t.rows} row(s)\n`);
  } finally {
    await store.close();
  }
}
