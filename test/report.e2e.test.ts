/**
 * `bench report` end to end: every output format from one results database, the baseline diff, and
 * bad input answered with one line and no partial output (a report of 100+ runs: test/cli.e2e.test.ts,
 * on the run of every strategy it makes).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { ResultStore } from '../src/store/result-store.js';
import { bench, expectOneLineError, ROOT, tempDir } from './helpers/cli.js';

const OPENHANDS = path.join(ROOT, 'scenarios/openhands-codeact-sonnet35');

/** Runs SQL on a database file as another tool would. */
async function rawSql(file: string, sql: string): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    await connection.run(sql);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('bench report', () => {
  let cwd: string;
  beforeAll(() => {
    cwd = tempDir();
    for (const [db, extra] of [['base.duckdb', []], ['r.duckdb', ['--param', 'masking.softThreshold=0.5']]] as const) {
      const run = bench(['run', '--scenario', OPENHANDS, '-s', 'raw,masking', '--window', '32k', '--no-report', '--db', db, ...extra], cwd);
      expect(run.code, run.stderr).toBe(0);
    }
  }, 120_000);

  it('writes HTML, JSON, CSV and markdown in one go, the format by extension', () => {
    const r = bench(['report', '--db', 'r.duckdb', '-o', 'out/r.html', '-o', 'out/r.json', '-o', 'out/r.csv', '-o', 'out/r.md'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
    const read = (file: string): string => readFileSync(path.join(cwd, 'out', file), 'utf8');
    expect(read('r.html')).toMatch(/^<!doctype html>/);
    const json = JSON.parse(read('r.json'));
    expect(json.runs).toHaveLength(6);
    expect(json.batches[0].command).toContain('masking.softThreshold=0.5');
    expect(read('r.csv').split('\r\n')[0]).toMatch(/^run_id,batch_id,scenario_id,/);
    expect(read('r.csv').trim().split('\r\n')).toHaveLength(7);
    expect(read('r.md')).toMatch(/^## ctxbench report\n[^]*\*\*Recommended default: /);
  });

  it('diffs against an older results database or a baseline file', () => {
    const r = bench(['report', '--db', 'r.duckdb', '--baseline', 'base.duckdb', '-o', 'diff.html', '-o', 'diff.md'], cwd);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(path.join(cwd, 'diff.html'), 'utf8');
    expect(html).toContain('<section id="baseline">');
    expect(html).toMatch(/<code>base\.duckdb<\/code>: batch \S+ \(/);
    expect(readFileSync(path.join(cwd, 'diff.md'), 'utf8')).toMatch(/## ctxbench check: (pass|FAIL)/);

    expect(bench(['baseline', '--db', 'base.duckdb', '-o', 'base.json'], cwd).code).toBe(0);
    const fromJson = bench(['report', '--db', 'r.duckdb', '--baseline', 'base.json', '-o', 'json-diff.json'], cwd);
    expect(fromJson.code, fromJson.stderr).toBe(0);
    const diff = JSON.parse(readFileSync(path.join(cwd, 'json-diff.json'), 'utf8')).baseline;
    expect(diff.file).toBe('base.json');
    expect(diff.missingFromCandidate).toEqual([]);
  });

  describe('bad input: one line, exit 1, the previous report untouched and no temp file left', () => {
    const OLD = '<!doctype html>\n<html><head><meta charset="utf-8">\n<meta name="generator" content="ctxbench 0.0.1"></head><body><p>the previous report</p></body></html>\n';
    const expectNothingWritten = (dir: string): void => {
      expect(readFileSync(path.join(dir, 'report.html'), 'utf8')).toBe(OLD);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') || f.startsWith('.report'))).toEqual([]);
    };
    const dirWithReport = (): string => {
      const dir = tempDir('ctxbench-report-bad-');
      writeFileSync(path.join(dir, 'report.html'), OLD);
      return dir;
    };

    it('a DuckDB file from another tool', async () => {
      const dir = dirWithReport();
      await rawSql(path.join(dir, 'other.duckdb'), 'CREATE TABLE sales (id INTEGER)');
      expectOneLineError(bench(['report', '--db', 'other.duckdb', '-o', 'report.html'], dir), /^bench: other\.duckdb: not a ctxbench results database \(no ctxbench_meta table\)$/m);
      expectNothingWritten(dir);
    });

    it('a results database of an older schema', async () => {
      const dir = dirWithReport();
      const file = path.join(dir, 'old.duckdb');
      await (await ResultStore.open(file)).close();
      await rawSql(file, `UPDATE ctxbench_meta SET value = '1' WHERE key = 'schema_version'`);
      expectOneLineError(bench(['report', '--db', 'old.duckdb', '-o', 'report.html'], dir), /^bench: old\.duckdb: written by an older ctxbench \(results schema version 1, this one reads version \d+\); run `bench run` again/m);
      expectNothingWritten(dir);
    });

    it('an empty results database, an empty file, an unknown batch', async () => {
      const dir = dirWithReport();
      await (await ResultStore.open(path.join(dir, 'empty.duckdb'))).close();
      expectOneLineError(bench(['report', '--db', 'empty.duckdb', '-o', 'report.html'], dir), /^bench: empty\.duckdb: no runs in it; run `bench run --db empty\.duckdb` first$/m);
      writeFileSync(path.join(dir, 'zero.duckdb'), '');
      expectOneLineError(bench(['report', '--db', 'zero.duckdb', '-o', 'report.html'], dir), /^bench: zero\.duckdb: an empty file, not a results database/m);
      expectOneLineError(bench(['report', '--db', path.join(cwd, 'r.duckdb'), '--batch', 'nope', '-o', 'report.html'], dir), /r\.duckdb: no runs in batch nope;/);
      expectNothingWritten(dir);
    });

    it('a missing or malformed baseline', () => {
      const dir = dirWithReport();
      const db = path.join(cwd, 'r.duckdb');
      expectOneLineError(bench(['report', '--db', db, '--baseline', 'gone.json', '-o', 'report.html'], dir), /^bench: --baseline gone\.json: no such file; pass a results database or a JSON file written by `bench baseline`$/m);
      writeFileSync(path.join(dir, 'bad.json'), '{"format": 1, "runs": {"raw|x": {"status": "done"}}}');
      expectOneLineError(bench(['report', '--db', db, '--baseline', 'bad.json', '-o', 'report.html'], dir), /^bench: bad\.json: runs\["raw\|x"\]\.status must be one of /m);
      expectNothingWritten(dir);
    });

    it('an output format it does not know, or a path it cannot write', () => {
      const dir = dirWithReport();
      const db = path.join(cwd, 'r.duckdb');
      // Checked before anything is read or written, the valid -o included.
      expectOneLineError(bench(['report', '--db', db, '-o', 'report.html', '-o', 'report.pdf'], dir), /^bench: -o report\.pdf: unknown output format "\.pdf"; use \.html, \.json, \.csv or \.md$/m);
      expectNothingWritten(dir);
      writeFileSync(path.join(dir, 'afile'), '');
      expectOneLineError(bench(['report', '--db', db, '-o', 'afile/report.html'], dir), /^bench: -o afile\/report\.html: afile is a file, not a folder \(ENOTDIR\)$/m);
      expectNothingWritten(dir);
    });
  });
});
