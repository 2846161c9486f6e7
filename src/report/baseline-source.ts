/**
 * Loads what `bench report --baseline` compares against: a `bench baseline` JSON file, or an older
 * results database (its latest batch). Every problem is one line naming the file.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CtxbenchError } from '../core/errors.js';
import { metricsByKey, parseBaseline } from '../gate/baseline.js';
import { readBatch } from '../store/read-batch.js';
import type { BaselineSource } from './baseline-diff.js';
import { utcMinute } from './header.js';

export async function loadBaseline(file: string): Promise<BaselineSource> {
  if (!existsSync(file)) {
    throw new CtxbenchError('BASELINE_INVALID', `--baseline ${file}: no such file; pass a results database or a JSON file written by \`bench baseline\``);
  }
  if (file.toLowerCase().endsWith('.json')) {
    const baseline = parseBaseline(await readFile(file, 'utf8'), file);
    const created = new Date(baseline.created);
    const made = [baseline.version && `ctxbench ${baseline.version}`, Number.isNaN(created.getTime()) ? '' : utcMinute(created)].filter(Boolean).join(', ');
    return { file, description: `baseline file${made ? ` (${made})` : ''}${baseline.command ? `: ${baseline.command}` : ''}`, runs: baseline.runs };
  }
  const { runs, batches } = await readBatch(file);
  const batch = batches[0];
  const description = batch ? `batch ${batch.batchId} (${utcMinute(batch.createdAt)}, ctxbench ${batch.version}): ${batch.command}` : 'latest batch';
  return { file, description, runs: Object.fromEntries(metricsByKey(runs, file)) };
}
