import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import type { BatchInfo, RunResult } from '../core/run-records.js';
import { acquireInstance, releaseInstance } from './instances.js';
import { LOAD_RUNS, ResultStore } from './result-store.js';
import { SCHEMA_VERSION } from './schema.js';

let dir: string;
let counter = 0;
const dbFile = (): string => join(dir, `results-${++counter}.duckdb`);
const open: ResultStore[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxbench-store-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function openStore(file: string): Promise<ResultStore> {
  const store = await ResultStore.open(file);
  open.push(store);
  return store;
}

const batch = (batchId: string, createdAt = new Date('2025-03-01T10:00:00.123Z')): BatchInfo => ({
  batchId,
  createdAt,
  command: 'bench run scenarios/ --strategy masking',
  version: '0.1.0',
});

function makeRun(runId: string, batchId: string, overrides: Partial<RunResult> = {}): RunResult {
  return {
    runId,
    batchId,
    config: {
      scenarioId: 'swe-1',
      scenarioTitle: 'Fix the parser',
      scenarioFile: 'scenarios/swe-1.json',
      sourceFormat: 'openhands',
      outcome: 'resolved',
      strategy: 'jetbrains-masking',
      baseStrategy: 'masking',
      params: { keep: 3, aggressive: true, mode: 'tail' },
      backend: 'mock',
      backendOptions: { recall: 0.8 },
      priceModel: 'gpt-4o',
      calibrationFactor: 1.16,
      scenarioDigest: 'a'.repeat(64),
      model: 'gpt-4o',
      window: 128_000,
      encoding: 'o200k_base',
      thresholds: [{ label: 'mask', fraction: 0.75 }],
    },
    summary: {
      status: 'overflow',
      failedStep: 2,
      failure: 'context 130000 > window 128000',
      steps: 2,
      totalSteps: 3,
      sessions: 1,
      restarts: 0,
      inputTokens: 3_000_000_000, // beyond INTEGER: must come back as a plain number
      outputTokens: 420,
      llmCalls: 3,
      overheadTokens: 1_234,
      meanContextPct: 0.5,
      cachedInputTokens: 0,
      probes: { total: 2, verbatim: 1, summary: 0, recoverable: 0, lost: 1 },
      referenceRecall: { present: 7, total: 9 },
      costUsd: 12.5,
      peakContextTokens: 130_000,
      peakContextPct: 1.015625,
      usageComparison: { meanAbsPctError: 0.031, meanPctError: -0.012, comparedSteps: 2 },
    },
    steps: [
      {
        step: 1,
        session: 0,
        purpose: 'agent',
        promptTokens: 1200,
        completionTokens: 200,
        contextPct: 0.009375,
        messageCount: 3,
        usageSource: 'local',
        recordedPromptTokens: 1234,
        action: '',
      },
      {
        step: 2,
        session: 0,
        purpose: 'agent',
        promptTokens: 130_000,
        completionTokens: 220,
        contextPct: 1.015625,
        messageCount: 9,
        usageSource: 'local',
        action: 'masked,warning',
      },
    ],
    events: [
      { step: 2, session: 0, kind: 'masked', messageId: 'm4', detail: 'tool output', tokensBefore: 900, tokensAfter: 12 },
      { step: 2, session: 0, kind: 'warning', detail: 'near window' },
      // What a strategy wrote and which messages it replaced, with markup and a line separator in it.
      { step: 2, session: 0, kind: 'summarized', messageId: 's2', messageIds: ['m1', 'm"2'], detail: '2 messages summarized', text: 'Goal: <b>fix</b>\u2028done' },
      { step: 2, session: 0, kind: 'overflow', detail: '130000 > 128000', tokensBefore: 130_000 },
    ],
    probes: [
      { probeId: 'p1', step: 1, answer: 'retry_budget_ms=7341', how: 'verbatim' },
      { probeId: 'p2', step: 2, answer: 'deadbeef42', how: 'recoverable', file: '/tool_outputs/x.txt' },
    ],
    startedAt: new Date('2025-03-01T10:00:01.250Z'),
    finishedAt: new Date('2025-03-01T10:00:03.500Z'),
    ...overrides,
  };
}

async function storeError(promise: Promise<unknown>): Promise<CtxbenchError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CtxbenchError);
  return error as CtxbenchError;
}

