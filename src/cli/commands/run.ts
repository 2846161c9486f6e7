/**
 * `bench run`: validate everything first (strategies, params, scenarios, database), then run the
 * matrix as a batch (src/runner/batch.ts), showing its progress, and print the summary and the paths
 * it wrote, or all of it as one JSON document (--json).
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { CtxbenchError } from '../../core/errors.js';
import { checkOutputs, writeOutput, type OutputSpec } from '../../core/output-file.js';
import { createTokenCounter } from '../../core/tokens.js';
import { LIVE_CONCURRENCY } from '../../llm/defaults.js';
import type { MockOptions } from '../../llm/mock.js';
import { CALIBRATION_FILE, calibrationFileText, parseCalibrationFile } from '../../metrics/calibration-file.js';
import { calibrationNotes } from '../../report/header.js';
import { HTML_REPORT, renderReport } from '../../report/render.js';
import { runBatch, type BatchResult, type BatchStart } from '../../runner/batch.js';
import { storedFrom, type CalibrationFile, type ModelCalibration } from '../../runner/batch-calibration.js';
import { checkScenarioIds } from '../../runner/job-plan.js';
import { fitsInThread, type Execution } from '../../runner/matrix.js';
import type { MatrixEntry } from '../../runner/matrix-entry.js';
import { parseShard, type Shard } from '../../runner/shard.js';
import { REPLAY_MODES, type ReactiveReplay, type RunResult } from '../../core/run-records.js';
import type { LoadedScenario } from '../../scenarios/load.js';
import type { Selection } from '../../strategies/index.js';
import { selectStrategies, type StrategySelection } from '../../runner/strategy-file.js';
import { DEFAULT_STRATEGY_TIMEOUT_SECONDS } from '../../runner/strategy-guard.js';
import { parseAssignment, resolveParams, type ParamOwner, type Params } from '../../core/params.js';
import { ResultStore } from '../../store/result-store.js';
import { parseChoice, parseEncoding, parseFraction, parsePriceModel, parseTokenCount, parseWhole } from '../options.js';
import { CODE_ROOT, codeDigest } from '../code-digest.js';
import { printable } from '../printable.js';
import { gitRevision } from '../git-revision.js';
import { BUNDLED_SCENARIOS, PACKAGE_ROOT, VERSION } from '../paths.js';
import { createPreparation, createProgress, showsSteps, type Progress } from '../progress.js';
import { loadScenariosAt } from '../scenario-paths.js';
import { openBackend, type OpenedBackend } from '../backend.js';
import { calibrationLine } from '../calibration-line.js';
import type { MatrixCommandContext } from '../matrix-command.js';
import { recoveryTable, runTable, strategyTable, successTable, usageLine } from '../summary.js';
import { matrixExitCode, stopSignalOf } from '../exit-codes.js';
import { printDocument } from '../json/document.js';
import { runDocument, type RunDocument, type WrittenFiles } from '../json/run.js';

export interface RunOptions {
  readonly strategy: string[];
  readonly preset: string[];
  readonly scenario?: string[];
  readonly window?: string;
  readonly param: string[];
  readonly db: string;
  readonly report: string | false;
  readonly encoding: string;
  readonly model: string;
  readonly host?: string;
  readonly baseUrl?: string;
  readonly live: string;
  readonly probes: string;
  /** forced (teacher forcing) or reactive (re-reads what a strategy took out). */
  readonly replay: string;
  readonly maxRereadsPerTurn: string;
  readonly maxRereadsPerRun: string;
  readonly cache: boolean;
  readonly cacheDir?: string;
  readonly timeout?: string;
  readonly retries?: string;
  readonly concurrency?: string;
  readonly mockRecall: string;
  readonly mockSummaryTokens: string;
  readonly mockSeed: string;
  readonly calibrate: boolean;
  /** A calibration file to apply instead of fitting. */
  readonly calibration?: string;
  /** Where to write the calibration the runs used, as a calibration file. */
  readonly saveCalibration?: string;
  readonly priceModel?: string;
  /** `i/n`: run only shard i of n of the matrix. */
  readonly shard?: string;
  readonly batchId?: string;
  /** Continue the latest batch of the same matrix in --db: run only what it lacks. */
  readonly resume?: boolean;
  /** One JSON document on stdout instead of the summary (json/run.ts). */
  readonly json?: boolean;
  /** Seconds a strategy's hook call may take before its run ends with status `error`. */
  readonly strategyTimeout?: string;
}

