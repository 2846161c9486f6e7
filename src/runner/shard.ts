/**
 * Splitting a matrix into n shards that n machines run independently (a CI matrix). The split
 * depends only on the set of jobs (their keys and weights), never on the order scenarios were loaded
 * in or on the machine, so the n shards together run every job exactly once.
 */
import { CtxbenchError } from '../core/errors.js';

/** Shard `index` of `count`, 1-based as users write it (`--shard 2/3`). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export interface ShardJob {
  /** Unique within the matrix and the same on every machine (strategy label + scenario id). */
  readonly key: string;
  /** Expected work (agent steps), to balance the shards. */
  readonly weight: number;
}

/** Parses `--shard i/n`: whole numbers with 1 <= i <= n. */
export function parseShard(value: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new CtxbenchError('OPTION_INVALID', `--shard ${value}: expected i/n with 1 <= i <= n, like 1/3`);
  }
  return { index, count };
}

/**
 * The jobs of `shard`, in their input order. Heaviest job first onto the least loaded shard (ties by
 * key, then the lowest shard), so shards get about the same number of steps, not just of runs.
 */
export function jobsOfShard<J extends ShardJob>(jobs: readonly J[], shard: Shard): J[] {
  if (new Set(jobs.map((job) => job.key)).size !== jobs.length) throw new Error('jobsOfShard: job keys must be unique');
  const byWeight = [...jobs].sort((a, b) => b.weight - a.weight || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const loads = new Array<number>(shard.count).fill(0);
  const mine = new Set<string>();
  for (const job of byWeight) {
    const lightest = loads.indexOf(Math.min(...loads));
    loads[lightest]! += job.weight;
    if (lightest === shard.index - 1) mine.add(job.key);
  }
  return jobs.filter((job) => mine.has(job.key));
}
