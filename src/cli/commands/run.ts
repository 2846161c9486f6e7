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
import { matrixSteps, runMatrix, type Execution } from '../../runner/matrix.js';
import type { RunResult } from '../../runner/types.js';
import { loadScenarios, resolveScenarioPaths } from '../../scenarios/load.js';
import { select } from '../../strategies/index.js';
import { parseAssignment, resolveParams } from '../../strategies/params.js';
import { ResultStore } from '../../store/result-store.js';
import { parseEncoding, parseFraction, parseTokenCount } from '../options.js';
import { BUNDLED_SCENARIOS, VERSION } from '../paths.js';
import { createProgress } from '../progress.js';
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
}

const MAX_RUN_ROWS = 60;

export function newBatchId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

export async function runCommand(options: RunOptions, argv: readonly string[]): Promise<void> {
  const selections = select(options.strategy, options.preset);
  const params = resolveParams(
    selections.map((s) => ({ name: s.name, aliases: s.preset ? [s.strategy.name] : [], params: s.strategy.params, checkParams: s.strategy.checkParams, base: s.preset?.params })),
    options.param.map(parseAssignment),
  );
  const mock = {
    recall: parseFraction('--mock-recall', options.mockRecall),
    summaryTokens: parseTokenCount('--mock-summary-tokens', options.mockSummaryTokens, 1),
    seed: parseTokenCount('--mock-seed', options.mockSeed, 0),
  };
  const windowOverride = options.window === undefined ? undefined : parseTokenCount('--window', options.window);
  const encoding = parseEncoding(options.encoding);
  const files = await resolveScenarioPaths(options.scenario ?? [BUNDLED_SCENARIOS]);
  const scenarios = [];
  for (const file of files) scenarios.push(...(await loadScenarios(file)));

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
  const jobs = options.concurrency === undefined ? undefined : parseTokenCount('-j', options.concurrency, 1);
  // The mock only computes: one worker thread per core. Live servers answer several requests at once
  // (in this thread, waiting on the network); a local Ollama is usually busy with one.
  const execution: Execution =
    opened.backend.name === 'mock'
      ? { kind: 'workers', threads: jobs ?? availableParallelism(), mock }
      : { kind: 'in-thread', backend: opened.backend, concurrency: jobs ?? (options.model.startsWith('openai:') ? 4 : 1) };
  const out = process.stdout;
  const store = await ResultStore.open(options.db);
  const entries = selections.map((s) => ({ strategy: s.strategy, preset: s.preset?.name, params: params.get(s.name)! }));
  const progress = createProgress(scenarios.length * entries.length, matrixSteps(scenarios, entries));
  const abort = new AbortController();
  const onSigint = (): void => {
    if (abort.signal.aborted) process.exit(130);
    abort.abort();
    process.stderr.write('\nbench: interrupted: finishing the runs in progress, then stopping (Ctrl-C again to quit now)\n');
  };
  process.on('SIGINT', onSigint);
  const saved: RunResult[] = [];
  try {
    const calibration = options.calibrate ? calibrate(scenarios.map((s) => s.scenario), counter) : [];
    calibration.forEach((c) => out.write(`${calibrationLine(c)}\n`));
    const batchId = newBatchId();
    await store.saveBatch({ batchId, createdAt: new Date(), command: ['bench', ...argv].join(' '), version: VERSION });
    await store.saveCalibration(calibration.map((c) => calibrationRow(batchId, c)));
    // Runs are saved as they finish; the summary and the report list them in matrix order, whatever -j.
    saved.push(...(await runMatrix({
      scenarios,
      entries,
      execution,
      backendOptions: opened.options,
      maxOutputTokens: opened.maxOutputTokens,
      counter,
      batchId,
      windowOverride,
      calibration: new Map(calibration.map((c) => [c.key, c.factor])),
      priceModel: options.priceModel,
      signal: abort.signal,
      onStep: (_done, _total, promptTokens) => progress.step(promptTokens),
      onWarning: (message) => process.stderr.write(`bench: warning: ${message}\n`),
      onRun: async (run) => {
        await store.saveRun(run);
        progress.runFinished(run);
      },
    })));
  } finally {
    progress.stop();
    process.off('SIGINT', onSigint);
    await store.close();
  }

  // Past a screenful, one row per run drowns the summary: the report and the runs table have them all.
  const perRun = saved.length <= MAX_RUN_ROWS ? runTable(saved) : `${saved.length} runs: one row each in the report and in the database's runs table.`;
  out.write(`\n${perRun}\n\n${strategyTable(saved)}\n\n${successTable(saved)}\n`);
  const usage = usageLine(saved);
  if (usage) out.write(`\n${usage}\n`);
  const cache = opened.cache?.stats;
  if (cache && opened.cache?.enabled) out.write(`\nCache: ${cache.hits} hit(s), ${cache.misses} request(s) sent (${opened.cache.dir})\n`);
  out.write(`\nResults: ${path.resolve(options.db)}\n`);
  if (options.report !== false) {
    const html = renderReport(saved, { generatedAt: new Date(), version: VERSION, database: path.resolve(options.db) });
    await writeReport(options.report, html);
    out.write(`Report:  ${path.resolve(options.report)}\n`);
  }
  if (abort.signal.aborted) {
    throw new CtxbenchError('INTERRUPTED', `interrupted: ${saved.length} finished run(s) kept in ${options.db}`);
  }
}
