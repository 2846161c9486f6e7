/**
 * scripts/compare-results.ts, as README "Development" runs it: two databases of the same matrix are
 * identical whatever their batch ids and times; one number changed anywhere is named, with exit 1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../src/core/run-records.js';
import { ResultStore } from '../src/store/result-store.js';
import { mockRuns } from './helpers/mock-runs.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'ctxbench-compare-'));

async function save(file: string, batchId: string, runs: readonly RunResult[]): Promise<string> {
  const store = await ResultStore.open(file);
  await store.saveBatch({ batchId, createdAt: new Date(), command: 'bench run', version: 'test' });
  for (const run of runs) await store.saveRun(run);
  await store.close();
  return file;
}

/** `npx tsx scripts/compare-results.ts a b`: its exit code and output. */
async function compare(a: string, b: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/compare-results.ts', a, b], { cwd: ROOT });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, out: failed.stdout };
  }
}

let before: string;
let runs: RunResult[];
beforeAll(async () => {
  runs = await mockRuns('b1');
  before = await save(path.join(dir, 'before.duckdb'), 'b1', runs);
});

describe('scripts/compare-results.ts', () => {
  it('finds two runs of the same matrix identical, whatever their batch ids and times', async () => {
    const again = await save(path.join(dir, 'again.duckdb'), 'b2', await mockRuns('b2'));
    const { code, out } = await compare(before, again);
    expect(out).toContain('steps: ');
    expect(out.trim().split('\n').at(-1)).toBe('identical');
    expect(code).toBe(0);
  });

  it('names the run whose numbers differ, and exits 1', async () => {
    const changed = runs.map((run, i) => (i === 1 ? { ...run, summary: { ...run.summary, inputTokens: run.summary.inputTokens + 1 } } : run));
    const after = await save(path.join(dir, 'after.duckdb'), 'b1', changed);
    const { code, out } = await compare(before, after);
    expect(out).toContain('runs: 4 vs 4 rows, 1 only in the first, 1 only in the second');
    expect(out).toContain(`only in the first: ["${runs[1]!.runId.slice(3)}"`);
    expect(out.trim().split('\n').at(-1)).toBe('2 rows differ');
    expect(code).toBe(1);
  });
});
