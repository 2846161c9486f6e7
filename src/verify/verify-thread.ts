/**
 * `bench verify` with the strategy on a worker thread and the main thread as its watchdog. A hook in
 * a synchronous endless loop stops its own thread's timers, so the guard's timeout never fires there;
 * the main thread reads the hook clock and, past --strategy-timeout, stops the worker and reports the
 * property it was checking as broken, the ones after it as not checked.
 */
import type { Params } from '../core/params.js';
import type { Encoding } from '../core/tokens.js';
import { moduleExtension, startWorker } from '../runner/start-worker.js';
import type { StrategyFile } from '../runner/strategy-file.js';
import { createHookClock, overdueHook, timeoutFailure, type HookClock } from '../runner/strategy-guard.js';
import { CtxbenchError, errorLine } from '../core/errors.js';
import { PROPERTIES, type Property } from './properties.js';
import type { PropertyOutcome } from './verify.js';

/** What the worker is given: plain values (the strategy by name, or its file to load again). */
export interface VerifySetup {
  /** A built-in strategy's name (a preset's base strategy: its settings are in `params`). */
  readonly strategy: string;
  readonly file?: StrategyFile | undefined;
  readonly params: Params;
  readonly runs: number;
  readonly seed: number;
  readonly strategyTimeout: number;
  readonly encoding: Encoding;
  readonly hookClock: HookClock;
}

export type VerifyWorkerMessage =
  | { readonly kind: 'property'; readonly index: number }
  | { readonly kind: 'outcome'; readonly index: number; readonly cases: number; readonly failure: PropertyOutcome['failure'] };

/** The watchdog lets the guard's own timer (an async hook that never settles) answer first. */
const WATCHDOG_GRACE_MS = 1000;

/** Checks every property on a worker thread; `onProperty` before each, as verifyStrategy calls it. */
export function verifyOnThread(setup: Omit<VerifySetup, 'hookClock'>, onProperty?: (property: Property, index: number, total: number) => void): Promise<PropertyOutcome[]> {
  const hookClock = createHookClock();
  const timeoutMs = 1000 * setup.strategyTimeout;
  const worker = startWorker(new URL(`./verify-worker.${moduleExtension(import.meta.url)}`, import.meta.url), { ...setup, hookClock } satisfies VerifySetup);
  const outcomes: PropertyOutcome[] = [];
  let checking = 0;
  return new Promise((resolve, reject) => {
    const finish = (settle: () => void): void => {
      clearInterval(watchdog);
      void worker.terminate();
      settle();
    };
    const watchdog = setInterval(() => {
      const overdue = overdueHook(hookClock, timeoutMs + WATCHDOG_GRACE_MS);
      if (!overdue) return;
      const rule = `${timeoutFailure(setup.strategy, overdue.hook, overdue.step, timeoutMs)}; its thread was stopped (a synchronous endless loop?)`;
      outcomes.push({ property: PROPERTIES[checking]!, cases: 0, failure: { broken: { rule, step: overdue.step }, shrinks: 0 } });
      for (const property of PROPERTIES.slice(checking + 1)) outcomes.push({ property, cases: 0, notChecked: true });
      finish(() => resolve(outcomes));
    }, Math.min(1000, timeoutMs / 2));
    worker.on('message', (message: VerifyWorkerMessage) => {
      if (message.kind === 'property') {
        checking = message.index;
        onProperty?.(PROPERTIES[message.index]!, message.index, PROPERTIES.length);
        return;
      }
      outcomes.push({ property: PROPERTIES[message.index]!, cases: message.cases, failure: message.failure });
      if (outcomes.length === PROPERTIES.length) finish(() => resolve(outcomes));
    });
    worker.on('error', (error) => finish(() => reject(new CtxbenchError('WORKER_FAILED', `bench verify's worker thread failed: ${errorLine(error)}`))));
    worker.on('exit', (code) => outcomes.length < PROPERTIES.length && finish(() => reject(new CtxbenchError('WORKER_FAILED', `bench verify's worker thread exited with code ${code}`))));
  });
}
