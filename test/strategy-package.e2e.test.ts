/**
 * The package as a user gets it ("Done when" of issue 15): `npm pack` of this checkout installed in a
 * fresh folder outside it (with the TypeScript the project pins, from the npm cache `npm ci` filled),
 * the README's "Write your own strategy" example written there as it is shown, type-checked with a
 * minimal strict NodeNext tsconfig, and run by the installed `bench` on the bundled scenarios beside
 * the example the package ships (examples/strategies/, its `ctxbench` import resolved by the package's
 * self-reference), then `bench verify` passes it and fails a broken copy with a counterexample. The folder is
 * removed afterwards. Packing and installing take about 20 s here.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, storedRuns } from './helpers/cli.js';

const README_EXAMPLE = ((): string => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Write your own strategy\n'));
  return /<!-- run by: test\/strategy-package\.e2e\.test\.ts -->\n```ts\n([\s\S]*?)```/.exec(section)![1]!;
})();
const TYPESCRIPT = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.typescript!;

/** The example as the package ships it (package.json "files"). */
const EXAMPLE = 'node_modules/ctxbench/examples/strategies/keep-recent-rounds.ts';

let folder: string;
const run = (command: string, args: readonly string[]) => spawnSync(command, args, { cwd: folder, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'ctxbench-package-'));
  // --ignore-scripts: `prepare` would rebuild dist/ under the other e2e tests; the global setup built it.
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', folder], { cwd: ROOT, stdio: 'ignore' });
  const tarball = readdirSync(folder).find((file) => file.endsWith('.tgz'))!;
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', `./${tarball}`, `typescript@${TYPESCRIPT}`], { cwd: folder, stdio: 'ignore' });
}, 180_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the packed package, installed elsewhere', () => {
  it("type-checks the README's strategy with a minimal strict NodeNext tsconfig and runs it with the installed bench, beside the shipped example", async () => {
    writeFileSync(path.join(folder, 'it.ts'), README_EXAMPLE);
    // The shipped example is checked too, as a user who copies it into their project would.
    copyFileSync(path.join(folder, EXAMPLE), path.join(folder, 'example.ts'));
    writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true }, include: ['it.ts', 'example.ts'] }));
    const tsc = run('npx', ['tsc', '--noEmit']);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);

    const bench = run('npx', ['bench', 'run', '--strategy', `./it.ts,${EXAMPLE}`, '--window', '16k', '--no-report', '--db', 'it.duckdb']);
    expect(bench.stderr).not.toMatch(/error/i);
    expect(bench.status).toBe(0);
    const runs = await storedRuns(folder, 'it.duckdb');
    expect(runs.length).toBeGreaterThan(0);
    expect(new Set(runs.map((r) => `${r.config.strategy} ${r.config.strategySource?.file}`))).toEqual(new Set(['my-strategy it.ts', `keep-recent-rounds ${EXAMPLE}`]));
    expect(runs.filter((r) => r.summary.status === 'error' || r.summary.status === 'invalid_context')).toEqual([]);

    const verify = run('npx', ['bench', 'verify', './it.ts', '--runs', '20', '--seed', '1']);
    expect(verify.stdout).toContain('pass  pairing');
    expect(verify.stdout).not.toContain('FAIL');
    expect(verify.status).toBe(0);
  }, 180_000);

  it('fails a broken copy of the README strategy in bench verify, with the counterexample and exit 102', () => {
    // The copy drops the results it replaced: their calls go unanswered.
    const broken = README_EXAMPLE.replace('return { messages: out, events };', "return { messages: out.filter((m) => m.origin.source !== 'strategy'), events };");
    expect(broken).not.toBe(README_EXAMPLE);
    writeFileSync(path.join(folder, 'broken.ts'), broken);
    const verify = run('npx', ['bench', 'verify', './broken.ts', '--runs', '50', '--seed', '1']);
    expect(verify.stdout).toContain('FAIL  pairing');
    expect(verify.stdout).toMatch(/rule broken: \w+/);
    expect(verify.stdout).toMatch(/counterexample \(case \d+ failed, shrunk \d+ times\)/);
    expect(verify.stdout).toContain('reproduce: bench verify ./broken.ts --seed 1');
    expect(verify.status).toBe(102);
  }, 180_000);
});
