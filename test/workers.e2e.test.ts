/**
 * End to end: `bench run` on the mock runs its matrix on worker threads (-j) or, small and without -j,
 * in the main thread, and what it stores does not depend on where or on how many threads.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../src/core/run-records.js';
import { ResultStore } from '../src/store/result-store.js';
import { bench } from './helpers/cli.js';

/** A stored run without what differs between two invocations (batch id, timestamps). */
const comparable = (r: RunResult) => ({ strategy: r.config.strategy, scenario: r.config.scenarioId, config: r.config, summary: r.summary, steps: r.steps, events: r.events, probes: r.probes });

async function storedRuns(cwd: string): Promise<ReturnType<typeof comparable>[]> {
  const store = await ResultStore.openExisting(path.join(cwd, 'runs.duckdb'));
  const runs = await store.loadRuns();
  await store.close();
  return runs.map(comparable).sort((a, b) => `${a.scenario} ${a.strategy}`.localeCompare(`${b.scenario} ${b.strategy}`));
}

describe('bench run -j on the mock', () => {
  it('stores the same runs from the bundled suite with 1 and 2 worker threads and without -j (a matrix this small runs in the main thread), and prints them in matrix order', async () => {
    const args = ['run', '-s', 'raw,masking,summarization', '--window', '32k', '--no-report', '--db', 'runs.duckdb'];
    const one = bench([...args, '-j', '1']);
    const two = bench([...args, '-j', '2']);
    const main = bench(args);
    for (const r of [one, two, main]) expect(r.code, r.stderr).toBe(0);
    const [a, b, c] = [await storedRuns(one.cwd), await storedRuns(two.cwd), await storedRuns(main.cwd)];
    expect(a.length).toBeGreaterThanOrEqual(3 * 12);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    const tables = (stdout: string) => stdout.slice(0, stdout.indexOf('\nResults:'));
    expect(tables(two.stdout)).toBe(tables(one.stdout));
    expect(tables(main.stdout)).toBe(tables(one.stdout));
  }, 180_000);
});
