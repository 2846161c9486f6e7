import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import { jobsOfShard, parseShard, type ShardJob } from './shard.js';

/** Distinct keys with arbitrary weights (agent steps). */
const jobsArb = fc.uniqueArray(fc.record({ key: fc.string({ minLength: 1, maxLength: 12 }), weight: fc.nat(5000) }), {
  selector: (job) => job.key,
  maxLength: 60,
});
const splitArb = fc.integer({ min: 1, max: 9 }).chain((count) => fc.tuple(jobsArb, fc.constant(count)));
const shardsOf = (jobs: readonly ShardJob[], count: number): ShardJob[][] =>
  Array.from({ length: count }, (_, i) => jobsOfShard(jobs, { index: i + 1, count }));
const keys = (jobs: readonly ShardJob[]): string[] => jobs.map((job) => job.key).sort();

describe('parseShard', () => {
  it('reads i/n, 1-based', () => {
    expect(parseShard('1/3')).toEqual({ index: 1, count: 3 });
    expect(parseShard('3/3')).toEqual({ index: 3, count: 3 });
    expect(parseShard(' 2 / 5 ')).toEqual({ index: 2, count: 5 });
  });

  it.each(['0/3', '4/3', 'x/y', '1/0', '1', '1/3/2', '-1/3', '1.5/3', ''])('refuses %j with one line naming --shard', (value) => {
    expect(() => parseShard(value)).toThrow(CtxbenchError);
    expect(() => parseShard(value)).toThrow(`--shard ${value}: expected i/n with 1 <= i <= n, like 1/3`);
  });
});

describe('jobsOfShard', () => {
  it('runs every job exactly once over the n shards (union = all, pairwise disjoint)', () => {
    fc.assert(
      fc.property(splitArb, ([jobs, count]) => {
        const shards = shardsOf(jobs, count);
        expect(keys(shards.flat())).toEqual(keys(jobs)); // the union, and no key twice: disjoint
      }),
    );
  });

  it('depends on the set of jobs, not on their order (every machine computes the same split)', () => {
    fc.assert(
      fc.property(
        splitArb.chain(([jobs, count]) => fc.tuple(fc.constant(jobs), fc.shuffledSubarray(jobs, { minLength: jobs.length }), fc.constant(count))),
        ([jobs, shuffled, count]) => {
          expect(shardsOf(shuffled, count).map(keys)).toEqual(shardsOf(jobs, count).map(keys));
        },
      ),
    );
  });

  it('keeps each shard in the order the jobs came in', () => {
    fc.assert(
      fc.property(splitArb, ([jobs, count]) => {
        for (const shard of shardsOf(jobs, count)) {
          const positions = shard.map((job) => jobs.indexOf(job));
          expect(positions).toEqual([...positions].sort((a, b) => a - b));
        }
      }),
    );
  });

  it('balances the work: shard loads differ by at most the heaviest job', () => {
    fc.assert(
      fc.property(splitArb, ([jobs, count]) => {
        const loads = shardsOf(jobs, count).map((shard) => shard.reduce((sum, job) => sum + job.weight, 0));
        const heaviest = Math.max(0, ...jobs.map((job) => job.weight));
        expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(heaviest);
      }),
    );
  });

  it('gives equal jobs out round-robin (24 runs over 3 shards: 8 each)', () => {
    const jobs = Array.from({ length: 24 }, (_, i) => ({ key: `masking/s${String(i).padStart(2, '0')}`, weight: 10 }));
    expect(shardsOf(jobs, 3).map((shard) => shard.length)).toEqual([8, 8, 8]);
    expect(keys(jobsOfShard(jobs, { index: 1, count: 3 })).slice(0, 3)).toEqual(['masking/s00', 'masking/s03', 'masking/s06']);
  });

  it('leaves a shard empty when there are fewer jobs than shards', () => {
    const jobs = [{ key: 'a', weight: 1 }];
    expect(shardsOf(jobs, 3).map((shard) => shard.length)).toEqual([1, 0, 0]);
  });

  it('refuses duplicate keys (two jobs would share one run id)', () => {
    expect(() => jobsOfShard([{ key: 'a', weight: 1 }, { key: 'a', weight: 2 }], { index: 1, count: 2 })).toThrow('job keys must be unique');
  });
});