/** Runs SQL on a database file directly, as another tool would. */
async function rawSql(file: string, sql: string): Promise<unknown[]> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowsJS();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('ResultStore round trip', () => {
  it('reads back a run exactly as saved, across a reopen', async () => {
    const file = join(dir, 'nested', 'deeper', 'results.duckdb');
    const store = await ResultStore.open(file);
    const run = makeRun('r1', 'b1');
    await store.saveBatch(batch('b1'));
    await store.saveRun(run);
    await store.close();

    const reader = await ResultStore.openExisting(file);
    open.push(reader);
    const [loaded] = await reader.loadRuns();
    expect(loaded).toEqual(run);
    expect(loaded?.startedAt).toBeInstanceOf(Date);
    expect(typeof loaded?.summary.inputTokens).toBe('number');
    expect(() => JSON.stringify(loaded)).not.toThrow();
    expect(await reader.latestBatchId()).toBe('b1');
  });

  it('returns absent optional fields as undefined, not null or 0', async () => {
    const store = await openStore(dbFile());
    const base = makeRun('r1', 'b1');
    const run = makeRun('r1', 'b1', {
      config: { ...base.config, outcome: undefined },
      summary: { ...base.summary, status: 'completed', failedStep: undefined, failure: undefined, usageComparison: undefined },
      steps: [{ ...base.steps[0]!, recordedPromptTokens: undefined }],
      events: [{ step: 1, session: 0, kind: 'warning', detail: '' }],
    });
    await store.saveRun(run);
    const [loaded] = await store.loadRuns();
    expect(loaded).toEqual(run);
    expect(loaded?.config.outcome).toBeUndefined();
    expect(loaded?.summary.failedStep).toBeUndefined();
    expect(loaded?.summary.failure).toBeUndefined();
    expect(loaded?.summary.usageComparison).toBeUndefined();
    expect(loaded?.steps[0]?.recordedPromptTokens).toBeUndefined();
    expect(loaded?.events[0]).toEqual({ step: 1, session: 0, kind: 'warning', detail: '' });
    expect(loaded?.events[0]?.messageId).toBeUndefined();
    expect(loaded?.events[0]?.tokensBefore).toBeUndefined();
  });

  it('stores a live run whose cache hits are unknown as NULL, and a truncated run as such (regression: NOT NULL)', async () => {
    const file = dbFile();
    const store = await openStore(file);
    const base = makeRun('r1', 'b1');
    const run = makeRun('r1', 'b1', { summary: { ...base.summary, status: 'truncated', failedStep: 1, cachedInputTokens: undefined } });
    await store.saveRun(run);
    const [loaded] = await store.loadRuns();
    expect(loaded).toEqual(run);
    expect(loaded?.summary.cachedInputTokens).toBeUndefined();
  });

  it("keeps the model's answers to probe questions, an empty reply included", async () => {
    const store = await openStore(dbFile());
    const base = makeRun('r1', 'b1');
    const run = makeRun('r1', 'b1', {
      summary: { ...base.summary, probes: { ...base.summary.probes, answered: 1 } },
      probes: [
        { probeId: 'p1', step: 1, answer: 'retry_budget_ms=7341', how: 'verbatim', reply: 'It is retry_budget_ms=7341.', answered: true },
        { probeId: 'p2', step: 2, answer: 'deadbeef42', how: 'recoverable', file: '/tool_outputs/x.txt', reply: '', answered: false },
      ],
    });
    await store.saveRun(run);
    const [loaded] = await store.loadRuns();
    expect(loaded).toEqual(run);
    expect(loaded?.probes[1]?.reply).toBe('');
    expect(loaded?.summary.probes.answered).toBe(1);
  });

  it('lists runs in matrix order, whatever order they finished and were saved in', async () => {
    const store = await openStore(dbFile());
    await store.saveBatch(batch('b1'));
    const runs = [2, 0, 1].map((i) => makeRun(`r${i}`, 'b1', { matrixIndex: i, startedAt: new Date(Date.UTC(2025, 2, 1, 10, 0, 10 - i)) }));
    for (const run of runs) await store.saveRun(run);
    expect((await store.loadRuns()).map((r) => [r.runId, r.matrixIndex])).toEqual([['r0', 0], ['r1', 1], ['r2', 2]]);
  });

  it(`reads more runs than it reads at a time (${LOAD_RUNS}) each with its own steps, events and probes, in matrix order`, async () => {
    const store = await openStore(dbFile());
    await store.saveBatch(batch('b1'));
    const base = makeRun('r', 'b1');
    const count = 2 * LOAD_RUNS + 5;
    const runs = Array.from({ length: count }, (_, i) =>
      makeRun(`r${String(count - i).padStart(3, '0')}`, 'b1', {
        matrixIndex: i,
        steps: base.steps.map((s) => ({ ...s, promptTokens: s.promptTokens + i })),
        events: base.events.slice(0, 1 + (i % base.events.length)),
        probes: base.probes.slice(0, i % 3),
      }),
    );
    await Promise.all([...runs].reverse().map((run) => store.saveRun(run))); // written together
    expect(await store.loadRuns()).toEqual(runs);
  });

  it('orders steps by step and keeps the recorded order of events within a step', async () => {
    const store = await openStore(dbFile());
    const base = makeRun('r1', 'b1');
    const run = makeRun('r1', 'b1', { steps: [base.steps[1]!, base.steps[0]!] });
    await store.saveRun(run);
    const [loaded] = await store.loadRuns();
    expect(loaded?.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(loaded?.events.map((e) => e.kind)).toEqual(['masked', 'warning', 'summarized', 'overflow']);
  });

  it('keeps batches apart and filters runs by batch and run id', async () => {
    const store = await openStore(dbFile());
    await store.saveBatch(batch('b1', new Date('2025-03-01T10:00:00Z')));
    await store.saveRun(makeRun('r1', 'b1'));
    await store.saveRun(makeRun('r2', 'b1', { startedAt: new Date('2025-03-01T10:00:05Z') }));
    await store.saveBatch(batch('b2', new Date('2025-03-02T10:00:00Z')));
    await store.saveRun(makeRun('r3', 'b2'));

    expect(await store.latestBatchId()).toBe('b2');
    // A later batch that saved no run (it failed before its first) is not the readers' latest.
    await store.saveBatch(batch('b3', new Date('2025-03-03T10:00:00Z')));
    expect(await store.latestBatchId()).toBe('b2');
    expect(await store.batchNamed(undefined)).toBe('b2');
    const ids = async (filter?: Parameters<ResultStore['loadRuns']>[0]) =>
      (await store.loadRuns(filter)).map((r) => r.runId);
    expect(await ids()).toEqual(['r1', 'r2', 'r3']); // batch by batch (oldest first), then in start order (no matrix position here)
    expect(await ids({ batchId: 'b1' })).toEqual(['r1', 'r2']);
    expect(await ids({ runIds: ['r3', 'r1'] })).toEqual(['r1', 'r3']);
    expect(await ids({ batchId: 'b1', runIds: ['r3', 'r2'] })).toEqual(['r2']);
    expect(await ids({ runIds: [] })).toEqual([]);
    const [r3] = await store.loadRuns({ runIds: ['r3'] });
    expect(r3?.steps).toHaveLength(2);
    expect(r3?.events).toHaveLength(4);
  });

  it('reads batches back with their git revision, all or by id, oldest first', async () => {
    const store = await openStore(dbFile());
    const b1 = { ...batch('b1', new Date('2025-03-01T10:00:00Z')), gitSha: '0123abcd-dirty' };
    const b2 = batch('b2', new Date('2025-03-02T10:00:00Z'));
    await store.saveBatch(b2);
    await store.saveBatch(b1);
    expect(await store.loadBatches()).toEqual([b1, b2]);
    expect(await store.loadBatches(['b2'])).toEqual([b2]);
    expect((await store.loadBatches(['b2']))[0]?.gitSha).toBeUndefined();
    expect(await store.loadBatches([])).toEqual([]);
  });

  it('finds batches by matrix fingerprint, reads run statuses and deletes runs whole', async () => {
    const file = dbFile();
    const store = await openStore(file);
    await store.saveBatch({ ...batch('b1', new Date('2025-03-01T10:00:00Z')), fingerprint: 'fp-a' });
    await store.saveBatch({ ...batch('b2', new Date('2025-03-02T10:00:00Z')), fingerprint: 'fp-b' });
    await store.saveBatch({ ...batch('b3', new Date('2025-03-03T10:00:00Z')), fingerprint: 'fp-a' });
    await store.saveBatch(batch('b4', new Date('2025-03-04T10:00:00Z')));
    expect(await store.latestBatchId('fp-a')).toBe('b3');
    expect(await store.latestBatchId('fp-b')).toBe('b2');
    expect(await store.latestBatchId('fp-c')).toBeUndefined();
    expect(await store.findBatch('b3')).toEqual({ fingerprint: 'fp-a' });
    expect(await store.findBatch('b4')).toEqual({ fingerprint: undefined });
    expect(await store.findBatch('nope')).toBeUndefined();

    const base = makeRun('r1', 'b3');
    await store.saveRun(base);
    await store.saveRun(makeRun('r2', 'b3', { summary: { ...base.summary, status: 'error' } }));
    await store.saveRun(makeRun('r3', 'b1'));
    expect(await store.runStatuses('b3')).toEqual(new Map([['r1', 'overflow'], ['r2', 'error']]));

    await store.deleteRuns(['r2', 'r3']);
    expect((await store.loadRuns()).map((r) => r.runId)).toEqual(['r1']);
    await store.close();
    for (const table of ['steps', 'events', 'probes']) expect(await rawSql(file, `SELECT DISTINCT run_id FROM ${table}`)).toEqual([['r1']]);
  });

  it('has no latest batch in a new database', async () => {
    const store = await openStore(dbFile());
    expect(await store.latestBatchId()).toBeUndefined();
    expect(await store.loadRuns()).toEqual([]);
  });

  it('serialises concurrent saves on one store', async () => {
    const store = await openStore(dbFile());
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => store.saveRun(makeRun(id, 'b1'))));
    expect((await store.loadRuns()).map((r) => r.runId).sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('holds a run finishing right after a write back for the next, and writes it at once on flushRuns', async () => {
    const store = await ResultStore.open(dbFile(), { gatherMs: 3_600_000 });
    await store.saveRun(makeRun('a', 'b1')); // the first write does not wait
    let saved = false;
    const b = store.saveRun(makeRun('b', 'b1')).then(() => (saved = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(saved).toBe(false);
    store.flushRuns(); // without it, b would wait an hour (and the test time out)
    await b;
    expect((await store.loadRuns()).map((r) => r.runId)).toEqual(['a', 'b']);
    await store.close();
  });

  it('shares one instance between stores on the same file in one process', async () => {
    const file = dbFile();
    const writer = await openStore(file);
    const reader = await ResultStore.openExisting(file);
    await writer.saveRun(makeRun('r1', 'b1'));
    expect((await reader.loadRuns()).map((r) => r.runId)).toEqual(['r1']);
    await reader.close();
    await writer.saveRun(makeRun('r2', 'b1')); // the writer's instance survived the reader's close
  });

  it('treats a zero-byte file as a new database', async () => {
    const file = dbFile();
    writeFileSync(file, '');
    const store = await openStore(file);
    expect(await store.loadRuns()).toEqual([]);
  });
});

describe('ResultStore atomic saves', () => {
  it('leaves no trace of a run whose save fails midway, and stays usable', async () => {
    const file = dbFile();
    const store = await ResultStore.open(file);
    const base = makeRun('bad', 'b1');
    // The run row and the first step are appended before the second step is rejected.
    const bad = makeRun('bad', 'b1', { steps: [base.steps[0]!, { ...base.steps[1]!, promptTokens: Number.NaN }] });
    const error = await storeError(store.saveRun(bad));
    expect(error.code).toBe('STORE_ERROR');
    expect(error.message).toBe(`${file}: cannot save run bad (column prompt_tokens: invalid INTEGER value NaN)`);

    await store.saveRun(makeRun('good', 'b1'));
    expect((await store.loadRuns()).map((r) => r.runId)).toEqual(['good']);
    await store.close();
    expect(await rawSql(file, `SELECT count(*) FROM steps WHERE run_id = 'bad'`)).toEqual([[0n]]);
    expect(await rawSql(file, `SELECT count(*) FROM events WHERE run_id = 'bad'`)).toEqual([[0n]]);
  });

  it('saves the good runs of a group written together and fails only the bad one', async () => {
    const file = dbFile();
    const store = await openStore(file);
    const base = makeRun('bad', 'b1');
    const bad = makeRun('bad', 'b1', { steps: [base.steps[0]!, { ...base.steps[1]!, promptTokens: Number.NaN }] });
    // Handed in together, before the first is written: one transaction, which the bad run fails.
    const saves = await Promise.allSettled([store.saveRun(makeRun('a', 'b1')), store.saveRun(bad), store.saveRun(makeRun('c', 'b1'))]);
    expect(saves.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((saves[1] as PromiseRejectedResult).reason as Error).message).toBe(`${file}: cannot save run bad (column prompt_tokens: invalid INTEGER value NaN)`);
    expect((await store.loadRuns()).map((r) => [r.runId, r.steps.length])).toEqual([['a', 2], ['c', 2]]);
  });

  it('rejects a duplicate run id without touching the stored one', async () => {
    const file = dbFile();
    const store = await openStore(file);
    await store.saveRun(makeRun('r1', 'b1'));
    const error = await storeError(store.saveRun(makeRun('r1', 'b1', { steps: [] })));
    expect(error.code).toBe('STORE_ERROR');
    expect(error.message).toMatch(/^.*: cannot save run r1 \(.*[Dd]uplicate key/);
    const [loaded] = await store.loadRuns();
    expect(loaded?.steps).toHaveLength(2);
  });

  it('refuses operations after close', async () => {
    const file = dbFile();
    const store = await ResultStore.open(file);
    await store.close();
    await store.close();
    const error = await storeError(store.loadRuns());
    expect(error.message).toBe(`${file}: cannot read runs (the store is closed)`);
  });
});

describe('ResultStore open errors', () => {
  it('refuses a DuckDB database from another tool', async () => {
    const file = dbFile();
    await rawSql(file, 'CREATE TABLE sales (id INTEGER, amount DOUBLE)');
    for (const opening of [ResultStore.open, ResultStore.openExisting]) {
      const error = await storeError(opening(file));
      expect(error.code).toBe('STORE_ERROR');
      expect(error.message).toBe(`${file}: not a ctxbench results database (no ctxbench_meta table)`);
    }
    expect(await rawSql(file, `SELECT count(*) FROM information_schema.tables`)).toEqual([[1n]]); // untouched
  });

  it('refuses a database whose tables have another layout, before writing anything', async () => {
    const file = dbFile();
    await (await ResultStore.open(file)).close();
    await rawSql(file, 'ALTER TABLE steps DROP COLUMN cache_hit');
    const error = await storeError(ResultStore.open(file));
    expect(error.message).toBe(`${file}: its steps table has other columns than this ctxbench writes (an older or newer results layout); pass a new --db or delete the file`);
  });

  it('refuses a database written with a newer schema version', async () => {
    const file = dbFile();
    await (await ResultStore.open(file)).close();
    await rawSql(file, `UPDATE ctxbench_meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
    const error = await storeError(ResultStore.open(file));
    expect(error.code).toBe('STORE_ERROR');
    expect(error.message).toContain(`schema version ${SCHEMA_VERSION + 1}`);
    expect(error.message).toContain('upgrade ctxbench');
  });

  it('refuses a database written by an older ctxbench, naming both versions and what to do', async () => {
    const file = dbFile();
    await (await ResultStore.open(file)).close();
    await rawSql(file, `UPDATE ctxbench_meta SET value = '${SCHEMA_VERSION - 1}' WHERE key = 'schema_version'`);
    for (const opening of [ResultStore.open, ResultStore.openExisting]) {
      const error = await storeError(opening(file));
      expect(error.message).toBe(
        `${file}: written by an older ctxbench (results schema version ${SCHEMA_VERSION - 1}, this one reads version ${SCHEMA_VERSION}); run \`bench run\` again into a new --db, or use the ctxbench version that wrote it`,
      );
    }
  });

  it('refuses a file that is not a database', async () => {
    const file = dbFile();
    writeFileSync(file, Buffer.from('garbage, not a database\n'.repeat(200)));
    const error = await storeError(ResultStore.open(file));
    expect(error.code).toBe('STORE_ERROR');
    expect(error.message).toBe(
      `${file}: not a DuckDB database file; pass a ctxbench results database or a new path as --db`,
    );
    // A reader takes no new path, and names the flag it was given the file by.
    expect((await storeError(ResultStore.openExisting(file, '--baseline'))).message).toBe(`${file}: not a DuckDB database file; pass a ctxbench results database as --baseline`);
  });

  it('regression: refuses a SQLite file in one line, without DuckDB fetching a scanner extension from the internet', async () => {
    const file = dbFile();
    const header = Buffer.alloc(4096);
    header.write('SQLite format 3\0', 0, 'latin1'); // what DuckDB recognizes a SQLite database by
    writeFileSync(file, header);
    const error = await storeError(ResultStore.openExisting(file));
    // With auto-install on, the message is DuckDB's "failed to download extension ... from http://extensions.duckdb.org".
    expect(error.message).toBe(`${file}: not a DuckDB database file; pass a ctxbench results database as --db`);
  });

  it('opens every database with extension auto-install and auto-load off', async () => {
    const file = dbFile();
    const instance = await acquireInstance(file);
    try {
      const connection = await instance.connect();
      const settings = await connection.runAndReadAll(
        "SELECT current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions'), current_setting('allow_community_extensions')",
      );
      expect(settings.getRows()[0]).toEqual([false, false, false]);
      connection.closeSync();
    } finally {
      await releaseInstance(file);
    }
  });

  it('removes the temp files a killed merge left in its folder (the next command writing there)', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const leftover = `.all.duckdb.merging-${dead}-0123abcd`;
    writeFileSync(join(dir, leftover), 'half a merge');
    await (await ResultStore.open(dbFile())).close();
    expect(readdirSync(dir)).not.toContain(leftover);
  });

  it('names --db when the path cannot be created', async () => {
    const blocker = join(dir, 'afile');
    writeFileSync(blocker, 'x');
    for (const file of [join(blocker, 'x.duckdb'), join(blocker, 'sub', 'x.duckdb')]) {
      const error = await storeError(ResultStore.open(file));
      expect(error.code).toBe('OUTPUT_INVALID');
      expect(error.message).toBe(`--db ${file}: ${blocker} is a file, not a folder (ENOTDIR)`);
    }
    const error = await storeError(ResultStore.open(dir));
    expect(error.message).toBe(`--db ${dir}: cannot open (is a directory)`);
    // A merge opens its temp file as its -o output: errors name that.
    const merging = await storeError(ResultStore.open(dir, { shownAs: { flag: '-o', file: 'all.duckdb' } }));
    expect(merging.message).toBe('-o all.duckdb: cannot open (is a directory)');
  });

  it('opens a reader read-only: the file is left byte for byte as it was, and a write through it is refused', async () => {
    const file = join(dir, 'read.duckdb');
    const writer = await ResultStore.open(file);
    await writer.saveBatch(batch('b1', new Date('2025-03-01T10:00:00Z')));
    await writer.saveRun(makeRun('r1', 'b1'));
    await writer.close();
    const before = readFileSync(file);
    const reader = await ResultStore.openExisting(file);
    expect((await reader.loadRuns()).map((r) => r.runId)).toEqual(['r1']);
    await expect(reader.use('write', (c) => c.run('CREATE TABLE t (x INTEGER)'))).rejects.toThrow(/read-only/);
    // A writer in the same process meanwhile is refused in one line, not handed the read-only instance.
    expect((await storeError(ResultStore.open(file))).message).toBe(`${file}: open for reading in this process; it cannot be written until that ends`);
    await reader.close();
    await (await ResultStore.open(file)).close();
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('does not create a database for a reader', async () => {
    const file = join(dir, 'missing.duckdb');
    const error = await storeError(ResultStore.openExisting(file));
    expect(error.code).toBe('STORE_ERROR');
    expect(error.message).toBe(`${file}: no such results database`);
  });

  describe('with the file held by another process', () => {
    let child: ChildProcess;
    const file = join(tmpdir(), `ctxbench-locked-${process.pid}.duckdb`);

    beforeAll(async () => {
      const api = pathToFileURL(createRequire(import.meta.url).resolve('@duckdb/node-api')).href;
      const script = `import { DuckDBInstance } from ${JSON.stringify(api)};
        await DuckDBInstance.create(${JSON.stringify(file)});
        console.log('ready');
        setInterval(() => {}, 60_000);`;
      child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((ready, fail) => {
        child.stdout?.once('data', () => ready());
        child.once('exit', (code) => fail(new Error(`lock holder exited with ${code}`)));
      });
    });
    afterAll(async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill();
        await exited;
      }
      rmSync(file, { force: true });
    });

    it('reports STORE_LOCKED to writers and readers', async () => {
      for (const opening of [ResultStore.open, ResultStore.openExisting]) {
        const error = await storeError(opening(file));
        expect(error.code).toBe('STORE_LOCKED');
        expect(error.message).toBe(
          `${file}: another process has it open (DuckDB allows one writer); wait for it or use another --db`,
        );
      }
    });
  });
});