const MAX_RUN_ROWS = 60;
/** auto: ask the probe questions on live backends, judge probes on the context with the mock. */
const PROBE_MODES = ['auto', 'ask', 'context'] as const;

/** The replay mode and its caps (--replay, --max-rereads-per-turn, --max-rereads-per-run); undefined: forced. */
function parseReplay(options: RunOptions): ReactiveReplay | undefined {
  const mode = parseChoice('--replay', options.replay, REPLAY_MODES);
  const caps = {
    perTurn: parseWhole('--max-rereads-per-turn', options.maxRereadsPerTurn, { min: 0, max: 1000 }),
    perRun: parseWhole('--max-rereads-per-run', options.maxRereadsPerRun, { min: 0, max: 1_000_000 }),
  };
  return mode === 'reactive' ? { mode, caps } : undefined;
}

export async function runCommand(options: RunOptions, context: MatrixCommandContext): Promise<void> {
  const selections = await selectStrategies(options.strategy, options.preset);
  const params = resolveParams(selections.map(paramOwner), options.param.map(parseAssignment));
  await runEntries(
    options,
    selections.map((s) => entryOf(s, params.get(s.name)!)),
    context,
    { kind: 'run' },
  );
}

/** A selection's matrix entry at `params` (a sweep's setting: `variant`). */
export const entryOf = (s: StrategySelection, params: Params, variant?: string): MatrixEntry => ({ strategy: s.strategy, preset: s.preset?.name, params, variant, file: s.file });

/**
 * How a matrix command ends once its runs are saved and printed, or undefined when it succeeded:
 * INTERRUPTED (Ctrl-C, SIGTERM), or RUN_ERRORS when runs a backend error ended (status `error`), with
 * how many and the first reason.
 */
function matrixEnding({ runs, interrupted }: BatchResult, db: string): CtxbenchError | undefined {
  if (interrupted) return new CtxbenchError('INTERRUPTED', `interrupted: ${runs.length} finished run(s) kept in ${db}; the same command with --resume runs the rest`);
  const failed = runs.filter((r) => r.summary.status === 'error');
  if (failed.length === 0) return undefined;
  // The strategy guard's failures name the strategy first (runner/strategy-guard.ts).
  const what = failed.some((r) => r.summary.failure?.startsWith('strategy ')) ? 'an error' : 'a backend error';
  return new CtxbenchError(
    'RUN_ERRORS',
    `${failed.length} of ${runs.length} runs ended with ${what} (the first: ${failed[0]!.summary.failure ?? 'no reason recorded'}); the same command with --resume runs them again`,
  );
}

/** Whose parameters a selection sets: a preset answers to its strategy's name too, from its settings. */
export const paramOwner = (s: Selection): ParamOwner => ({
  name: s.name,
  aliases: s.preset ? [s.strategy.name] : [],
  params: s.strategy.params,
  checkParams: s.strategy.checkParams,
  base: s.preset?.params,
});

/** What a matrix command prints besides the runs: its JSON document's kind, what its text ends with. */
export interface MatrixOutput {
  readonly kind: RunDocument['kind'];
  /** Printed after the summary unless the matrix was interrupted (a sweep's Pareto front). */
  readonly epilogue?: (runs: readonly RunResult[]) => string;
}

/**
 * Everything `bench run` does once the strategy entries are known (`bench sweep` passes a grid's):
 * checks the other flags, runs the matrix into the database as a batch, writes the report and prints
 * the summary, or with --json one document (json/run.ts). Then throws INTERRUPTED when Ctrl-C or
 * SIGTERM stopped the batch, RUN_ERRORS when runs a backend error ended; throws BACKEND_UNREACHABLE
 * without printing the runs when the server was found unusable at the first request the cache could
 * not answer.
 */
