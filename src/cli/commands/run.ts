/**
 * `bench run`: validate everything first (strategies, params, scenarios, database), then replay the
 * matrix, saving each finished run at once, and print the summary and the paths it wrote.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { CtxbenchError } from '../../core/errors.js';
import { createTokenCounter } from '../../core/tokens.js';
import { renderReport, writeReport } from '../../report/render.js';
import { matrixFingerprint, sharedBatchId } from '../../runner/fingerprint.js';
import { entryLabel, jobKey, matrixJobs, type MatrixJob } from '../../runner/jobs.js';
import { runMatrix, type Execution } from '../../runner/matrix.js';
import type { MatrixEntry } from '../../runner/matrix-entry.js';
import { runId, runLabel } from '../../core/run-names.js';
import { planBatch, type BatchPlan } from '../../runner/resume.js';
import { jobsOfShard, parseShard, type Shard } from '../../runner/shard.js';
import type { BatchInfo, RunResult } from '../../core/run-records.js';
import { loadScenarios, resolveScenarioPaths } from '../../scenarios/load.js';
import { select, type Selection } from '../../strategies/index.js';
import { parseAssignment, resolveParams, type ParamOwner } from '../../core/params.js';
import { ResultStore } from '../../store/result-store.js';
import { parseChoice, parseEncoding, parseFraction, parseTokenCount } from '../options.js';
import { gitRevision } from '../git-revision.js';
import { BUNDLED_SCENARIOS, PACKAGE_ROOT, VERSION } from '../paths.js';
import { createProgress, type Progress } from '../progress.js';
import { openBackend } from '../backend.js';
import { calibrate, calibrationLine, calibrationRow } from '../calibration.js';
import { runTable, strategyTable, successTable, usageLine } from '../summary.js';

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
  readonly cache: boolean;
  readonly cacheDir?: string;
  readonly timeout?: string;
  readonly retries?: string;
  readonly concurrency?: string;
  readonly mockRecall: string;
  readonly mockSummaryTokens: string;
  readonly mockSeed: string;
  readonly calibrate: boolean;
  readonly priceModel?: string;
  /** `i/n`: run only shard i of n of the matrix. */
  readonly shard?: string;
  readonly batchId?: string;
  /** Continue the latest batch of the same matrix in --db: run only what it lacks. */
  readonly resume?: boolean;
}

const MAX_RUN_ROWS = 60;
/** auto: ask the probe questions on live backends, judge probes on the context with the mock. */
const PROBE_MODES = ['auto', 'ask', 'context'] as const;

export function newBatchId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

