/**
 * `bench baseline` and `bench check`: the CI regression gate. `check` ends with exit code 0 when no
 * run got worse beyond its tolerances, EXIT_CODES.regressions when some did, 1 on errors.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CtxbenchError } from '../../core/errors.js';
import { buildBaseline, metricsByKey, parseBaseline, serializeBaseline, type BatchMeta } from '../../gate/baseline.js';
import { compareRuns, parseTolerances } from '../../gate/compare.js';
import { benchmarkJson, formatMarkdown, formatText } from '../../gate/output.js';
import { acquireInstance, releaseInstance } from '../../store/instances.js';
import { ResultStore } from '../../store/result-store.js';
import { BATCHES } from '../../store/schema.js';
import type { RunResult } from '../../core/run-records.js';
import { EXIT_CODES, ExitWith } from '../exit-codes.js';

export interface BaselineOptions {
  readonly db: string;
  readonly batch?: string;
  readonly output: string;
}

export interface CheckOptions {
  readonly db: string;
  readonly batch?: string;
  readonly baseline: string;
  readonly tolerance: readonly string[];
  readonly jsonOut?: string;
  readonly markdownOut?: string;
}

interface Batch {
  readonly batchId: string;
  readonly meta: BatchMeta;
  readonly runs: RunResult[];
}

async function loadBatch(db: string, batch: string | undefined): Promise<Batch> {
  const store = await ResultStore.openExisting(db);
  try {
    const batchId = batch ?? (await store.latestBatchId());
    const runs = batchId === undefined ? [] : await store.loadRuns({ batchId });
    if (batchId === undefined || runs.length === 0) {
      const which = batch === undefined ? 'it' : `batch ${batch}`;
      throw new CtxbenchError('STORE_ERROR', `${db}: no runs in ${which}; run \`bench run --db ${db}\` first`);
    }
    return { batchId, runs, meta: await batchMeta(db, batchId) };
  } finally {
    await store.close();
  }
}

/** The batch's command and version (read while the store holds the file open, so its instance is shared). */
async function batchMeta(db: string, batchId: string): Promise<BatchMeta> {
  const file = path.resolve(db);
  const instance = await acquireInstance(file);
  try {
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(`SELECT command, version FROM ${BATCHES.name} WHERE batch_id = $id`, { id: batchId });
      const row = reader.getRowObjectsJS()[0] as { command?: string; version?: string } | undefined;
      return { command: row?.command ?? '', version: row?.version ?? '' };
    } finally {
      connection.closeSync();
    }
  } catch (error) {
    throw new CtxbenchError('STORE_ERROR', `${db}: cannot read batch ${batchId} (${(error as Error).message.split('\n')[0]})`);
  } finally {
    await releaseInstance(file);
  }
}

async function writeOut(file: string, text: string, flag: string): Promise<void> {
  try {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeFile(file, text);
  } catch (error) {
    throw new CtxbenchError('OPTION_INVALID', `${flag} ${file}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

export async function baselineCommand(options: BaselineOptions): Promise<void> {
  const batch = await loadBatch(options.db, options.batch);
  const baseline = buildBaseline(batch.runs, batch.meta, new Date(), `${options.db} batch ${batch.batchId}`);
  await writeOut(options.output, serializeBaseline(baseline), '-o');
  process.stdout.write(`Baseline: ${path.resolve(options.output)} (${Object.keys(baseline.runs).length} runs of batch ${batch.batchId})\n`);
}

export async function checkCommand(options: CheckOptions): Promise<void> {
  const tolerances = parseTolerances(options.tolerance);
  let text: string;
  try {
    text = await readFile(options.baseline, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file; write one with `bench baseline -o ' + options.baseline + '`' : (code ?? 'unreadable');
    throw new CtxbenchError('BASELINE_INVALID', `${options.baseline}: cannot read the baseline (${reason})`);
  }
  const baseline = parseBaseline(text, options.baseline);
  const batch = await loadBatch(options.db, options.batch);
  const candidate = metricsByKey(batch.runs, `${options.db} batch ${batch.batchId}`);
  const comparison = compareRuns(baseline.runs, candidate, tolerances);
  if (options.jsonOut !== undefined) await writeOut(options.jsonOut, `${JSON.stringify(benchmarkJson(candidate), null, 2)}\n`, '--json-out');
  if (options.markdownOut !== undefined) await writeOut(options.markdownOut, formatMarkdown(comparison, baseline.runs, candidate), '--markdown-out');
  process.stdout.write(`Checking batch ${batch.batchId} against ${options.baseline}\n${formatText(comparison)}`);
  if (comparison.regressions.length > 0) throw new ExitWith(EXIT_CODES.regressions);
}