export async function runEntries(options: RunOptions, entries: readonly MatrixEntry[], context: MatrixCommandContext, output: MatrixOutput): Promise<void> {
  const mock = {
    recall: parseFraction('--mock-recall', options.mockRecall),
    summaryTokens: parseTokenCount('--mock-summary-tokens', options.mockSummaryTokens, 1),
    seed: parseWhole('--mock-seed', options.mockSeed, { min: 0, max: 2 ** 32 - 1 }),
  };
  const probeMode = parseChoice('--probes', options.probes, PROBE_MODES);
  const replay = parseReplay(options);
  const strategyTimeout = parseWhole('--strategy-timeout', options.strategyTimeout ?? String(DEFAULT_STRATEGY_TIMEOUT_SECONDS), { min: 1, max: 86_400 });
  const windowOverride = options.window === undefined ? undefined : parseTokenCount('--window', options.window);
  const priceModel = options.priceModel === undefined ? undefined : parsePriceModel(options.priceModel);
  const encoding = parseEncoding(options.encoding);
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  if (options.batchId !== undefined && !/^[\w.:-]+$/.test(options.batchId)) {
    throw new CtxbenchError('OPTION_INVALID', `--batch-id ${options.batchId}: expected letters, digits, and . _ : - only`);
  }
  const calibrationFile = await readCalibrationFile(options);
  const preparing = createPreparation();
  const { files, scenarios } = await loadMatrixScenarios(options.scenario ?? [BUNDLED_SCENARIOS], preparing.read).catch((error: unknown) => {
    preparing.stop(); // the bar cleared before the error's line
    throw error;
  });
  const report = options.report === false ? undefined : reportOutput(options.report, options.db, files);
  const savedCalibration = options.saveCalibration === undefined ? undefined : calibrationOutput(options.saveCalibration, options);
  await checkOutputs([report, savedCalibration].filter((t) => t !== undefined));

  const counter = await createTokenCounter(encoding);
  const opened = await openBackend(
    {
      ...options,
      window: windowOverride,
      timeout: options.timeout === undefined ? undefined : parseWhole('--timeout', options.timeout, { min: 1, max: 86_400 }),
      retries: options.retries === undefined ? undefined : parseWhole('--retries', options.retries, { min: 0, max: 100 }),
    },
    counter,
    mock,
  );
  const execution = executionFor(opened, mock, options, entries, scenarios);
  // With --json, stdout holds the document alone: the lines printed before the summary go to stderr.
  const info = options.json ? process.stderr : process.stdout;
  // A file found in the current folder shapes results unasked: say which, as bench check names its tolerance file.
  if (context.config) info.write(`Config: ${printable(context.config.file)} (${context.config.settings.join(', ') || 'no setting taken: the flags given win'})\n`);
  const store = await ResultStore.open(options.db);
  let progress = undefined as Progress | undefined;
  let interruption: AbortSignal | undefined;
  let start: BatchStart | undefined;
  let calibration: readonly ModelCalibration[] = [];
  let result: BatchResult;
  try {
    result = await context.interruptible((signal) => {
      interruption = signal;
      return runBatch({
        scenarios,
        // Nothing below reads a scenario (the report and the summary read the runs): on worker
        // threads, each is let go once its runs are in.
        releaseScenarios: true,
        // The report, the summary and the JSON document read each run's steps a few times at most.
        spillRuns: true,
        entries,
        store,
        execution,
        counter,
        model: options.model,
        backendOptions: opened.options,
        maxOutputTokens: opened.maxOutputTokens,
        askProbes: probeMode === 'ask' || (probeMode === 'auto' && opened.live),
        replay,
        strategyTimeout,
        windowOverride,
        calibrate: options.calibrate,
        calibrationFile,
        // A live run costs what its backend's model costs (a local one nothing), never the recorded scenario's model.
        priceModel: priceModel ?? opened.priceModel,
        shard,
        batchId: options.batchId,
        resume: options.resume,
        origin: { command: ['bench', ...context.argv].join(' '), version: VERSION, gitSha: gitRevision(PACKAGE_ROOT), code: codeDigest(CODE_ROOT) },
        signal: AbortSignal.any([signal, opened.unusable]),
        onPrepared: preparing.counted,
        onCalibration: (used) => {
          calibration = used;
          used.forEach((c) => info.write(`${calibrationLine(c, calibrationFile?.path)}\n`));
        },
        onStart: (started) => {
          start = started;
          announce(started, options, shard, info);
          progress = createProgress(started.toRun, started.toRunSteps);
        },
        onWarning: (message) => process.stderr.write(`bench: warning: ${message}\n`),
        // Without the bar, no step reports: a message from a worker thread per step, for nothing.
        onStep: showsSteps() ? (_done, _total, promptTokens) => progress?.step(promptTokens) : undefined,
        onRun: (run) => progress?.runFinished(run),
      });
    });
  } finally {
    preparing.stop();
    progress?.stop();
    await store.close();
  }

  if (opened.unusable.aborted) {
    // The check that waited for the first request the cache could not answer failed: one line, as at the start.
    const kept = result.runs.filter((r) => r.summary.status !== 'error').length;
    throw new CtxbenchError('BACKEND_UNREACHABLE', `${(opened.unusable.reason as Error).message} (${kept} finished run(s) kept in ${options.db}; the same command with --resume runs the rest)`);
  }
  const ending = matrixEnding(result, options.db);
  const calibrationSaved = savedCalibration === undefined ? undefined : await writeCalibration(calibration, savedCalibration);
  const reportFile = report === undefined ? undefined : await writeReport(result, options.db, report);
  const written = { database: path.resolve(options.db), report: reportFile, calibration: calibrationSaved };
  if (options.json) {
    // The warning lines the text prints go to stderr; the document's notes hold them too.
    calibrationNotes(result.calibration).forEach((note) => process.stderr.write(`${note}\n`));
    const exitCode = matrixExitCode(ending, stopSignalOf(interruption));
    const cache = opened.cache?.enabled ? { dir: opened.cache.dir, hits: opened.cache.stats.hits, sent: opened.cache.stats.misses } : null;
    printDocument(runDocument({ kind: output.kind, exitCode, result, start, shard, resume: options.resume ?? false, cache, files: written, generatedAt: new Date() }));
  } else {
    printSummary(result, opened, written);
    if (!result.interrupted && output.epilogue) process.stdout.write(`\n${output.epilogue(result.runs)}\n`);
  }
  if (ending) throw ending;
}

