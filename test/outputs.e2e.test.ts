/**
 * Output paths end to end (issue 13): every path a command writes that cannot be created is one line
 * naming its flag, never a hang; an output never replaces an input of its command or a file of another
 * kind (exit 1, nothing written); and a killed merge's temp files are removed by the next write there.
 */
import { BASELINE_FORMAT } from '../src/gate/baseline.js';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type RunningServer } from '../src/server/index.js';
import { BIN, benchAsync, expectOneLineError, ROOT, storedRuns, tempDir, type CliResult } from './helpers/cli.js';

/** `bench ...args` in `cwd`, killed after a minute: a hang fails the test instead of stalling the suite. */
function bench(args: readonly string[], cwd: string): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000, killSignal: 'SIGKILL' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, cwd };
}

/** The README's text with its line breaks folded, for lines it shows (a wrapped inline example too). */
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
/** The one-line error of `r` is shown in the README as the tool prints it. */
const expectShownInReadme = (r: CliResult): void => expect(README).toContain(r.stderr.trim());

const bytes = (cwd: string, file: string): Buffer => readFileSync(path.join(cwd, file));
const isDuckDb = (cwd: string, file: string): boolean => bytes(cwd, file).toString('latin1', 8, 12) === 'DUCK';
const CHAT = path.join(ROOT, 'fixtures/trajectories/openai-chat/chat.json');
const run = (db: string, ...more: string[]): string[] => ['run', '-s', 'raw', '--scenario', 's.json', '--window', '16k', '-j', '1', '--db', db, ...more];

/** A folder with a small scenario (s.json), a results database of it (r.duckdb), a second one (results.duckdb) and a baseline (b.json). */
let cwd: string;
beforeAll(() => {
  cwd = tempDir('ctxbench-outputs-');
  for (const args of [['scenarios', 'gen', '--steps', '20', '-o', 's.json'], run('r.duckdb', '--no-report'), run('results.duckdb', '--no-report'), ['baseline', '--db', 'r.duckdb', '-o', 'b.json']]) {
    const r = bench(args, cwd);
    expect(r.code, r.stderr).toBe(0);
  }
}, 120_000);

describe.runIf(process.platform === 'linux')('an output path that cannot be created is one line naming its flag (regression: recursive mkdir spun forever under /proc)', () => {
  const cannot = (flag: string, file: string): RegExp =>
    new RegExp(`^bench: ${flag} ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot create the folder /proc/forbidden \\(ENOENT: the file system allows no folder there\\)$`, 'm');

  it('bench run: --db, --report', () => {
    const db = bench(run('/proc/forbidden/x.duckdb', '--no-report'), cwd);
    expectOneLineError(db, cannot('--db', '/proc/forbidden/x.duckdb'));
    expectShownInReadme(db);
    const r = bench(run('new.duckdb', '--report', '/proc/forbidden/r.html'), cwd);
    expectOneLineError(r, cannot('--report', '/proc/forbidden/r.html'));
    expect(existsSync(path.join(cwd, 'new.duckdb'))).toBe(false); // checked before anything ran
  });

  it('bench report -o, baseline -o, check --json-out / --markdown-out', () => {
    expectOneLineError(bench(['report', '--db', 'r.duckdb', '-o', '/proc/forbidden/r.html'], cwd), cannot('-o', '/proc/forbidden/r.html'));
    expectOneLineError(bench(['baseline', '--db', 'r.duckdb', '-o', '/proc/forbidden/b.json'], cwd), cannot('-o', '/proc/forbidden/b.json'));
    expectOneLineError(bench(['check', '--baseline', 'b.json', '--db', 'r.duckdb', '--json-out', '/proc/forbidden/x.json'], cwd), cannot('--json-out', '/proc/forbidden/x.json'));
    expectOneLineError(bench(['check', '--baseline', 'b.json', '--db', 'r.duckdb', '--markdown-out', '/proc/forbidden/x.md'], cwd), cannot('--markdown-out', '/proc/forbidden/x.md'));
  });

  it('bench scenarios gen -o, scenarios import -o, merge -o, export --parquet', () => {
    expectOneLineError(bench(['scenarios', 'gen', '--steps', '20', '-o', '/proc/forbidden/s.json'], cwd), cannot('-o', '/proc/forbidden/s.json'));
    expectOneLineError(bench(['scenarios', 'gen', '--count', '2', '--steps', '20', '-o', '/proc/forbidden/'], cwd), cannot('-o', '/proc/forbidden/'));
    expectOneLineError(bench(['scenarios', 'import', CHAT, '-o', '/proc/forbidden/c.json'], cwd), cannot('-o', '/proc/forbidden/c.json'));
    expectOneLineError(bench(['merge', 'r.duckdb', '-o', '/proc/forbidden/all.duckdb'], cwd), cannot('-o', '/proc/forbidden/all.duckdb'));
    expectOneLineError(bench(['export', '--db', 'r.duckdb', '--parquet', '/proc/forbidden/out'], cwd), cannot('--parquet', '/proc/forbidden/out'));
  });
});

