/**
 * `bench baseline` and `bench check`: the CI regression gate. `check` ends with exit code 0 when no
 * run got worse beyond its tolerances and every baseline run was compared like with like,
 * EXIT_CODES.regressions when some got worse, EXIT_CODES.incomparable when runs are missing or
 * configured otherwise, 1 on errors.
 */
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CtxbenchError } from '../../core/errors.js';
import { buildBaseline, configsByKey, metricsByKey, parseBaseline, serializeBaseline, type BatchMeta } from '../../gate/baseline.js';
import { compareRuns, gateVerdict } from '../../gate/compare.js';
import { benchmarkJson, formatMarkdown, formatText, type GateOutcome } from '../../gate/output.js';
import { parseToleranceFile, tolerancesFor, type TolerancesFor } from '../../gate/tolerances.js';
import { acquireInstance, releaseInstance } from '../../store/instances.js';
import { ResultStore } from '../../store/result-store.js';
import { BATCHES } from '../../store/schema.js';
import type { RunResult } from '../../core/run-records.js';
import { EXIT_CODES, ExitWith } from '../exit-codes.js';
import { TOLERANCE_FILES } from '../paths.js';

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
  /** A tolerance file; default: the first of TOLERANCE_FILES beside the baseline, if any. */
  readonly tolerances?: string;
  readonly allowMissing?: boolean;
  readonly acceptChanges?: boolean;
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

/** The tolerance file --tolerances names, or the first found beside the baseline; undefined when neither. */
async function toleranceFile(options: CheckOptions): Promise<string | undefined> {
  if (options.tolerances !== undefined) return options.tolerances;
  const beside = TOLERANCE_FILES.map((name) => path.join(path.dirname(options.baseline), name));
  for (const file of beside) if (await access(file).then(() => true, () => false)) return file;
  return undefined;
}

async function readTolerances(options: CheckOptions): Promise<{ readonly file: string | undefined; readonly tolerances: TolerancesFor }> {
  const file = await toleranceFile(options);
  if (file === undefined) return { file, tolerances: tolerancesFor(undefined, options.tolerance) };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CtxbenchError('OPTION_INVALID', `--tolerances ${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return { file, tolerances: tolerancesFor(parseToleranceFile(text, file), options.tolerance) };
}

async function readBaseline(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file; write one with `bench baseline -o ' + file + '`' : (code ?? 'unreadable');
    throw new CtxbenchError('BASELINE_INVALID', `${file}: cannot read the baseline (${reason})`);
  }
}

export async function checkCommand(options: CheckOptions): Promise<void> {
  const baseline = parseBaseline(await readBaseline(options.baseline), options.baseline);
  const { file: tolerancesFile, tolerances } = await readTolerances(options);
  const batch = await loadBatch(options.db, options.batch);
  const where = `${options.db} batch ${batch.batchId}`;
  const candidate = metricsByKey(batch.runs, where);
  const comparison = compareRuns(baseline.runs, candidate, { tolerances, baselineConfigs: baseline.configs, candidateConfigs: configsByKey(batch.runs, where) });
  const gate: GateOutcome = {
    verdict: gateVerdict(comparison, options),
    update: `bench baseline --db ${options.db}${options.batch === undefined ? '' : ` --batch ${options.batch}`} -o ${options.baseline}`,
  };
  if (options.jsonOut !== undefined) await writeOut(options.jsonOut, `${JSON.stringify(benchmarkJson(candidate), null, 2)}\n`, '--json-out');
  if (options.markdownOut !== undefined) await writeOut(options.markdownOut, formatMarkdown(comparison, baseline.runs, candidate, gate), '--markdown-out');
  const using = tolerancesFile === undefined ? '' : `Tolerances: ${tolerancesFile}\n`;
  process.stdout.write(`Checking batch ${batch.batchId} against ${options.baseline}\n${using}${formatText(comparison, gate)}`);
  if (gate.verdict.regressed) throw new ExitWith(EXIT_CODES.regressions);
  if (gate.verdict.missingFails || gate.verdict.changesFail) throw new ExitWith(EXIT_CODES.incomparable);
}
