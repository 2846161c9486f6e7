/**
 * The guard around a strategy's hooks (create, beforeRequest, afterResponse) in a replay: a hook that
 * throws, returns what is not a plan of well-formed messages, or does not answer within the timeout
 * (--strategy-timeout) ends the run with status `error` and one line naming the strategy, the hook and
 * the step; the rest of the matrix goes on. Built-in strategies pass through it like outside ones.
 *
 * An async hook that never settles is timed out here. A synchronous infinite loop stops this thread's
 * timers too: each hook call is published on a clock shared with the main thread, whose watchdog
 * (worker-pool.ts) terminates a worker stuck past the timeout. Time a hook spends waiting on the
 * auxiliary LLM is the backend's (it has its own timeout), not the strategy's: the clock pauses then.
 */
import { errorLine } from '../core/errors.js';
import { createPlanChecker, isObject } from '../core/plan-check.js';
import type { AuxiliaryLlm, RequestPlan, ResponsePlan, StrategyRun } from '../core/strategy.js';
import { RunEnded } from './run-log.js';

export const HOOKS = ['create', 'beforeRequest', 'afterResponse'] as const;
export type Hook = (typeof HOOKS)[number];

/** --strategy-timeout's default, in seconds. */
export const DEFAULT_STRATEGY_TIMEOUT_SECONDS = 60;

/**
 * A hook call in progress, readable from another thread: [started at (ms since the epoch, minus the
 * time paused; 0: no call), step, index in HOOKS].
 */
export type HookClock = Float64Array;

export const createHookClock = (): HookClock => new Float64Array(new SharedArrayBuffer(3 * Float64Array.BYTES_PER_ELEMENT));

/** The hook call `clock` shows running for longer than `timeoutMs`, if one is. */
export function overdueHook(clock: HookClock, timeoutMs: number, now = Date.now()): { hook: Hook; step: number } | undefined {
  const started = clock[0]!;
  return started > 0 && now - started > timeoutMs ? { hook: HOOKS[clock[2]!]!, step: clock[1]! } : undefined;
}

/** The failure of a run whose hook did not answer in time (the guard's and the watchdog's alike). */
export const timeoutFailure = (strategy: string, hook: Hook, step: number, timeoutMs: number): string =>
  hookFailure(strategy, hook, step, `no answer within ${timeoutMs / 1000} s (--strategy-timeout)`);

/** Whether a run's failure is timeoutFailure's. */
export const isTimeoutFailure = (failure: string): boolean => failure.endsWith('(--strategy-timeout)');

/** "strategy mine, beforeRequest at step 3: threw: boom": the one line a failed hook ends its run with. */
const hookFailure = (strategy: string, hook: Hook, step: number, problem: string): string => `strategy ${strategy}, ${hook} at step ${step}: ${problem}`;

export interface GuardOptions {
  readonly strategy: string;
  readonly timeoutMs: number;
  /** Where hook calls are published for the main thread's watchdog (worker threads only). */
  readonly clock?: HookClock | undefined;
  /** The run already failed (the watchdog stopped the worker it ran on): create() ends it with this. */
  readonly preempted?: string | undefined;
}

export interface StrategyGuard {
  create(call: () => StrategyRun): Promise<StrategyRun>;
  beforeRequest(step: number, call: () => RequestPlan | Promise<RequestPlan>): Promise<RequestPlan>;
  afterResponse(step: number, call: () => ResponsePlan | undefined | Promise<ResponsePlan | undefined>): Promise<ResponsePlan | undefined>;
  /** `llm` with the hook's clock stopped while a call is in flight. */
  llm(llm: AuxiliaryLlm): AuxiliaryLlm;
}

export function createStrategyGuard({ strategy, timeoutMs, clock, preempted }: GuardOptions): StrategyGuard {
  let started = 0; // when the hook call (or its last resumption) began
  let spent = 0; // its time before the last pause
  let waiting = 0; // auxiliary calls in flight
  let timer: ReturnType<typeof setTimeout> | undefined;
  let expire: (() => void) | undefined; // rejects the hook call in progress, when it is async
  const planProblem = createPlanChecker();

  const publish = (value: number): void => {
    if (clock) clock[0] = value;
  };
  const arm = (): void => {
    if (expire && waiting === 0) timer = setTimeout(expire, Math.max(0, timeoutMs - spent));
  };
  const pause = (): void => {
    spent += Date.now() - started;
    clearTimeout(timer);
    publish(0);
  };
  const resume = (): void => {
    started = Date.now();
    publish(started - spent);
    arm();
  };

  async function call<T>(hook: Hook, step: number, run: () => T | Promise<T>, problem: (value: T) => string | undefined): Promise<T> {
    const fail = (problem: string): RunEnded => new RunEnded('error', hookFailure(strategy, hook, step, problem));
    [spent, waiting] = [0, 0];
    if (clock) [clock[1], clock[2]] = [step, HOOKS.indexOf(hook)];
    resume();
    let value: T;
    try {
      const result = run();
      value = isThenable(result) ? await new Promise<T>((resolve, reject) => {
        expire = () => reject(new RunEnded('error', timeoutFailure(strategy, hook, step, timeoutMs)));
        arm();
        result.then(resolve, reject);
      }) : result;
    } catch (error) {
      if (error instanceof RunEnded) throw error;
      throw fail(`threw: ${errorLine(error)}`);
    } finally {
      clearTimeout(timer);
      expire = undefined;
      publish(0);
    }
    const bad = problem(value);
    if (bad !== undefined) throw fail(bad);
    return value;
  }

  return {
    create: (run) =>
      call('create', 0, () => {
        if (preempted !== undefined) throw new RunEnded('error', preempted);
        return run();
      }, (made) => (isObject(made) && typeof made.beforeRequest === 'function' && ['undefined', 'function'].includes(typeof made.afterResponse) ? undefined : 'returned no { beforeRequest } run')),
    beforeRequest: (step, run) => call('beforeRequest', step, run, (plan) => planProblem(plan, false)),
    afterResponse: (step, run) => call('afterResponse', step, run, (plan) => planProblem(plan, true)),
    llm: (llm) => async (request) => {
      if (waiting++ === 0) pause();
      try {
        return await llm(request);
      } finally {
        if (--waiting === 0) resume();
      }
    },
  };
}

const isThenable = <T>(value: T | Promise<T>): value is Promise<T> => isObject(value) && typeof (value as { then?: unknown }).then === 'function';

