import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import type { CalibrationRecord, RunResult } from '../core/run-records.js';
import { mockRuns } from '../../test/helpers/mock-runs.js';
import { mergeDatabases } from './merge.js';
import { ResultStore } from './result-store.js';

let dir: string;
let runs: RunResult[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxbench-merge-'));
  runs = await mockRuns('matrix-1');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const calibration: CalibrationRecord = {
  batchId: 'matrix-1', model: 'gpt-4o', encoding: 'o200k_base', factor: 1.17, overhead: 250, source: 'fitted', samples: 12, scenarios: 3,
  before: { meanAbsPctError: 0.14, meanPctError: -0.14 }, after: { meanAbsPctError: 0.02, meanPctError: 0.006 }, outOfSample: { meanAbsPctError: 0.03, meanPctError: 0.01 },
};

/** A results file holding `runs` of batch matrix-1 (as a shard writes it), under `name`. */
async function shardFile(name: string, shardRuns: readonly RunResult[], command = `bench run --shard ${name}`, batchId = 'matrix-1', fingerprint = 'fp'): Promise<string> {
  const file = join(dir, name);
  const store = await ResultStore.open(file);
  await store.saveBatch({ batchId, createdAt: new Date('2025-05-01T10:00:00Z'), command, version: '0.1.0', fingerprint });
  await store.saveCalibration([calibration]);
  for (const run of shardRuns) await store.saveRun(run);
  await store.close();
  return file;
}

async function read<T>(file: string, body: (store: ResultStore) => Promise<T>): Promise<T> {
  const store = await ResultStore.openExisting(file);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

const rejection = async (promise: Promise<unknown>): Promise<CtxbenchError> => {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CtxbenchError);
  return error as CtxbenchError;
};

describe('mergeDatabases', () => {
  it('copies every run with its steps, events and probes; one batch row and one calibration row per shared batch', async () => {
    const a = await shardFile('a.duckdb', runs.slice(0, 1));
    const b = await shardFile('b.duckdb', runs.slice(1));
    const output = join(dir, 'out', 'all.duckdb');
    expect(await mergeDatabases([a, b], output)).toEqual({ sources: [a, b], batches: 1, runs: runs.length, disagreements: [] });
    const merged = await read(output, (store) => store.loadRuns());
    const byId = (x: RunResult, y: RunResult): number => x.runId.localeCompare(y.runId);
    expect([...merged].sort(byId)).toEqual([...runs].sort(byId));
    const tables = await read(output, (store) =>
      store.use('count', async (c) => (await c.runAndReadAll('SELECT (SELECT count(*) FROM batches), (SELECT count(*) FROM calibration), (SELECT command FROM batches)')).getRowsJS()),
    );
    expect(tables).toEqual([[1n, 1n, 'bench run --shard a.duckdb']]);
  });

  it('says when the inputs disagree: shards of two matrices, or one batch id run as two matrices or builds; not over the output it adds to', async () => {
    const a = await shardFile('m1.duckdb', runs.slice(0, 1));
    const b = await shardFile('m2.duckdb', runs.slice(1, 2), 'bench run --shard 2/2', 'matrix-2');
    expect((await mergeDatabases([a, b], join(dir, 'two', 'all.duckdb'))).disagreements).toEqual([
      'the shards are of 2 matrices (matrix-1, matrix-2): shards of one matrix share one batch when they run with the same flags and the same build of ctxbench',
    ]);
    const c = await shardFile('gh-1.duckdb', runs.slice(0, 1), 'bench run --shard 1/2 --batch-id gh-1', 'gh-1');
    const d = await shardFile('gh-2.duckdb', runs.slice(1, 2), 'bench run --shard 2/2 --batch-id gh-1', 'gh-1', 'another');
    expect((await mergeDatabases([c, d], join(dir, 'gh', 'all.duckdb'))).disagreements).toEqual([
      `batch gh-1 of ${c} and of ${d} ran different matrices or builds of ctxbench (their fingerprints differ): flags, scenarios or code changed between the shards`,
    ]);
    // An earlier batch the output holds is its history: shards of one matrix added to it agree.
    const history = join(dir, 'two', 'all.duckdb');
    const e = await shardFile('m3.duckdb', runs.slice(2, 3), 'bench run --shard 1/1', 'matrix-3');
    expect((await mergeDatabases([e], history)).disagreements).toEqual([]);
  });

  it('adds to an existing output, keeping its runs', async () => {
    const output = await shardFile('existing.duckdb', runs.slice(0, 2));
    const more = await shardFile('more.duckdb', runs.slice(2));
    expect(await mergeDatabases([more], output)).toMatchObject({ sources: [output, more], runs: runs.length });
    expect((await read(output, (store) => store.loadRuns())).length).toBe(runs.length);
  });

  it('refuses a run found in two inputs, naming it and both files, and writes nothing', async () => {
    const a = await shardFile('dup-a.duckdb', runs.slice(0, 2));
    const b = await shardFile('dup-b.duckdb', runs.slice(1, 3));
    const output = join(dir, 'dup', 'all.duckdb');
    const error = await rejection(mergeDatabases([a, b], output));
    expect(error.message).toBe(`run ${runs[1]!.runId} is in both ${a} and ${b}: merging would double it; nothing was written`);
    expect(readdirSync(join(dir, 'dup'))).toEqual([]);
  });

  it('refuses a run that the existing output already has, and leaves the output as it was', async () => {
    const output = await shardFile('kept.duckdb', runs.slice(0, 1));
    const again = await shardFile('again.duckdb', runs.slice(0, 1));
    const error = await rejection(mergeDatabases([again], output));
    expect(error.message).toContain(`is in both ${output} and ${again}`);
    expect((await read(output, (store) => store.loadRuns())).map((r) => r.runId)).toEqual([runs[0]!.runId]);
    expect(readdirSync(dir).filter((f) => f.includes('merging'))).toEqual([]);
  });

  it('checks every input: exists, is a DuckDB file, has this ctxbench layout; and refuses a file named twice', async () => {
    const good = await shardFile('good.duckdb', runs.slice(0, 1));
    const output = join(dir, 'never.duckdb');
    expect((await rejection(mergeDatabases([good, join(dir, 'missing.duckdb')], output))).message).toBe(`${join(dir, 'missing.duckdb')}: no such results database`);
    const text = join(dir, 'text.duckdb');
    writeFileSync(text, 'not a database\n'.repeat(300));
    expect((await rejection(mergeDatabases([good, text], output))).message).toBe(`${text}: not a DuckDB database file`);
    // Whatever its name says: DuckDB went by a .json name ('cannot launch in-memory database in read-only mode!').
    const json = join(dir, 'runs.json');
    writeFileSync(json, '{"runs": []}\n');
    expect((await rejection(mergeDatabases([good, json], output))).message).toBe(`${json}: not a DuckDB database file`);
    expect((await rejection(mergeDatabases([good], json))).message).toBe(`${json}: not a DuckDB database file`);
    const older = await shardFile('older.duckdb', []);
    const writer = await ResultStore.open(older); // a reader opens read-only
    await writer.use('alter', (c) => c.run('ALTER TABLE batches DROP COLUMN matrix_fingerprint'));
    await writer.close();
    expect((await rejection(mergeDatabases([good, older], output))).message).toMatch(new RegExp(`^${older.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its batches table has other columns than this ctxbench writes`));
    expect((await rejection(mergeDatabases([good, good], output))).message).toBe(`${good}: named twice; merge each file once`);
    expect(readdirSync(dir).filter((f) => f.startsWith('never'))).toEqual([]);
  });
});
