/**
 * `bench baseline` and `bench check`: the CI regression gate. `check` ends with exit code 0 when no
 * run got worse beyond its tolerances and every baseline run was compared like with like,
 * EXIT_CODES.regressions when some got worse, EXIT_CODES.incomparable when runs are missing or
 * configured otherwise, 1 on errors. `check --json` prints the comparison as one JSON document (json/check.ts).
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { CtxbenchError } from '../../core/errors.js';
import { checkOutput, checkOutputs, writeOutput, type FileKind, type OutputSpec } from '../../core/output-file.js';
import { BASELINE_FILE, baselineProblem, buildBaseline, configsByKey, metricsByKey, parseBaseline, serializeBaseline, type BatchMeta } from '../../gate/baseline.js';
import { compareRuns, gateVerdict, strategyOf } from '../../gate/compare.js';
import { BENCHMARK_JSON, benchmarkJson, formatMarkdown, formatText, MARKDOWN_SUMMARY, type GateOutcome } from '../../gate/output.js';
import { parseToleranceFile, tolerancesFor, unmatchedStrategies, type TolerancesFor } from '../../gate/tolerances.js';
import { acquireInstance, releaseInstance } from '../../store/instances.js';
import { ResultStore } from '../../store/result-store.js';
import { BATCHES } from '../../store/schema.js';
import type { RunResult } from '../../core/run-records.js';
import { checkExitCode, EXIT_CODES, ExitWith } from '../exit-codes.js';
import { checkDocument } from '../json/check.js';
import { printDocument } from '../json/document.js';
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
  /** One JSON document on stdout instead of the text (json/check.ts). */
  readonly json?: boolean;
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
  const instance = await acquireInstance(file, true);
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

interface GateOutput {
  readonly file: string;
  readonly spec: OutputSpec;
}

/** An output of the gate (`flag file`): it replaces only a file of `kind`, never the database or the baseline it reads. */
function gateOutput(flag: string, file: string, kind: FileKind, options: { db: string; baseline?: string }): GateOutput {
  const inputs = [{ label: `--db ${options.db}`, file: options.db }];
  if (options.baseline !== undefined) inputs.push({ label: `--baseline ${options.baseline}`, file: options.baseline });
  return { file, spec: { label: `${flag} ${file}`, kind, inputs } };
}

export async function baselineCommand(options: BaselineOptions): Promise<void> {
  const output = gateOutput('-o', options.output, BASELINE_FILE, options);
  await checkOutput(output.file, output.spec);
  const batch = await loadBatch(options.db, options.batch);
  const where = `${options.db} batch ${batch.batchId}`;
  const problem = baselineProblem(batch.runs, where);
  if (problem !== undefined) throw new CtxbenchError('BASELINE_INVALID', problem);
  const baseline = buildBaseline(batch.runs, batch.meta, new Date(), where);
  await writeOutput(output.file, serializeBaseline(baseline), output.spec);
  process.stdout.write(`Baseline: ${path.resolve(options.output)} (${Object.keys(baseline.runs).length} runs of batch ${batch.batchId})\n`);
}

/** The tolerance file --tolerances names, or the first found beside the baseline; undefined when neither. */
async function toleranceFile(options: CheckOptions): Promise<string | undefined> {
  if (options.tolerances !== undefined) return options.tolerances;
  const beside = TOLERANCE_FILES.map((name) => path.join(path.dirname(options.baseline), name));
  for (const file of beside) if (await access(file).then(() => true, () => false)) return file;
  return undefined;
}

/**
 * The tolerances, from the file and the flags. `labels`: the strategy labels of the runs on both
 * sides; the file's strategy entries that match none of them are named (`unmatched`): a typo applies
 * nothing, and one file may serve jobs that run fewer strategies.
 */
async function readTolerances(
  options: CheckOptions,
  labels: ReadonlySet<string>,
): Promise<{ readonly file: string | undefined; readonly tolerances: TolerancesFor; readonly unmatched: readonly string[] }> {
  const file = await toleranceFile(options);
  if (file === undefined) return { file, tolerances: tolerancesFor(undefined, options.tolerance), unmatched: [] };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CtxbenchError('OPTION_INVALID', `--tolerances ${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const parsed = parseToleranceFile(text, file);
  return { file, tolerances: tolerancesFor(parsed, options.tolerance), unmatched: unmatchedStrategies(parsed, labels) };
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
  const jsonOut = options.jsonOut === undefined ? undefined : gateOutput('--json-out', options.jsonOut, BENCHMARK_JSON, options);
  const markdownOut = options.markdownOut === undefined ? undefined : gateOutput('--markdown-out', options.markdownOut, MARKDOWN_SUMMARY, options);
  // Both are checked before either is written: a refused one leaves the other unwritten too.
  await checkOutputs([jsonOut, markdownOut].filter((o) => o !== undefined));
  const baseline = parseBaseline(await readBaseline(options.baseline), options.baseline);
  const batch = await loadBatch(options.db, options.batch);
  const where = `${options.db} batch ${batch.batchId}`;
  const candidate = metricsByKey(batch.runs, where);
  const labels = new Set([...Object.keys(baseline.runs), ...candidate.keys()].map(strategyOf));
  const { file: tolerancesFile, tolerances, unmatched } = await readTolerances(options, labels);
  const comparison = compareRuns(baseline.runs, candidate, { tolerances, baselineConfigs: baseline.configs, candidateConfigs: configsByKey(batch.runs, where) });
  const gate: GateOutcome & { readonly update: string } = {
    verdict: gateVerdict(comparison, options),
    update: `bench baseline --db ${options.db}${options.batch === undefined ? '' : ` --batch ${options.batch}`} -o ${options.baseline}`,
  };
  if (jsonOut !== undefined) await writeOutput(jsonOut.file, `${JSON.stringify(benchmarkJson(candidate), null, 2)}\n`, jsonOut.spec);
  if (markdownOut !== undefined) await writeOutput(markdownOut.file, formatMarkdown(comparison, baseline.runs, candidate, gate), markdownOut.spec);
  if (options.json) {
    const inputs = { baselineFile: options.baseline, baseline, database: options.db, batchId: batch.batchId, candidateRuns: batch.runs.length, tolerancesFile };
    printDocument(checkDocument(comparison, gate, inputs));
  } else {
    const applied = unmatched.length === 0 ? '' : ` (matching no run, so applied to none: strategies ${unmatched.join(', ')})`;
    const using = tolerancesFile === undefined ? '' : `Tolerances: ${tolerancesFile}${applied}\n`;
    process.stdout.write(`Checking batch ${batch.batchId} against ${options.baseline}\n${using}${formatText(comparison, gate)}`);
  }
  const code = checkExitCode(gate.verdict);
  if (code !== EXIT_CODES.ok) throw new ExitWith(code);
}
