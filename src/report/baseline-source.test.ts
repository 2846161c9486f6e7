import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBaseline, serializeBaseline } from '../gate/baseline.js';
import { ResultStore } from '../store/result-store.js';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import { loadBaseline } from './baseline-source.js';

const dir = mkdtempSync(join(tmpdir(), 'ctxbench-baseline-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** What `bench report` renders: the latest batch of r.duckdb. */
const REPORTED = { db: 'r.duckdb' };

describe('loadBaseline', () => {
  const runs = sampleRuns();

  it('reads a bench baseline JSON file', async () => {
    const file = join(dir, 'baseline.json');
    const baseline = buildBaseline(runs, { version: '0.1.0', command: 'bench run -s all' }, new Date('2025-01-02T03:04:05Z'), 'test');
    writeFileSync(file, serializeBaseline(baseline));
    const loaded = await loadBaseline(file, REPORTED);
    expect(loaded.description).toBe('baseline file (ctxbench 0.1.0, 2025-01-02 03:04 UTC): bench run -s all');
    expect(Object.keys(loaded.runs)).toHaveLength(6);
    expect(loaded.runs['raw|bad"id<i>']!.status).toBe('overflow');
    expect(loaded.configs!['raw|bad"id<i>']!.window).toBe(runs[0]!.config.window);
    expect(loaded.update).toBe(`bench baseline --db r.duckdb -o ${file}`);
    expect((await loadBaseline(file, { db: 'r.duckdb', batch: 'b7' })).update).toBe(`bench baseline --db r.duckdb --batch b7 -o ${file}`);
    expect((await loadBaseline(file, { db: 'r.duckdb', batch: 'all' })).update).toBeUndefined();
  });

  it('reads the latest batch of a results database', async () => {
    const file = join(dir, 'old.duckdb');
    const store = await ResultStore.open(file);
    await store.saveBatch({ batchId: 'batch-1', createdAt: new Date('2025-01-02T03:04:05Z'), command: 'bench run', version: '0.1.0' });
    for (const run of runs) await store.saveRun(run);
    await store.close();
    const loaded = await loadBaseline(file, REPORTED);
    expect(loaded.description).toBe('batch batch-1 (2025-01-02 03:04 UTC, ctxbench 0.1.0): bench run');
    expect(loaded.runs['masking|swe-auth-001']!.probesPassed).toBe(1);
    expect(loaded.configs!['masking|swe-auth-001']!.params).toEqual(runs.find((r) => r.config.strategy === 'masking')!.config.params);
    expect(loaded.update).toBeUndefined();
  });

  it('says what is wrong, naming the file', async () => {
    await expect(loadBaseline(join(dir, 'missing.json'), REPORTED)).rejects.toThrow(
      `--baseline ${join(dir, 'missing.json')}: no such file; pass a results database or a JSON file written by \`bench baseline\``,
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"format": 1, "runs": [');
    await expect(loadBaseline(broken, REPORTED)).rejects.toThrow(`${broken}: not valid JSON`);
    const empty = join(dir, 'empty.duckdb');
    await (await ResultStore.open(empty)).close();
    await expect(loadBaseline(empty, REPORTED)).rejects.toThrow(`${empty}: no runs in it; run \`bench run --db ${empty}\` first`);
  });
});
