/**
 * Loads what `bench report --baseline` compares against: a `bench baseline` JSON file, or an older
 * results database (its latest batch). Every problem is one line naming the file.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CtxbenchError } from '../core/errors.js';
import { configsByKey, metricsByKey, parseBaseline } from '../gate/baseline.js';
import { readBatch } from '../store/read-batch.js';
import type { BaselineSource } from './baseline-diff.js';
import { utcMinute } from './header.js';

/** What the report renders: its database and batch (as `bench report` got them), to name the command that makes it the baseline. */
export interface Reported {
  readonly db: string;
  readonly batch?: string | undefined;
}

export async function loadBaseline(file: string, reported: Reported): Promise<BaselineSource> {
  if (!existsSync(file)) {
    throw new CtxbenchError('BASELINE_INVALID', `--baseline ${file}: no such file; pass a results database or a JSON file written by \`bench baseline\``);
  }
  if (file.toLowerCase().endsWith('.json')) {
    const baseline = parseBaseline(await readFile(file, 'utf8'), file);
    const created = new Date(baseline.created);
    const made = [baseline.version && `ctxbench ${baseline.version}`, Number.isNaN(created.getTime()) ? '' : utcMinute(created)].filter(Boolean).join(', ');
    // `bench baseline` writes one batch: a report of all of them has no single command to name.
    const update = reported.batch === 'all' ? undefined : `bench baseline --db ${reported.db}${reported.batch === undefined ? '' : ` --batch ${reported.batch}`} -o ${file}`;
    const description = `baseline file${made ? ` (${made})` : ''}${baseline.command ? `: ${baseline.command}` : ''}`;
    return { file, description, runs: baseline.runs, configs: baseline.configs, update };
  }
  const { runs, batches } = await readBatch(file, undefined, '--baseline');
  const batch = batches[0];
  const description = batch ? `batch ${batch.batchId} (${utcMinute(batch.createdAt)}, ctxbench ${batch.version}): ${batch.command}` : 'latest batch';
  return { file, description, runs: Object.fromEntries(metricsByKey(runs, file)), configs: Object.fromEntries(configsByKey(runs, file)) };
}