export async function runCommand(options: RunOptions, argv: readonly string[]): Promise<void> {
  const selections = select(options.strategy, options.preset);
  const params = resolveParams(selections.map(paramOwner), options.param.map(parseAssignment));
  await runEntries(
    options,
    selections.map((s) => ({ strategy: s.strategy, preset: s.preset?.name, params: params.get(s.name)! })),
    argv,
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

/**
 * Everything `bench run` does once the strategy entries are known (`bench sweep` passes a grid's):
 * checks the other flags, runs the matrix into the database, prints the summary and writes the
 * report. Returns the batch's runs, in matrix order.
 */
export async function runEntries(options: RunOptions, entries: readonly MatrixEntry[], argv: readonly string[]): Promise<RunResult[]> {
  const mock = {
    recall: parseFraction('--mock-recall', options.mockRecall),
    summaryTokens: parseTokenCount('--mock-summary-tokens', options.mockSummaryTokens, 1),
    seed: parseTokenCount('--mock-seed', options.mockSeed, 0),
  };
  const probeMode = parseChoice('--probes', options.probes, PROBE_MODES);
  const windowOverride = options.window === undefined ? undefined : parseTokenCount('--window', options.window);
  const encoding = parseEncoding(options.encoding);
  const shard = options.shard === undefined ? undefined : parseShard(options.shard);
  if (options.batchId !== undefined && !/^[\w.:-]+$/.test(options.batchId)) {
    throw new CtxbenchError('OPTION_INVALID', `--batch-id ${options.batchId}: expected letters, digits, and . _ : - only`);
  }
  const files = await resolveScenarioPaths(options.scenario ?? [BUNDLED_SCENARIOS]);
  const scenarios = [];
  for (const file of files) scenarios.push(...(await loadScenarios(file)));
  const jobs = matrixJobs(scenarios, entries);
  const mine = shard === undefined ? jobs : jobsOfShard(jobs, shard);

  const counter = await createTokenCounter(encoding);
  const opened = await openBackend(
    {
      ...options,
      window: windowOverride,
      timeout: options.timeout === undefined ? undefined : parseTokenCount('--timeout', options.timeout, 1),
      retries: options.retries === undefined ? undefined : parseTokenCount('--retries', options.retries, 0),
    },
    counter,
    mock,
  );
  const parallel = options.concurrency === undefined ? undefined : parseTokenCount('-j', options.concurrency, 1);
  // The mock only computes: one worker thread per core. Live servers answer several requests at once
  // (in this thread, waiting on the network); a local Ollama is usually busy with one.
  const execution: Execution =
    opened.backend.name === 'mock'
      ? { kind: 'workers', threads: parallel ?? availableParallelism(), mock }
      : { kind: 'in-thread', backend: opened.backend, concurrency: parallel ?? (options.model.startsWith('openai:') ? 4 : 1) };
  const fingerprint = matrixFingerprint({
    scenarios,
    entries,
    settings: {
      window: windowOverride,
      model: options.model,
      backendOptions: opened.options,
      maxOutputTokens: opened.maxOutputTokens,
      encoding,
      calibrate: options.calibrate,
      priceModel: options.priceModel,
    },
  });
  const out = process.stdout;
  const store = await ResultStore.open(options.db);
  let progress: Progress | undefined;
  const abort = new AbortController();
  const onSigint = (): void => {
    if (abort.signal.aborted) process.exit(130);
    abort.abort();
    process.stderr.write('\nbench: interrupted: finishing the runs in progress, then stopping (Ctrl-C again to quit now)\n');
  };
  process.on('SIGINT', onSigint);
  const saved: RunResult[] = [];
  let batch: BatchInfo | undefined;
  try {
    const calibration = options.calibrate ? calibrate(scenarios.map((s) => s.scenario), counter) : [];
    calibration.forEach((c) => out.write(`${calibrationLine(c)}\n`));
    const { batchId, isNew, plan } = await startBatch(store, options, fingerprint, shard, mine);
    if (shard !== undefined) out.write(`Shard ${shard.index}/${shard.count}: ${mine.length} of the matrix's ${jobs.length} runs, batch ${batchId}\n`);
    if (!isNew && options.resume) {
      const redone = plan.redo.length > 0 ? ` (${plan.redo.length} ended with a backend error: run again)` : '';
      out.write(`Resuming batch ${batchId}: ${plan.kept.length} finished run(s) kept, ${plan.toRun.length} to run${redone}\n`);
    }
    if (plan.kept.length > 0) saved.push(...(await store.loadRuns({ runIds: plan.kept })));
    await store.deleteRuns(plan.redo);
    if (isNew) {
      batch = { batchId, createdAt: new Date(), command: ['bench', ...argv].join(' '), version: VERSION, fingerprint, gitSha: gitRevision(PACKAGE_ROOT) };
      await store.saveBatch(batch);
      await store.saveCalibration(calibration.map((c) => calibrationRow(batchId, c)));
    } else {
      batch = (await store.loadBatches([batchId]))[0];
    }
    const todo = new Set(plan.toRun.map((job) => job.key));
    const started = (progress = createProgress(todo.size, plan.toRun.reduce((n, job) => n + job.weight, 0)));
    await runMatrix({
      scenarios,
      entries,
      skip: (scenario, entry) => !todo.has(jobKey(entryLabel(entry), scenario.id)),
      execution,
      backendOptions: opened.options,
      maxOutputTokens: opened.maxOutputTokens,
      askProbes: probeMode === 'ask' || (probeMode === 'auto' && opened.live),
      counter,
      batchId,
      windowOverride,
      calibration: new Map(calibration.map((c) => [c.key, c.factor])),
      priceModel: options.priceModel,
      signal: abort.signal,
      onStep: (_done, _total, promptTokens) => started.step(promptTokens),
      onWarning: (message) => process.stderr.write(`bench: warning: ${message}\n`),
      onRun: async (run) => {
        await store.saveRun(run);
        saved.push(run);
        started.runFinished(run);
      },
    });
  } finally {
    progress?.stop();
    process.off('SIGINT', onSigint);
    await store.close();
  }

  // Kept runs first, then new ones as they finished: the summary and the report list them in matrix
  // order, whatever -j and however often the batch was resumed.
  const order = new Map(jobs.map((job, i) => [job.key, i]));
  saved.sort((a, b) => order.get(keyOf(a))! - order.get(keyOf(b))!);
  // Past a screenful, one row per run drowns the summary: the report and the runs table have them all.
  const perRun = saved.length <= MAX_RUN_ROWS ? runTable(saved) : `${saved.length} runs: one row each in the report and in the database's runs table.`;
  out.write(`\n${perRun}\n\n${strategyTable(saved)}\n\n${successTable(saved)}\n`);
  const usage = usageLine(saved);
  if (usage) out.write(`\n${usage}\n`);
  const cache = opened.cache?.stats;
  if (cache && opened.cache?.enabled) out.write(`\nCache: ${cache.hits} hit(s), ${cache.misses} request(s) sent (${opened.cache.dir})\n`);
  out.write(`\nResults: ${path.resolve(options.db)}\n`);
  if (options.report !== false) {
    const html = renderReport(saved, { generatedAt: new Date(), version: VERSION, database: path.resolve(options.db), batches: batch ? [batch] : [] });
    await writeReport(options.report, html);
    out.write(`Report:  ${path.resolve(options.report)}\n`);
  }
  if (abort.signal.aborted) {
    throw new CtxbenchError('INTERRUPTED', `interrupted: ${saved.length} finished run(s) kept in ${options.db}; the same command with --resume runs the rest`);
  }
  return saved;
}

const keyOf = (run: RunResult): string => jobKey(runLabel(run.config.strategy, run.config.variant), run.config.scenarioId);

interface PlannedJob extends MatrixJob {
  readonly runId: string;
}

/**
 * The batch this invocation writes to, and what it runs there. Shards of one matrix share a batch id
 * derived from its fingerprint; --resume continues the latest batch of the same matrix. Runs already
 * in the batch are kept with --resume and refused without it (they would be doubled).
 */
async function startBatch(
  store: ResultStore,
  options: RunOptions,
  fingerprint: string,
  shard: Shard | undefined,
  jobs: readonly MatrixJob[],
): Promise<{ batchId: string; isNew: boolean; plan: BatchPlan<PlannedJob> }> {
  const batchId =
    options.batchId ??
    (shard !== undefined ? sharedBatchId(fingerprint) : options.resume ? ((await store.latestBatchId(fingerprint)) ?? newBatchId()) : newBatchId());
  const planned = jobs.map((job) => ({ ...job, runId: runId(batchId, job.label, job.loaded.scenario.id) }));
  const existing = await store.findBatch(batchId);
  if (existing === undefined) {
    if (options.resume) process.stderr.write(`bench: --resume: no batch of this matrix in ${options.db}; starting batch ${batchId}\n`);
    return { batchId, isNew: true, plan: planBatch(planned, new Map()) };
  }
  if (options.resume && existing.fingerprint !== fingerprint) {
    throw new CtxbenchError(
      'OPTION_INVALID',
      `--resume: batch ${batchId} in ${options.db} ran another matrix (scenarios, strategies, parameters or settings differ); pass the flags it ran with, or drop --resume`,
    );
  }
  const plan = planBatch(planned, await store.runStatuses(batchId));
  const already = plan.kept.length + plan.redo.length;
  if (!options.resume && already > 0) {
    throw new CtxbenchError(
      'OPTION_INVALID',
      `--db ${options.db}: batch ${batchId} already has ${already} of these ${jobs.length} runs; pass --resume to run only the missing ones, or another --batch-id`,
    );
  }
  return { batchId, isNew: false, plan };
}
