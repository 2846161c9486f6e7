/**
 * `bench report`: render a DuckDB results file (latest batch, a given one, or all) to HTML.
 */
import path from 'node:path';
import { CtxbenchError } from '../../core/errors.js';
import { renderReport, writeReport } from '../../report/render.js';
import { ResultStore } from '../../store/result-store.js';
import { VERSION } from '../paths.js';

export interface ReportOptions {
  readonly db: string;
  readonly output: string;
  readonly batch?: string;
}

export async function reportCommand(options: ReportOptions): Promise<void> {
  const store = await ResultStore.openExisting(options.db);
  try {
    const batchId = await store.batchNamed(options.batch);
    const runs = await store.loadRuns(batchId === undefined ? {} : { batchId });
    if (runs.length === 0) {
      const which = options.batch ? `batch ${options.batch}` : 'it';
      throw new CtxbenchError('REPORT_ERROR', `${options.db}: no runs in ${which}; run \`bench run --db ${options.db}\` first`);
    }
    const html = renderReport(runs, { generatedAt: new Date(), version: VERSION, database: path.resolve(options.db) });
    await writeReport(options.output, html);
    process.stdout.write(`Report: ${path.resolve(options.output)} (${runs.length} runs)\n`);
  } finally {
    await store.close();
  }
}
