/**
 * A matrix worker thread (see worker-pool.ts): builds its own token counter and mock backend from the
 * plain setup it was given, then runs whole jobs as the main thread hands them over and posts each
 * RunResult back. It never writes the database.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createTokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { getStrategy } from '../strategies/index.js';
import { reloadStrategyFile } from './strategy-file.js';
import { countersFor, runJob, tokenizeAhead, type JobEnv } from './run-job.js';
import type { JobMessage, WorkerMessage, WorkerSetup } from './worker-protocol.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const post = (message: WorkerMessage): void => port.postMessage(message);

const counter = await createTokenCounter(setup.encoding);
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
  onStep: setup.reportSteps ? (step, total, promptTokens) => post({ kind: 'step', step, total, promptTokens }) : undefined,
};

/** Structured clone does not keep frozenness: freeze the copy again, so a strategy that edits a message in place fails here as it would in the main thread. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.values(value).forEach(deepFreeze);
  Object.freeze(value);
}

// One scenario held at a time: the main thread sends the next one when the worker moves on to it.
let held: LoadedScenario | undefined;
port.on('message', async ({ job, scenario, preempted }: JobMessage) => {
  if (scenario) {
    deepFreeze(scenario.scenario.messages);
    tokenizeAhead([scenario], counter);
    held = scenario;
  }
  try {
    post({ kind: 'run', index: job.index, run: await runJob(job, held!, entries[job.entry]!, env, preempted) });
  } catch (error) {
    post({ kind: 'failed', index: job.index, message: error instanceof Error ? error.message : String(error) });
  }
});
