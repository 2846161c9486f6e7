/**
 * End to end: the CI gate on the built `bench`: baseline a batch, check it against itself, then against
 * a baseline that pretends to have been better.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bench, expectOneLineError, ROOT, tempDir } from './helpers/cli.js';

describe('bench baseline / bench check', () => {
  let cwd: string;
  beforeAll(() => {
    cwd = tempDir('ctxbench-gate-');
    const run = bench(['run', '-s', 'raw,masking', '--scenario', path.join(ROOT, 'scenarios/synthetic'), '--window', '16k', '--no-report', '--db', 'r.duckdb'], cwd);
    expect(run.code, run.stderr).toBe(0);
  }, 120_000);

  it('writes a deterministic baseline: one entry per strategy|scenario, sorted, with version and command', () => {
    const first = bench(['baseline', '--db', 'r.duckdb', '-o', 'b.json'], cwd);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Baseline: .*b\.json \(10 runs of batch /);
    const again = bench(['baseline', '--db', 'r.duckdb', '-o', 'b2.json'], cwd);
    expect(again.code).toBe(0);
    const strip = (file: string): string => readFileSync(path.join(cwd, file), 'utf8').replace(/"created": "[^"]*"/, '');
    expect(strip('b2.json')).toBe(strip('b.json'));
    const data = JSON.parse(readFileSync(path.join(cwd, 'b.json'), 'utf8'));
    expect(Object.keys(data)).toEqual(['format', 'created', 'version', 'command', 'runs']);
    expect(data.command).toMatch(/^bench run -s raw,masking /);
    const keys = Object.keys(data.runs);
    expect(keys).toEqual([...keys].sort());
    expect(keys.filter((k) => k.startsWith('masking|'))).toHaveLength(5);
    expect(Object.keys(data.runs[keys[0]!])).toEqual([
      'status', 'steps', 'inputTokens', 'outputTokens', 'overheadTokens', 'cachedInputTokens', 'peakContextPct',
      'probesPassed', 'probesTotal', 'referencePresent', 'referenceTotal', 'costUsd',
    ]);
  });

  it('passes against its own batch, and writes the benchmark JSON and markdown when asked', () => {
    const r = bench(['check', '--baseline', 'b.json', '--db', 'r.duckdb', '--json-out', 'out/bench.json', '--markdown-out', 'out/summary.md'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('0 regressions, 0 improvements over 10 runs compared');
    const entries = JSON.parse(readFileSync(path.join(cwd, 'out/bench.json'), 'utf8')) as { name: string; unit: string; value: number }[];
    expect(entries.map((e) => e.name)).toContain('masking: input tokens');
    expect(entries.find((e) => e.name === 'masking: input tokens')!.unit).toBe('tokens');
    expect(readFileSync(path.join(cwd, 'out/summary.md'), 'utf8')).toContain('## ctxbench check: pass');
  });

  it('exits 100 naming the run and metric when the baseline was better', () => {
    const data = JSON.parse(readFileSync(path.join(cwd, 'b.json'), 'utf8'));
    const key = Object.keys(data.runs).find((k) => k.startsWith('masking|'))!;
    data.runs[key].inputTokens = Math.round(data.runs[key].inputTokens * 0.9);
    writeFileSync(path.join(cwd, 'better.json'), JSON.stringify(data, null, 2));
    const r = bench(['check', '--baseline', 'better.json', '--db', 'r.duckdb'], cwd);
    expect(r.code).toBe(100);
    expect(r.stdout).toMatch(new RegExp(`REGRESSION\\s+inputTokens\\s+${key.replace(/[|.]/g, '\\$&')}\\s`));
    expect(r.stdout).toContain('1 regression, 0 improvements over 10 runs compared');
    // A looser tolerance lets it pass.
    expect(bench(['check', '--baseline', 'better.json', '--db', 'r.duckdb', '--tolerance', 'inputTokens=rel:15%'], cwd).code).toBe(0);
  });

  it('exits 1 with one line on a missing or malformed baseline or a bad tolerance', () => {
    expectOneLineError(bench(['check', '--baseline', 'nope.json', '--db', 'r.duckdb'], cwd), /nope\.json: cannot read the baseline \(no such file/);
    writeFileSync(path.join(cwd, 'broken.json'), '{"format": 1, "runs": ');
    expectOneLineError(bench(['check', '--baseline', 'broken.json', '--db', 'r.duckdb'], cwd), /broken\.json: not valid JSON/);
    expectOneLineError(bench(['check', '--baseline', 'b.json', '--db', 'r.duckdb', '--tolerance', 'tokens=5'], cwd), /--tolerance tokens=5: expected/);
  });
});
