import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../core/run-records.js';
import { mockRuns } from '../../test/helpers/mock-runs.js';
import { exportParquet } from './export.js';
import { ResultStore } from './result-store.js';
import { TABLES } from './schema.js';

let dir: string;
let store: ResultStore;
let first: RunResult[];
let second: RunResult[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxbench-export-'));
  store = await ResultStore.open(join(dir, 'results.duckdb'));
  [first, second] = [await mockRuns('b1'), await mockRuns('b2')];
  for (const [batchId, runs] of [['b1', first], ['b2', second]] as const) {
    await store.saveBatch({ batchId, createdAt: new Date(), command: 'bench run', version: '0.1.0', fingerprint: `fp-${batchId}` });
    await store.saveCalibration([{ batchId, model: 'gpt-4o', encoding: 'o200k_base', factor: 1.2, overhead: 0, source: 'fitted', samples: 3, scenarios: 2, before: { meanAbsPctError: 0.2, meanPctError: -0.2 }, after: { meanAbsPctError: 0.01, meanPctError: 0 } }]);
    for (const run of runs) await store.saveRun(run);
  }
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Reads Parquet back with DuckDB, as another tool would. */
async function parquet(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const totalSteps = (runs: readonly RunResult[]): number => runs.reduce((n, r) => n + r.steps.length, 0);

describe('exportParquet', () => {
  it('writes one Parquet file per table, cut to the batch, that DuckDB reads back', async () => {
    const out = join(dir, 'one');
    const tables = await exportParquet(store, out, 'b2');
    expect(readdirSync(out).sort()).toEqual(TABLES.map((t) => `${t.name}.parquet`).sort());
    const rows = Object.fromEntries(tables.map((t) => [t.table, t.rows]));
    expect(rows).toEqual({
      ctxbench_meta: 2,
      batches: 1,
      runs: second.length,
      steps: totalSteps(second),
      events: second.reduce((n, r) => n + r.events.length, 0),
      probes: 0,
      calibration: 1,
    });
    for (const t of tables) expect(await parquet(`SELECT count(*)::INTEGER AS n FROM read_parquet('${t.file}')`)).toEqual([{ n: t.rows }]);

    const runs = await parquet(`SELECT run_id, batch_id, status, input_tokens FROM read_parquet('${join(out, 'runs.parquet')}') ORDER BY run_id`);
    const expected = [...second].sort((a, b) => (a.runId < b.runId ? -1 : 1));
    expect(runs).toEqual(expected.map((r) => ({ run_id: r.runId, batch_id: 'b2', status: r.summary.status, input_tokens: String(r.summary.inputTokens) })));
    const [batch] = await parquet(`SELECT batch_id, matrix_fingerprint FROM read_parquet('${join(out, 'batches.parquet')}')`);
    expect(batch).toEqual({ batch_id: 'b2', matrix_fingerprint: 'fp-b2' });
    const [step] = await parquet(`SELECT prompt_tokens, context_pct FROM read_parquet('${join(out, 'steps.parquet')}') WHERE run_id = '${expected[0]!.runId}' AND seq = 0`);
    expect(step).toEqual({ prompt_tokens: expected[0]!.steps[0]!.promptTokens, context_pct: expected[0]!.steps[0]!.contextPct });
  });

  it('exports every batch when none is given', async () => {
    const tables = await exportParquet(store, join(dir, 'all'), undefined);
    const rows = Object.fromEntries(tables.map((t) => [t.table, t.rows]));
    expect(rows).toMatchObject({ batches: 2, runs: first.length + second.length, steps: totalSteps(first) + totalSteps(second), calibration: 2 });
  });
});
