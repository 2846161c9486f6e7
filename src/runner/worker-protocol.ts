/**
 * The messages between the main thread and the matrix's worker threads. Plain data only: everything
 * here is copied by structured clone (Dates survive, functions and frozenness do not), except a run's
 * packed columns, which are moved.
 */
import type { Encoding } from '../core/tokens.js';
import type { MockOptions } from '../llm/mock.js';
import type { Job } from './job-plan.js';
import type { ReactiveReplay } from '../core/run-records.js';
import type { PackedRun } from '../core/packed-run.js';
import type { ScenarioParcel } from './scenario-parcel.js';
import type { Params } from '../core/params.js';
import type { StrategyFile } from './strategy-file.js';
import type { HookClock } from './strategy-guard.js';

/** A worker's `workerData`: what it needs to build its own counter, mock and strategies. */
export interface WorkerSetup {
  readonly encoding: Encoding;
  /** The main thread's rank table of a BPE encoding (rank-table.ts), shared, not copied. */
  readonly ranks?: SharedArrayBuffer | undefined;
  readonly mock: MockOptions;
  readonly batchId: string;
  readonly backendOptions?: Params | undefined;
  readonly priceModel?: string | undefined;
  /**
   * The matrix's entries, by strategy name (definitions hold functions: the worker looks them up), an
   * outside strategy with its file (the worker loads it again, and refuses it if its source changed).
   */
  readonly entries: readonly {
    readonly strategy: string;
    readonly preset?: string | undefined;
    readonly params: Params;
    readonly variant?: string | undefined;
    readonly file?: StrategyFile | undefined;
  }[];
  /** Seconds a strategy's hook call may take (--strategy-timeout). */
  readonly strategyTimeout?: number | undefined;
  /** This worker's clock of hook calls (each worker has its own), watched by the main thread. */
  readonly hookClock?: HookClock | undefined;
  /** Ask the mock each probe question (--probes ask) instead of judging probes on the context. */
  readonly askProbes?: boolean | undefined;
  /** Reactive replay's settings; undefined: teacher forcing. */
  readonly replay?: ReactiveReplay | undefined;
  /** Post a message per replayed step (for a progress bar). */
  readonly reportSteps: boolean;
}

/**
 * A job to run; `scenario` comes along when the worker does not hold the job's scenario yet: its
 * parcel (scenario-parcel.ts), the scenario serialized and the main thread's token count of each of
 * its messages, so no worker tokenizes a scenario again.
 */
export interface JobMessage {
  readonly job: Job;
  readonly scenario?: ScenarioParcel | undefined;
  /** The job failed on a worker the watchdog stopped: record its run as ended with this failure. */
  readonly preempted?: string | undefined;
}

export type WorkerMessage =
  /** Steps replayed since the last such message: (step, total, promptTokens) triples, flat. */
  | { readonly kind: 'steps'; readonly steps: readonly number[] }
  /** A finished run, its records packed (packed-run.ts: their columns are moved, not copied). */
  | { readonly kind: 'run'; readonly index: number; readonly run: PackedRun }
  /** The replay threw (a bug): the message of what it threw. */
  | { readonly kind: 'failed'; readonly index: number; readonly message: string };
