/**
 * `bench verify`'s worker thread (verify-thread.ts): checks each property in turn and posts its
 * outcome as soon as it has it, publishing every hook call on the shared clock for the main thread's
 * watchdog.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createTokenCounter } from '../core/tokens.js';
import { getStrategy } from '../strategies/index.js';
import { reloadStrategyFile } from '../runner/strategy-file.js';
import { PROPERTIES } from './properties.js';
import { verifyStrategy } from './verify.js';
import type { VerifySetup, VerifyWorkerMessage } from './verify-thread.js';

const setup = workerData as VerifySetup;
const post = (message: VerifyWorkerMessage): void => parentPort!.postMessage(message);

const counter = await createTokenCounter(setup.encoding);
const strategy = setup.file ? await reloadStrategyFile(setup.file) : getStrategy(setup.strategy);
for (const [index, property] of PROPERTIES.entries()) {
  post({ kind: 'property', index });
  const [outcome] = await verifyStrategy({ ...setup, strategy, counter, properties: [property] });
  post({ kind: 'outcome', index, cases: outcome!.cases, failure: outcome!.failure });
}
