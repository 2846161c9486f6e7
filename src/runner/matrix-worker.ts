/**
 * A matrix worker thread (see worker-pool.ts): builds its own token counter (over the main thread's
 * rank table, shared) and mock backend from the plain setup it was given, then runs whole jobs as the
 * main thread hands them over and posts each run back, its records packed (packed-run.ts). It never
 * writes the database.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Message } from '../core/messages.js';
import { createTokenCounter } from '../core/tokens.js';
import { adoptRankTable, type RankedEncoding } from '../core/rank-table.js';
import { createMockBackend } from '../llm/mock.js';
import { packRun, transferablesOf } from '../core/packed-run.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { getStrategy } from '../strategies/index.js';
import { reloadStrategyFile } from './strategy-file.js';
import { openParcel } from './scenario-parcel.js';
import { countersFor, runJob, type JobEnv } from './run-job.js';
import type { JobMessage, WorkerMessage, WorkerSetup } from './worker-protocol.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

/** The counter's per-message cache, filled with the main thread's counts of each scenario it sends. */
const known = new WeakMap<Message, number>();
/** Step events go out in batches at most this often: a message per replayed step cost more than most strategies' own work. */
const STEP_BATCH_MS = 100;
let steps: number[] = [];
let flushed = performance.now();
function flushSteps(): void {
  if (steps.length > 0) post({ kind: 'steps', steps });
  steps = [];
  flushed = performance.now();
}
function queueStep(step: number, total: number, promptTokens: number): void {
  steps.push(step, total, promptTokens);
  if (performance.now() - flushed >= STEP_BATCH_MS) flushSteps();
}

if (setup.ranks) adoptRankTable(setup.encoding as RankedEncoding, setup.ranks);
const counter = await createTokenCounter(setup.encoding, known);
const entries = await Promise.all(
  setup.entries.map(async (e) => ({ strategy: e.file ? await reloadStrategyFile(e.file) : getStrategy(e.strategy), preset: e.preset, params: e.params, variant: e.variant, file: e.file })),
);
const env: JobEnv = {
  backend: createMockBackend(counter, setup.mock),
  counterFor: countersFor(counter),
  batchId: setup.batchId,
  backendOptions: setup.backendOptions,
  askProbes: setup.askProbes,
  replay: setup.replay,
  priceModel: setup.priceModel,
  strategyTimeout: setup.strategyTimeout,
  hookClock: setup.hookClock,
  onStep: setup.reportSteps ? queueStep : undefined,
};

/** Structured clone does not keep frozenness: freeze the copy again, so a strategy that edits a message in place fails here as it would in the main thread. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.values(value).forEach(deepFreeze);
  Object.freeze(value);
}

// One scenario held at a time: the main thread sends the next one when the worker moves on to it.
let held: LoadedScenario | undefined;
port.on('message', async ({ job, scenario: parcel, preempted }: JobMessage) => {
  if (parcel) {
    held = openParcel(parcel.bytes);
    deepFreeze(held.scenario.messages);
    held.scenario.messages.forEach((message, i) => known.set(message, parcel.counts[i]!));
  }
  try {
    const run = await runJob(job, held!, entries[job.entry]!, env, preempted);
    flushSteps();
    const packed = packRun(run);
    post({ kind: 'run', index: job.index, run: packed }, transferablesOf(packed));
  } catch (error) {
    flushSteps();
    post({ kind: 'failed', index: job.index, message: error instanceof Error ? error.message : String(error) });
  }
});
