/**
 * What a run of a matrix must do in a batch that may already hold some of its runs (`--resume`, or
 * shards writing one batch): keep the finished runs, redo the ones a backend failure ended, run the
 * rest. Pure: the caller reads the batch and deletes the runs to redo.
 */
import type { RunStatus } from '../core/run-records.js';

export interface BatchPlan<J> {
  /** Jobs with no run in the batch yet, and jobs whose run is redone. */
  readonly toRun: readonly J[];
  /** Run ids of finished runs that stay. */
  readonly kept: readonly string[];
  /** Run ids of runs that ended with status `error` (a backend failure, not the strategy's doing): deleted and run again. */
  readonly redo: readonly string[];
}

export function planBatch<J extends { readonly runId: string }>(jobs: readonly J[], existing: ReadonlyMap<string, RunStatus>): BatchPlan<J> {
  const toRun: J[] = [];
  const kept: string[] = [];
  const redo: string[] = [];
  for (const job of jobs) {
    const status = existing.get(job.runId);
    if (status === undefined || status === 'error') toRun.push(job);
    if (status === 'error') redo.push(job.runId);
    else if (status !== undefined) kept.push(job.runId);
  }
  return { toRun, kept, redo };
}
