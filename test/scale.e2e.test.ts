/**
 * End to end: a matrix split into shards on the built `bench`, merged back, resumed after kill -9,
 * and exported to Parquet; each compared with the same matrix run in one go.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../src/runner/types.js';
import { ResultStore } from '../src/store/result-store.js';
import { bench, expectOneLineError, ROOT, tempDir } from './helpers/cli.js';

/** 5 synthetic scenarios x 2 strategies at 16k: overflows, restarts and probes, in a few seconds. */
const MATRIX = ['-s', 'raw,masking', '--scenario', path.join(ROOT, 'scenarios/synthetic'), '--window', '16k', '--no-report'];

/** What a run decided, without the ids and times that differ between invocations. */
const outcome = (r: RunResult) => ({ key: `${r.config.strategy}/${r.config.scenarioId}`, config: r.config, summary: r.summary, steps: r.steps, events: r.events, probes: r.probes });
const byKey = (a: { key: string }, b: { key: string }): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

async function runsIn(file: string, batchId?: string): Promise<RunResult[]> {
  const store = await ResultStore.openExisting(file);
  try {
    return await store.loadRuns(batchId === undefined ? {} : { batchId });
  } finally {
    await store.close();
  }
}

let cwd: string;
let whole: ReturnType<typeof outcome>[];
beforeAll(async () => {
  cwd = tempDir('ctxbench-scale-');
  const r = bench(['run', ...MATRIX, '--db', 'whole.duckdb'], cwd);
  expect(r.code, r.stderr).toBe(0);
  whole = (await runsIn(path.join(cwd, 'whole.duckdb'))).map(outcome).sort(byKey);
  expect(whole).toHaveLength(10);
}, 120_000);

describe('bench run --shard i/n', () => {
  it('runs every job of the matrix exactly once over the shards, with the results of the whole run, in one batch', async () => {
    const shards: RunResult[][] = [];
    for (const i of [1, 2, 3]) {
      const r = bench(['run', ...MATRIX, '--shard', `${i}/3`, '--db', `shard-${i}.duckdb`], cwd);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Shard ${i}/3: \\d+ of the matrix's 10 runs, batch matrix-[0-9a-f]{16}$`, 'm'));
      shards.push(await runsIn(path.join(cwd, `shard-${i}.duckdb`)));
    }
    expect(shards.every((runs) => runs.length >= 3)).toBe(true); // balanced: 10 runs over 3 shards
    expect(shards.flat().map(outcome).sort(byKey)).toEqual(whole);
    expect(new Set(shards.flat().map((r) => r.batchId)).size).toBe(1);
  });

  it('splits alike whatever order the scenarios come in, and takes --batch-id', async () => {
    const files = ['synthetic-s40-seed7-o600-x6000-f20-mclaude-sonnet-4.json', 'synthetic-s60-seed1-o400-f10.json'];
    const keys = async (order: string[], db: string): Promise<string[]> => {
      const scenarios = order.flatMap((f) => ['--scenario', path.join(ROOT, 'scenarios/synthetic', f)]);
      const r = bench(['run', '-s', 'raw,masking', ...scenarios, '--window', '16k', '--no-report', '--shard', '1/2', '--batch-id', 'ci-42', '--db', db], cwd);
      expect(r.code, r.stderr).toBe(0);
      const runs = await runsIn(path.join(cwd, db));
      expect(runs.every((run) => run.batchId === 'ci-42')).toBe(true);
      return runs.map((run) => run.runId).sort();
    };
    expect(await keys(files, 'order-a.duckdb')).toEqual(await keys([...files].reverse(), 'order-b.duckdb'));
  });

  it('refuses a bad --shard or --batch-id with one line', () => {
    for (const bad of ['0/3', '4/3', 'x/y']) expectOneLineError(bench(['run', '--shard', bad], cwd), new RegExp(`--shard ${bad}: expected i/n with 1 <= i <= n`));
    expectOneLineError(bench(['run', '--batch-id', 'a b'], cwd), /--batch-id a b: expected letters, digits/);
  });

  it('refuses to run a shard twice into one batch of one file', () => {
    const again = bench(['run', ...MATRIX, '--shard', '1/3', '--db', 'shard-1.duckdb'], cwd);
    expectOneLineError(again, /--db shard-1\.duckdb: batch matrix-[0-9a-f]{16} already has \d+ of these \d+ runs; pass --resume/);
  });
});