describe('an output never replaces an input, nor a file of another kind (regression: each of these wrote over it and exited 0)', () => {
  it('bench run --db X --report X: refused before anything runs, whether X exists or not', async () => {
    const before = (await storedRuns(cwd, 'r.duckdb')).length;
    const same = bench(run('r.duckdb', '--report', 'r.duckdb'), cwd);
    expectOneLineError(same, /^bench: --report r\.duckdb: the same file as --db r\.duckdb; an output never replaces an input \(pass another path\)$/m);
    expectShownInReadme(same);
    expect(isDuckDb(cwd, 'r.duckdb')).toBe(true);
    expect(await storedRuns(cwd, 'r.duckdb')).toHaveLength(before);
    expectOneLineError(bench(run('fresh.duckdb', '--report', './fresh.duckdb'), cwd), /^bench: --report \.\/fresh\.duckdb: the same file as --db fresh\.duckdb;/m);
    expect(existsSync(path.join(cwd, 'fresh.duckdb'))).toBe(false);
  });

  it('bench run --report <its scenario>, or another results database', () => {
    const scenario = bytes(cwd, 's.json');
    expectOneLineError(bench(run('x.duckdb', '--report', 's.json'), cwd), /^bench: --report s\.json: the same file as --scenario s\.json; an output never replaces an input/m);
    expect(bytes(cwd, 's.json')).toEqual(scenario);
    expectOneLineError(bench(run('x.duckdb', '--report', 'results.duckdb'), cwd), /^bench: --report results\.duckdb: not replaced: the file there is not an HTML report \(remove it or pass another path\)$/m);
    expect(isDuckDb(cwd, 'results.duckdb')).toBe(true);
    expect(existsSync(path.join(cwd, 'x.duckdb'))).toBe(false);
  });

  it('bench baseline --db X -o X, and -o another kind of file', () => {
    expectOneLineError(bench(['baseline', '--db', 'r.duckdb', '-o', 'r.duckdb'], cwd), /^bench: -o r\.duckdb: the same file as --db r\.duckdb;/m);
    const other = bench(['baseline', '--db', 'r.duckdb', '-o', 'results.duckdb'], cwd);
    expectOneLineError(other, /^bench: -o results\.duckdb: not replaced: the file there is not a baseline /m);
    expectShownInReadme(other);
    expectOneLineError(bench(['baseline', '--db', 'r.duckdb', '-o', 's.json'], cwd), /^bench: -o s\.json: not replaced: the file there is not a baseline /m);
    expect(isDuckDb(cwd, 'r.duckdb') && isDuckDb(cwd, 'results.duckdb')).toBe(true);
  });

  it('bench check --json-out / --markdown-out over a results database or the baseline: refused, and neither output written', () => {
    const check = ['check', '--baseline', 'b.json', '--db', 'r.duckdb'];
    expectOneLineError(bench([...check, '--json-out', 'r.duckdb'], cwd), /^bench: --json-out r\.duckdb: the same file as --db r\.duckdb;/m);
    expectOneLineError(bench([...check, '--markdown-out', 'b.json'], cwd), /^bench: --markdown-out b\.json: the same file as --baseline b\.json;/m);
    expectOneLineError(bench([...check, '--json-out', 'ok.json', '--markdown-out', 'results.duckdb'], cwd), /^bench: --markdown-out results\.duckdb: not replaced: the file there is not a markdown summary /m);
    expect(existsSync(path.join(cwd, 'ok.json'))).toBe(false);
    expect(isDuckDb(cwd, 'r.duckdb') && isDuckDb(cwd, 'results.duckdb')).toBe(true);
    expect(JSON.parse(bytes(cwd, 'b.json').toString()).format).toBe(BASELINE_FORMAT);
  });

  it('bench scenarios gen -o and scenarios import -o over a results database, or import over its own input', () => {
    expectOneLineError(bench(['scenarios', 'gen', '--steps', '20', '-o', 'results.duckdb'], cwd), /^bench: -o results\.duckdb: not replaced: the file there is not a scenario /m);
    copyFileSync(CHAT, path.join(cwd, 'chat.json'));
    expectOneLineError(bench(['scenarios', 'import', 'chat.json', '-o', 'results.duckdb'], cwd), /^bench: -o results\.duckdb: not replaced: the file there is not a scenario /m);
    expectOneLineError(bench(['scenarios', 'import', 'chat.json', '-o', 'chat.json'], cwd), /^bench: -o chat\.json: the same file as the input chat\.json;/m);
    expect(bytes(cwd, 'chat.json')).toEqual(readFileSync(CHAT));
    expect(isDuckDb(cwd, 'results.duckdb')).toBe(true);
  });

  it('bench report -o over a scenario or the baseline it compares with', () => {
    const scenario = bytes(cwd, 's.json');
    expectOneLineError(bench(['report', '--db', 'r.duckdb', '-o', 's.json'], cwd), /^bench: -o s\.json: not replaced: the file there is not a JSON report /m);
    expectOneLineError(bench(['report', '--db', 'r.duckdb', '--baseline', 'b.json', '-o', 'b.json'], cwd), /^bench: -o b\.json: the same file as --baseline b\.json;/m);
    expect(bytes(cwd, 's.json')).toEqual(scenario);
  });

  it('a file of its own kind, or an empty one ($GITHUB_STEP_SUMMARY), is replaced', () => {
    const dir = tempDir('ctxbench-outputs-same-');
    for (const file of ['s.json', 'r.duckdb', 'b.json']) copyFileSync(path.join(cwd, file), path.join(dir, file));
    writeFileSync(path.join(dir, 'summary.md'), '');
    const twice = [
      ['report', '--db', 'r.duckdb', '-o', 'r.html', '-o', 'r.json', '-o', 'r.csv', '-o', 'r.md'],
      ['baseline', '--db', 'r.duckdb', '-o', 'b.json'],
      ['check', '--baseline', 'b.json', '--db', 'r.duckdb', '--json-out', 'bench.json', '--markdown-out', 'summary.md'],
      ['scenarios', 'gen', '--steps', '20', '--seed', '2', '-o', 's.json'],
      ['scenarios', 'import', CHAT, '-o', 'c.yaml'],
      ['export', '--db', 'r.duckdb', '--parquet', 'out'],
    ];
    for (const args of [...twice, ...twice]) {
      const r = bench(args, dir);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(bytes(dir, 'summary.md').toString()).toMatch(/^## ctxbench check: pass/);
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]); // no temp file left
  });

  it('bench export --parquet: a file in the folder that is not Parquet stays', () => {
    const dir = tempDir('ctxbench-outputs-parquet-');
    writeFileSync(path.join(dir, 'runs.parquet'), 'my notes\n');
    expectOneLineError(bench(['export', '--db', path.join(cwd, 'r.duckdb'), '--parquet', '.'], dir), /^bench: --parquet runs\.parquet: not replaced: the file there is not a Parquet file /m);
    expect(readdirSync(dir)).toEqual(['runs.parquet']);
  });
});

