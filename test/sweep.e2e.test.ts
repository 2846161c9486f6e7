/**
 * `bench sweep` as a user runs it: a grid over one strategy's parameters, or presets side by side,
 * stored as one batch, with the Pareto front and the recommended default printed and in the report.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResultStore } from '../src/store/result-store.js';
import { bench, expectOneLineError, ROOT } from './helpers/cli.js';

const SCENARIO = path.join(ROOT, 'scenarios/synthetic/synthetic-s60-seed1-o400-f10.json');

async function storedRuns(cwd: string) {
  const store = await ResultStore.openExisting(path.join(cwd, 'reports/ctxbench.duckdb'));
  const runs = await store.loadRuns();
  await store.close();
  return runs;
}

describe('bench sweep', () => {
  it('runs every setting of the grid, skips the ones the strategy refuses, and recommends one', async () => {
    const r = bench(['sweep', '-s', 'masking', '--grid', 'softThreshold=0.5:0.9:0.2', '--grid', 'carryoverTurns=3,10', '--window', '16k', '--scenario', SCENARIO]);
    expect(r.code).toBe(0);
    // 0.9 is not below the hard threshold (0.9): refused, with the reason.
    expect(r.stderr).toContain('bench: warning: 2 of 6 settings skipped, masking refuses them: softThreshold=0.9,carryoverTurns=3: softThreshold');
    const runs = await storedRuns(r.cwd);
    expect(runs.map((run) => [run.config.params['softThreshold'], run.config.params['carryoverTurns']])).toEqual([[0.5, 3], [0.5, 10], [0.7, 3], [0.7, 10]]);
    expect(new Set(runs.map((run) => run.batchId)).size).toBe(1);
    // Progress lines name the setting of each run.
    expect(r.stderr).toMatch(/^\[\d\/4\] masking\[softThreshold=0\.7,carryoverTurns=10\] x synthetic-s60-seed1-o400-f10: /m);
    expect(runs.map((run) => run.runId.split('/')[1])).toEqual([
      'masking[softThreshold=0.5,carryoverTurns=3]',
      'masking[softThreshold=0.5,carryoverTurns=10]',
      'masking[softThreshold=0.7,carryoverTurns=3]',
      'masking[softThreshold=0.7,carryoverTurns=10]',
    ]);
    const rows = r.stdout.split('\n').filter((line) => /^masking \(softThreshold=0\.\d, carryoverTurns=\d+\)\s+\$[\d.]+\s+[\d.]+%/.test(line));
    expect(rows).toHaveLength(4);
    const recommended = rows.filter((line) => line.endsWith('yes: recommended'));
    expect(recommended).toHaveLength(1);
    expect(r.stdout).toMatch(/Recommended default: The cheapest configuration \(by dollars\) whose success is within 1 percentage point of the best \([\d.]+%\): masking \(softThreshold=0\.\d, carryoverTurns=\d+\)/);
    // The report's Pareto chart has the same configurations.
    const html = readFileSync(path.join(r.cwd, 'reports/ctxbench-report.html'), 'utf8');
    expect(html).toContain('masking (softThreshold=0.5, carryoverTurns=10)');
    // And a success chart per swept parameter.
    expect(html.match(/<figure class="chart sweep-chart" id="sweep-\d">/g)).toHaveLength(2);
    // A baseline of the sweep keeps every setting apart, so `bench check` gates each one.
    expect(bench(['baseline', '-o', 'b.json'], r.cwd).code).toBe(0);
    const keys = Object.keys((JSON.parse(readFileSync(path.join(r.cwd, 'b.json'), 'utf8')) as { runs: object }).runs);
    expect(keys.map((k) => k.split('|')[0]).sort()).toEqual(runs.map((run) => run.runId.split('/')[1]).sort());
    const check = bench(['check', '--baseline', 'b.json'], r.cwd);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/over 4 runs compared/);
  });

  it('compares presets side by side without a grid', () => {
    const r = bench(['sweep', '--preset', 'jetbrains-masking,codex', '--window', '16k', '--scenario', SCENARIO, '--no-report']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^jetbrains-masking \(clear-tool-results\)\s+\$/m);
    expect(r.stdout).toMatch(/^codex \(summarization\)\s+\$/m);
    expect(r.stdout).toContain('Recommended default: ');
  });

  it('bad grids and selections: one line naming the flag', () => {
    expectOneLineError(bench(['sweep', '-s', 'masking', '--scenario', SCENARIO]), /^bench: --grid: give the parameter values to sweep/);
    expectOneLineError(bench(['sweep', '-s', 'raw,masking', '--grid', 'softThreshold=0.5,0.6']), /^bench: --grid sweeps one strategy or preset; 2 are selected \(raw, masking\)\n$/);
    expectOneLineError(bench(['sweep', '-s', 'masking', '--grid', 'soft=0.5']), /^bench: --grid soft=0\.5: masking has no parameter "soft"/);
    expectOneLineError(bench(['sweep', '-s', 'masking', '--grid', 'softThreshold=0.95,0.99']), /^bench: --grid: masking refuses every setting of the grid, e\.g\. softThreshold=0\.95: softThreshold/);
    // A --param the grid sweeps too would be overridden by every setting: refused, not dropped.
    for (const param of ['softThreshold=0.7', 'masking.softThreshold=0.7']) {
      expectOneLineError(bench(['sweep', '-s', 'masking', '-g', 'softThreshold=0.5,0.6', '-p', param]), new RegExp(`^bench: --param ${param.replace('.', '\\.')}: softThreshold is swept by --grid too; give it to one of them\n$`));
    }
  });
});