/** The --calibration file's calibrations, read and checked before anything runs; refused beside --no-calibrate. */
async function readCalibrationFile(options: RunOptions): Promise<CalibrationFile | undefined> {
  const file = options.calibration;
  if (file === undefined) return undefined;
  if (!options.calibrate) throw new CtxbenchError('OPTION_INVALID', `--calibration ${file}: pass it or --no-calibrate, not both`);
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CtxbenchError('CALIBRATION_INVALID', `--calibration ${file}: cannot read (${error.code ?? error.message})`);
  });
  return { path: file, calibrations: parseCalibrationFile(text, file) };
}

/**
 * Every scenario the --scenario paths name, loaded and validated (the call files of one recorded run
 * as one), and the files they came from.
 */
async function loadMatrixScenarios(paths: readonly string[], onRead: (done: number, total: number) => void): Promise<{ files: string[]; scenarios: LoadedScenario[] }> {
  const { scenarios } = await loadScenariosAt(paths, onRead, (p) => `--scenario ${p}`);
  // Before the backend is reached and the results file created: a matrix that cannot run stops here.
  checkScenarioIds(scenarios);
  // A file holding several runs names each `<file>#<index>`.
  const files = [...new Set(scenarios.map(({ scenario }) => scenario.file.replace(/#\d+$/, '')))];
  return { files, scenarios };
}

interface ReportOutput {
  readonly file: string;
  readonly spec: OutputSpec;
}

/** The --save-calibration file: it replaces no input (the --calibration file it may have read) and only a calibration file. */
function calibrationOutput(file: string, options: RunOptions): ReportOutput {
  const inputs = options.calibration === undefined ? [] : [{ label: `--calibration ${options.calibration}`, file: options.calibration }];
  return { file, spec: { label: `--save-calibration ${file}`, kind: CALIBRATION_FILE, inputs } };
}

/** The HTML report's path and rules: it replaces no input (the database, a scenario) and only a report. */
function reportOutput(file: string, db: string, scenarioFiles: readonly string[]): ReportOutput {
  const inputs = [{ label: `--db ${db}`, file: db }, ...scenarioFiles.map((scenario) => ({ label: `--scenario ${scenario}`, file: scenario }))];
  return { file, spec: { label: `--report ${file}`, kind: HTML_REPORT, inputs } };
}

/** -j's bound: a few threads per core keep every core busy, more only thrash (100,000 threads took 13 GB). */
const maxConcurrency = (): number => Math.max(8, 4 * availableParallelism());

/**
 * Where the runs go (-j): the mock only computes, so one worker thread per core, or this thread for a
 * small matrix without -j (fitsInThread). Live servers answer several requests at once (in this
 * thread, waiting on the network); a local Ollama is usually busy with one.
 */
function executionFor(opened: OpenedBackend, mock: MockOptions, options: RunOptions, entries: readonly MatrixEntry[], scenarios: readonly LoadedScenario[]): Execution {
  const parallel = options.concurrency === undefined ? undefined : parseWhole('-j', options.concurrency, { min: 1, max: maxConcurrency() });
  if (opened.backend.name !== 'mock') {
    return { kind: 'in-thread', backend: opened.backend, concurrency: parallel ?? (options.model.startsWith('openai:') ? LIVE_CONCURRENCY.openai : LIVE_CONCURRENCY.ollama) };
  }
  return parallel === undefined && fitsInThread(entries, scenarios) ? { kind: 'in-thread', backend: opened.backend } : { kind: 'workers', threads: parallel ?? availableParallelism(), mock };
}

/** Writes the HTML report of the batch; returns its absolute path. */
async function writeReport({ runs, batch, calibration }: BatchResult, db: string, report: ReportOutput): Promise<string> {
  const html = renderReport(runs, { generatedAt: new Date(), version: VERSION, database: path.resolve(db), batches: batch ? [batch] : [], calibration });
  await writeOutput(report.file, html, report.spec);
  return path.resolve(report.file);
}

/** Writes the calibration the runs used as a calibration file (--save-calibration); returns its absolute path. */
async function writeCalibration(calibration: readonly ModelCalibration[], output: ReportOutput): Promise<string> {
  await writeOutput(output.file, calibrationFileText(calibration.map(storedFrom)), output.spec);
  return path.resolve(output.file);
}

/** The summary tables, the calibration warnings, and the cache's and the files' lines. */
function printSummary({ runs, calibration }: BatchResult, opened: OpenedBackend, files: WrittenFiles): void {
  const out = process.stdout;
  // Past a screenful, one row per run drowns the summary: the report and the runs table have them all.
  const perRun = runs.length <= MAX_RUN_ROWS ? runTable(runs) : `${runs.length} runs: one row each in the report and in the database's runs table.`;
  out.write(`\n${perRun}\n\n${strategyTable(runs)}\n\n${successTable(runs)}\n`);
  const recovery = recoveryTable(runs);
  if (recovery) out.write(`\n${recovery}\n`);
  const usage = usageLine(runs);
  if (usage) out.write(`\n${usage}\n`);
  const warnings = calibrationNotes(calibration);
  if (warnings.length > 0) out.write(`\n${warnings.join('\n')}\n`);
  const cache = opened.cache?.stats;
  if (cache && opened.cache?.enabled) out.write(`\nCache: ${cache.hits} hit(s), ${cache.misses} request(s) sent (${opened.cache.dir})\n`);
  out.write(`\nResults: ${files.database}\n`);
  if (files.calibration !== undefined) out.write(`Calibration: ${files.calibration}\n`);
  if (files.report !== undefined) out.write(`Report:  ${files.report}\n`);
}

/** Which batch the runs go to and what of the matrix runs now: the lines a shard and --resume print (to `info`). */
function announce(start: BatchStart, options: RunOptions, shard: Shard | undefined, info: NodeJS.WritableStream): void {
  if (options.resume && start.isNew) process.stderr.write(`bench: --resume: no batch of this matrix in ${options.db}; starting batch ${start.batchId}\n`);
  if (shard !== undefined) info.write(`Shard ${shard.index}/${shard.count}: ${start.ownJobs} of the matrix's ${start.matrixJobs} runs, batch ${start.batchId}\n`);
  if (!start.isNew && options.resume) {
    const redone = start.redo > 0 ? ` (${start.redo} ended with a backend error: run again)` : '';
    info.write(`Resuming batch ${start.batchId}: ${start.kept} finished run(s) kept, ${start.toRun} to run${redone}\n`);
  }
}