/**
 * Starts `bench merge a.duckdb -o out/all.duckdb` in `dir` and kills it (SIGKILL) as soon as its temp
 * file shows; resolves with the names left in out/, or undefined when the merge finished first.
 */
function killMidMerge(dir: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'merge', 'a.duckdb', '-o', 'out/all.duckdb'], { cwd: dir, stdio: 'ignore' });
    const out = path.join(dir, 'out');
    const poll = setInterval(() => {
      if (existsSync(out) && readdirSync(out).some((name) => name.includes('.merging-'))) child.kill('SIGKILL');
    }, 1);
    child.on('exit', (code) => {
      clearInterval(poll);
      resolve(code === null ? readdirSync(out) : undefined);
    });
  });
}

describe('bench merge after a kill -9', () => {
  it('a merge killed mid-way leaves its temp file, and the next write into that folder removes it', async () => {
    const dir = tempDir('ctxbench-outputs-kill-');
    copyFileSync(path.join(cwd, 'r.duckdb'), path.join(dir, 'a.duckdb'));
    let left: string[] | undefined;
    // The kill can come too late on a busy machine (the merge done): then the merge is simply run again.
    for (let attempt = 0; attempt < 10 && left === undefined; attempt += 1) left = await killMidMerge(dir);
    expect(left?.some((name) => /^\.all\.duckdb\.merging-\d+-[0-9a-f]{8}$/.test(name))).toBe(true);
    const r = bench(['merge', 'a.duckdb', '-o', 'out/results.duckdb'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(path.join(dir, 'out'))).toEqual(['results.duckdb']);
  });

  it("the next merge into that folder removes the killed merge's temp files, and only those", () => {
    const dir = tempDir('ctxbench-outputs-merge-');
    copyFileSync(path.join(cwd, 'r.duckdb'), path.join(dir, 'a.duckdb'));
    // What a merge killed mid-way leaves: its temp database and WAL, named after its (now dead) process.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const leftovers = [`.all.duckdb.merging-${dead}-0123abcd`, `.all.duckdb.merging-${dead}-0123abcd.wal`];
    for (const name of leftovers) copyFileSync(path.join(cwd, 'r.duckdb'), path.join(dir, name));
    const r = bench(['merge', 'a.duckdb', '-o', 'all.duckdb'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['a.duckdb', 'all.duckdb']);
  });
});

describe('--cache-dir that is a file', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('bench run says so in one line before any request, instead of "0 hits" and failed writes', async () => {
    server = await startModelServer({ models: [{ name: 'mock-model', contextLength: 32768 }] });
    const dir = tempDir('ctxbench-outputs-cache-');
    copyFileSync(path.join(cwd, 's.json'), path.join(dir, 's.json'));
    writeFileSync(path.join(dir, 'afile'), 'x');
    const r = await benchAsync([...run('r.duckdb', '--no-report'), '-m', 'ollama:chat:mock-model', '--host', server.url, '--cache-dir', 'afile'], dir);
    expectOneLineError(r, /^bench: --cache-dir afile: afile is a file, not a folder \(ENOTDIR\)$/m);
    expectShownInReadme(r);
    expect(existsSync(path.join(dir, 'r.duckdb'))).toBe(false);
  });

  it('bench cache clear says so too, instead of "Removed 0"', () => {
    const dir = tempDir('ctxbench-outputs-cache-');
    writeFileSync(path.join(dir, 'afile'), 'x');
    expectOneLineError(bench(['cache', 'clear', '--cache-dir', 'afile'], dir), /^bench: --cache-dir afile: afile is a file, not a folder \(ENOTDIR\)$/m);
    expect(readFileSync(path.join(dir, 'afile'), 'utf8')).toBe('x');
  });
});
