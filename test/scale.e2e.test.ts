/**
 * End to end: a matrix split into shards on the built `bench`, merged back, resumed after kill -9,
 * and exported to Parquet; each compared with the same matrix run in one go.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../src/core/run-records.js';
import { ResultStore } from '../src/store/result-store.js';
import { BIN, bench, benchAsync, expectOneLineError, ROOT, tempDir, type CliResult } from './helpers/cli.js';

/**
 * 6 scenarios x 2 strategies at 16k (overflows, restarts, probes) in a few seconds: the synthetic
 * suite, and one recorded trajectory whose provider usage gives the batch a token calibration row.
 */
const MATRIX = [
  '-s', 'raw,masking', '--window', '16k', '--no-report',
  '--scenario', path.join(ROOT, 'scenarios/synthetic'),
  '--scenario', path.join(ROOT, 'scenarios/mini-swe-agent-gemini3pro/psf__requests-1142.json'),
];
const RUNS = 12;

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
  expect(whole).toHaveLength(RUNS);
}, 120_000);

describe('bench run --shard i/n', () => {
  it('runs every job of the matrix exactly once over the shards, with the results of the whole run, in one batch', async () => {
    const shards: RunResult[][] = [];
    for (const i of [1, 2, 3]) {
      const r = bench(['run', ...MATRIX, '--shard', `${i}/3`, '--db', `shard-${i}.duckdb`], cwd);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Shard ${i}/3: \\d+ of the matrix's ${RUNS} runs, batch matrix-[0-9a-f]{16}$`, 'm'));
      shards.push(await runsIn(path.join(cwd, `shard-${i}.duckdb`)));
    }
    expect(shards.every((runs) => runs.length >= 3)).toBe(true); // balanced: 12 runs over 3 shards
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

describe('bench merge', () => {
  it('merges the shards into one batch that reports as the whole matrix, calibration once', async () => {
    const r = bench(['merge', 'shard-1.duckdb', 'shard-2.duckdb', 'shard-3.duckdb', '-o', 'merged/all.duckdb'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Merged 3 file(s) into ${path.join(cwd, 'merged/all.duckdb')}: ${RUNS} runs in 1 batch(es)\n`);
    expect(r.stderr).toBe(''); // shards of one matrix, one build: nothing to warn of
    expect((await runsIn(path.join(cwd, 'merged/all.duckdb'))).map(outcome).sort(byKey)).toEqual(whole);
    const calibrationRows = async (file: string): Promise<number> => {
      const store = await ResultStore.openExisting(path.join(cwd, file));
      try {
        return await store.use('count', async (c) => Number((await c.runAndReadAll('SELECT count(*) FROM calibration')).getRows()[0]![0]));
      } finally {
        await store.close();
      }
    };
    expect(await calibrationRows('shard-1.duckdb')).toBe(1);
    expect(await calibrationRows('merged/all.duckdb')).toBe(1);
    const report = bench(['report', '--db', 'merged/all.duckdb', '-o', 'merged/report.html'], cwd);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(`(${RUNS} runs)`);
  });

  it('refuses runs present in two inputs with one line, and leaves no output', () => {
    // Both files hold batch ci-42's shard 1: the same run ids.
    const r = bench(['merge', 'order-a.duckdb', 'order-b.duckdb', '-o', 'refused.duckdb'], cwd);
    expectOneLineError(r, /^bench: run ci-42\/\S+ is in both order-a\.duckdb and order-b\.duckdb: merging would double it; nothing was written$/m);
    expect(readdirSync(cwd).filter((f) => f.startsWith('refused'))).toEqual([]);
    expectOneLineError(bench(['merge', 'nope.duckdb', '-o', 'refused.duckdb'], cwd), /^bench: nope\.duckdb: no such results database$/m);
    const noOutput = bench(['merge', 'shard-1.duckdb'], cwd);
    expect(noOutput.code).toBe(1);
    expect(noOutput.stderr).toContain("required option '-o, --output <file>' not specified");
  });
});

/** Spawns `bench run ...args`, awaits `meanwhile` once its stderr matches `pattern`, then kills it with SIGKILL. */
async function killAfter(pattern: RegExp, args: readonly string[], meanwhile?: () => Promise<void>): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [BIN, 'run', ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  let matched = false;
  return new Promise((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (matched || !pattern.test(stderr)) return;
      matched = true;
      void (meanwhile?.() ?? Promise.resolve()).then(() => child.kill('SIGKILL'));
    });
    child.on('exit', (_code, signal) => resolve(signal));
  });
}

describe('bench run --resume', () => {
  it('after kill -9, runs only what is missing: every run once, with the results of an uninterrupted run', async () => {
    // At the first run saved: the runs that finish while a save is under way are saved (and printed)
    // together, so a later line can come with the rest of the matrix already saved.
    expect(await killAfter(/\[1\/12\]/, [...MATRIX, '--db', 'killed.duckdb'])).toBe('SIGKILL');
    const survived = await runsIn(path.join(cwd, 'killed.duckdb'));
    expect(survived.length).toBeGreaterThanOrEqual(1);
    expect(survived.length).toBeLessThan(RUNS);

    const resumed = bench(['run', ...MATRIX, '--db', 'killed.duckdb', '--resume'], cwd);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`Resuming batch ${survived[0]!.batchId}: ${survived.length} finished run(s) kept, ${RUNS - survived.length} to run\n`);
    expect(resumed.stderr).toContain(`[${RUNS - survived.length}/${RUNS - survived.length}]`);
    const runs = await runsIn(path.join(cwd, 'killed.duckdb'));
    expect(new Set(runs.map((r) => r.runId)).size).toBe(RUNS);
    expect(new Set(runs.map((r) => r.batchId))).toEqual(new Set([survived[0]!.batchId]));
    expect(runs.map(outcome).sort(byKey)).toEqual(whole);
    for (const run of survived) expect(runs.find((r) => r.runId === run.runId)?.startedAt).toEqual(run.startedAt); // kept, not redone

    // Resuming a finished batch runs nothing and changes nothing.
    const again = bench(['run', ...MATRIX, '--db', 'killed.duckdb', '--resume'], cwd);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`${RUNS} finished run(s) kept, 0 to run`);
    expect((await runsIn(path.join(cwd, 'killed.duckdb'))).map((r) => r.runId).sort()).toEqual(runs.map((r) => r.runId).sort());
  });

  it('a second process on a results file in use gets one line, not a stack trace', async () => {
    const locked: CliResult[] = [];
    // Every strategy over 4 generated scenarios of 1,000 steps (60 long runs, about 10 s on 2 worker
    // threads once the first is saved): still running when the other two processes, started
    // together, try. (The bundled matrix, 180 short runs, once ended first on a busy machine.)
    expect(bench(['scenarios', 'gen', '--count', '4', '--steps', '1000', '-o', 'long/'], cwd).code).toBe(0);
    const signal = await killAfter(/\[1\/\d+\]/, ['-s', 'all', '--scenario', 'long', '--no-report', '--db', 'busy.duckdb'], async () => {
      locked.push(...(await Promise.all([benchAsync(['report', '--db', 'busy.duckdb'], cwd), benchAsync(['merge', 'busy.duckdb', '-o', 'busy-copy.duckdb'], cwd)])));
    });
    expect(signal).toBe('SIGKILL');
    expectOneLineError(locked[0]!, /^bench: busy\.duckdb: another process has it open \(DuckDB allows one writer\); wait for it or use another --db$/m);
    expectOneLineError(locked[1]!, /^bench: busy\.duckdb: another process has it open \(DuckDB allows one writer\); wait for it$/m);
    expect(readdirSync(cwd).filter((f) => f.startsWith('busy-copy'))).toEqual([]);
  });

  it('redoes runs a backend error ended', async () => {
    const db = path.join(cwd, 'errored.duckdb');
    expect(bench(['run', ...MATRIX, '--db', 'errored.duckdb', '--batch-id', 'b-err'], cwd).code).toBe(0);
    const victim = 'b-err/masking/psf__requests-1142';
    const store = await ResultStore.open(db);
    await store.use('mark', async (c) => {
      await c.run(`UPDATE runs SET status = 'error', failure = 'HTTP 500' WHERE run_id = '${victim}'`);
    });
    await store.close();
    const resumed = bench(['run', ...MATRIX, '--db', 'errored.duckdb', '--batch-id', 'b-err', '--resume'], cwd);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`Resuming batch b-err: ${RUNS - 1} finished run(s) kept, 1 to run (1 ended with a backend error: run again)`);
    expect(resumed.stderr).toMatch(/^\[1\/1\] masking x psf__requests-1142: completed$/m);
    expect((await runsIn(db)).map(outcome).sort(byKey)).toEqual(whole);
  });

  it('starts a new batch, saying so in one line, when --db has none of this matrix; refuses one of another matrix', () => {
    const fresh = bench(['run', ...MATRIX, '--db', 'fresh.duckdb', '--resume'], cwd);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(/^bench: --resume: no batch of this matrix in fresh\.duckdb; starting batch \S+$/m);
    const other = bench(['run', ...MATRIX, '--db', 'errored.duckdb', '--batch-id', 'b-err', '--resume', '--window', '32k'], cwd);
    expectOneLineError(other, /^bench: --resume: batch b-err in errored\.duckdb ran another matrix \(scenarios, strategies, parameters, settings or the build of ctxbench differ\)/m);
  });
});

describe('bench export --parquet', () => {
  it('writes every table of the merged shards as Parquet that DuckDB reads back', async () => {
    const r = bench(['export', '--parquet', 'parquet', '--db', 'merged/all.duckdb'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Exported batch matrix-[0-9a-f]{16} of merged\/all\.duckdb to .*parquet:\n/);
    expect(r.stdout).toContain(`  runs.parquet: ${RUNS} row(s)\n`);
    const runs = await runsIn(path.join(cwd, 'merged/all.duckdb'));
    const probes = runs.reduce((n, run) => n + run.probes.length, 0);
    expect(probes).toBeGreaterThan(0);
    expect(r.stdout).toContain(`  probes.parquet: ${probes} row(s)\n`);
    const duckdb = await (await DuckDBInstance.create(':memory:')).connect(); // another tool reading the files
    const read = (await duckdb.runAndReadAll(`SELECT strategy, sum(steps)::INTEGER AS steps FROM read_parquet('${path.join(cwd, 'parquet/runs.parquet')}') GROUP BY strategy ORDER BY strategy`)).getRowObjectsJS();
    duckdb.closeSync();
    const steps = (strategy: string): number => runs.filter((run) => run.config.strategy === strategy).reduce((n, run) => n + run.summary.steps, 0);
    expect(read).toEqual([{ strategy: 'masking', steps: steps('masking') }, { strategy: 'raw', steps: steps('raw') }]);
    expectOneLineError(bench(['export', '--parquet', 'parquet', '--db', 'merged/all.duckdb', '--batch', 'nope'], cwd), /^bench: --batch nope: no such batch in merged\/all\.duckdb$/m);
  });
});
