/**
 * End to end: the CI gate on the built `bench`: baseline a batch, check it against itself, against a
 * baseline that pretends to have been better, against batches that lack runs or ran otherwise, with a
 * tolerance file, in text and with --json; and the README's examples of it.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli/exit-codes.js';
import { CHECK_DOCUMENT } from '../src/cli/json/check.js';
import { bench, expectOneLineError, ROOT, tempDir, type CliResult } from './helpers/cli.js';

const SYNTHETIC = path.join(ROOT, 'scenarios/synthetic');
const CHANGED_SCENARIO = 'synthetic-s60-seed1-o400-f10';

/** The fenced blocks that follow `<!-- README example: name -->` in README.md, up to the next prose paragraph. */
function readmeExample(name: string): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`<!-- README example: ${name} -->`);
  expect(start, `README example ${name}`).toBeGreaterThan(-1);
  const blocks: string[] = [];
  // Other markers (`<!-- file: ... -->`, `<!-- output of: ... -->`) may stand between the marker and a block.
  const fence = /(?:\s*<!--[^]*?-->)*\s*```[a-z]*\n([^]*?)\n```\n/y;
  fence.lastIndex = readme.indexOf('\n', start) + 1;
  for (let m = fence.exec(readme); m; m = fence.exec(readme)) blocks.push(m[1]!);
  return blocks;
}

/** The whole of stdout as one JSON document (--json): nothing else may be printed there. */
const documentOf = (r: CliResult): unknown => JSON.parse(r.stdout);

const lastLine = (text: string): string => text.trim().split('\n').at(-1) ?? '';

/** A README `npx bench ...` line as arguments, its `# exit N` comment left out (no shell: no quotes in these examples). */
const benchArgs = (line: string): string[] => line.replace(/^npx bench /, '').replace(/\s+#.*$/, '').trim().split(/\s+/);

/** A baseline file's JSON with every run of `prefix` `factor` times its input (the cached share kept). */
function scaledInput(file: string, prefix: string, factor: number): object {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { runs: Record<string, { inputTokens: number; cachedInputTokens: number }> };
  for (const [key, run] of Object.entries(data.runs)) {
    if (!key.startsWith(prefix)) continue;
    run.inputTokens = Math.round(run.inputTokens * factor);
    run.cachedInputTokens = Math.round(run.cachedInputTokens * factor);
  }
  return data;
}

describe('bench baseline / bench check', () => {
  let cwd: string;
  beforeAll(() => {
    cwd = tempDir('ctxbench-gate-');
    // A copy of the suite with one scenario's content changed, not its steps (one more tag).
    const changed = path.join(cwd, 'changed-scenarios');
    cpSync(SYNTHETIC, changed, { recursive: true });
    const file = path.join(changed, `${CHANGED_SCENARIO}.json`);
    const scenario = JSON.parse(readFileSync(file, 'utf8')) as { tags: string[] };
    writeFileSync(file, JSON.stringify({ ...scenario, tags: [...scenario.tags, 'reworded'] }));
    for (const args of [
      ['-s', 'raw,masking', '--scenario', SYNTHETIC, '--db', 'r.duckdb'],
      ['-s', 'raw', '--scenario', SYNTHETIC, '--db', 'raw-only.duckdb'],
      ['-s', 'raw,masking', '--scenario', changed, '--param', 'masking.softThreshold=0.5', '--db', 'changed.duckdb'],
      ['-s', 'raw,masking', '--scenario', SYNTHETIC, '--shard', '1/2', '--db', 'shard-1.duckdb'],
    ]) {
      const run = bench(['run', ...args, '--window', '16k', '--no-report'], cwd);
      expect(run.code, run.stderr).toBe(0);
    }
  }, 180_000);

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
    expect(data.format).toBe(2);
    expect(data.command).toMatch(/^bench run -s raw,masking /);
    const keys = Object.keys(data.runs);
    expect(keys).toEqual([...keys].sort());
    expect(keys.filter((k) => k.startsWith('masking|'))).toHaveLength(5);
    expect(Object.keys(data.runs[keys[0]!])).toEqual([
      'config', 'status', 'steps', 'inputTokens', 'outputTokens', 'overheadTokens', 'cachedInputTokens', 'peakContextPct',
      'probesPassed', 'probesTotal', 'referencePresent', 'referenceTotal', 'rereads', 'rereadInputTokens', 'costUsd',
    ]);
    const masking = data.runs[keys.find((k) => k.startsWith('masking|'))!].config;
    expect(Object.keys(masking)).toEqual(['params', 'window', 'model', 'backend', 'backendOptions', 'encoding', 'calibrationFactor', 'calibrationOverhead', 'priceModel', 'scenarioDigest', 'replay', 'probes']);
    expect(masking).toMatchObject({ window: 16384, backend: 'mock', backendOptions: { recall: 0.8, summaryTokens: 800, seed: 1 }, encoding: 'o200k_base' });
    expect(masking.params.softThreshold).toBe(0.7);
    expect(masking.scenarioDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a baseline of a batch missing runs of its matrix: one shard (or an interrupted batch) would gate the rest no more', () => {
    expectOneLineError(
      bench(['baseline', '--db', 'shard-1.duckdb', '-o', 'shard.json'], cwd),
      /^bench: shard-1\.duckdb batch matrix-[0-9a-f]+ lacks \d+ of the \d+ runs of its 2 strategies x \d scenarios: it was interrupted \(finish it with --resume\) or is one shard \(merge the shards first\)/,
    );
    expect(existsSync(path.join(cwd, 'shard.json'))).toBe(false);
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
    writeFileSync(path.join(cwd, 'better.json'), JSON.stringify(scaledInput(path.join(cwd, 'b.json'), key, 0.9), null, 2));
    const r = bench(['check', '--baseline', 'better.json', '--db', 'r.duckdb'], cwd);
    expect(r.code).toBe(100);
    expect(r.stdout).toMatch(new RegExp(`REGRESSION\\s+inputTokens\\s+${key.replace(/[|.]/g, '\\$&')}\\s`));
    expect(r.stdout).toContain('1 regression, 0 improvements over 10 runs compared');
    // A looser tolerance lets it pass.
    expect(bench(['check', '--baseline', 'better.json', '--db', 'r.duckdb', '--tolerance', 'inputTokens=rel:15%'], cwd).code).toBe(0);
  });

  it('fails with exit 101 and one short line when baseline runs are missing, unless --allow-missing', () => {
    const r = bench(['check', '--baseline', 'b.json', '--db', 'raw-only.duckdb', '--markdown-out', 'missing.md'], cwd);
    expect(r.code, r.stderr).toBe(101);
    expect(r.stdout).toMatch(/^5 of 10 baseline runs missing: masking\|synthetic-s120-seed2-o100-t0\.2-f15-u0\.06, masking\|\S+, masking\|\S+, masking\|\S+, masking\|\S+$/m);
    expect(r.stdout).toContain('0 regressions, 0 improvements over 5 runs compared; 5 missing from the candidate');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('FAIL: 5 of 10 baseline runs missing (pass --allow-missing to gate the runs present)');
    expect(readFileSync(path.join(cwd, 'missing.md'), 'utf8')).toMatch(/^## ctxbench check: FAIL\n/);
    const allowed = bench(['check', '--baseline', 'b.json', '--db', 'raw-only.duckdb', '--allow-missing'], cwd);
    expect(allowed.code, allowed.stdout).toBe(0);
    expect(allowed.stdout).toContain('5 of 10 baseline runs missing: ');
  });

  it('refuses a baseline without runs: it would pass having compared nothing', () => {
    writeFileSync(path.join(cwd, 'empty.json'), JSON.stringify({ format: 2, created: '', version: '0.1.0', command: 'bench run', runs: {} }));
    expectOneLineError(
      bench(['check', '--baseline', 'empty.json', '--db', 'r.duckdb'], cwd),
      /^bench: empty\.json: "runs" is empty: a baseline without runs gates nothing; write it with `bench baseline` from a batch that has runs$/m,
    );
  });

  it('names changed parameters and scenario content instead of counting regressions (exit 101); --accept-changes passes', () => {
    const r = bench(['check', '--baseline', 'b.json', '--db', 'changed.duckdb'], cwd);
    expect(r.code, r.stderr).toBe(101);
    expect(r.stdout).not.toContain('REGRESSION');
    expect(r.stdout).toMatch(/^configuration changed: masking\.softThreshold 0\.7 -> 0\.5 \(5 runs: masking\|\S+, masking\|\S+, masking\|\S+, masking\|\S+, masking\|\S+\)$/m);
    expect(r.stdout).toMatch(new RegExp(`^configuration changed: scenario ${CHANGED_SCENARIO} content [0-9a-f]{8} -> [0-9a-f]{8} \\(2 runs: masking\\|${CHANGED_SCENARIO}, raw\\|${CHANGED_SCENARIO}\\)$`, 'm'));
    expect(r.stdout).toContain('0 regressions, 0 improvements over 4 runs compared; 0 missing from the candidate, 6 with a changed configuration, 0 not in the baseline');
    expect(r.stdout.trim().split('\n').at(-1)).toBe(
      'FAIL: 6 runs with a changed configuration (if intended: pass --accept-changes; then make this batch the baseline: bench baseline --db changed.duckdb -o b.json)',
    );
    const accepted = bench(['check', '--baseline', 'b.json', '--db', 'changed.duckdb', '--accept-changes'], cwd);
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(accepted.stdout.trim().split('\n').at(-1)).toBe(
      'Accepted: 6 runs with a changed configuration, not compared; make this batch the baseline: bench baseline --db changed.duckdb -o b.json',
    );
  });

  it('names the changes at the top of the report’s baseline diff too', () => {
    const r = bench(['report', '--db', 'changed.duckdb', '--baseline', 'b.json', '-o', 'changed.html', '-o', 'changed.md'], cwd);
    expect(r.code, r.stderr).toBe(0);
    const notes = /<ul class="baseline-notes">([^]*?)<\/ul>/.exec(readFileSync(path.join(cwd, 'changed.html'), 'utf8'))![1]!;
    expect(notes).toContain('<li>configuration changed: masking.softThreshold 0.7 -&gt; 0.5 (5 runs: ');
    expect(readFileSync(path.join(cwd, 'changed.md'), 'utf8')).toContain('- configuration changed: masking.softThreshold 0.7 -&gt; 0.5 (5 runs: ');
  });

  it('still reads a format 1 baseline: metrics compared as before, configurations said to be unknown', () => {
    const data = JSON.parse(readFileSync(path.join(cwd, 'b.json'), 'utf8'));
    for (const run of Object.values(data.runs) as { config?: unknown }[]) delete run.config;
    writeFileSync(path.join(cwd, 'format1.json'), JSON.stringify({ ...data, format: 1 }));
    const r = bench(['check', '--baseline', 'format1.json', '--db', 'r.duckdb'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Configurations unknown: the baseline is format 1, which keeps none, so a changed setting cannot be named; rewrite it: bench baseline --db r.duckdb -o format1.json',
    );
    expect(r.stdout).toContain('0 regressions, 0 improvements over 10 runs compared');
  });

  it('reads the tolerance file beside the baseline (the README’s), or the one --tolerances names; the flags win', () => {
    const [yaml] = readmeExample('tolerances');
    const [where] = /^# ([^\s,]+)/.exec(yaml!)!.slice(1);
    expect(where).toBe('.ci/ctxbench.tolerances.yaml');
    mkdirSync(path.join(cwd, '.ci'), { recursive: true });
    writeFileSync(path.join(cwd, where!), yaml!);
    // raw's input 4% above the baseline: within the file's 5%; masking's too: beyond its own 1%.
    writeFileSync(path.join(cwd, '.ci/baseline.json'), JSON.stringify(scaledInput(path.join(cwd, 'b.json'), 'raw|', 1 / 1.04)));
    const check = (...more: string[]) => bench(['check', '--baseline', '.ci/baseline.json', '--db', 'r.duckdb', ...more], cwd);
    const raw = check();
    expect(raw.code, raw.stdout).toBe(0);
    // The README's file has an entry for presets this batch did not run: named, applied to none.
    expect(raw.stdout.split('\n')[1]).toBe('Tolerances: .ci/ctxbench.tolerances.yaml (matching no run, so applied to none: strategies jetbrains-*)');
    expect(check('--tolerance', 'inputTokens=rel:2%').code).toBe(100);
    writeFileSync(path.join(cwd, 'strict.yaml'), 'defaults:\n  inputTokens: rel:3%\n');
    const strict = check('--tolerances', 'strict.yaml');
    expect(strict.code).toBe(100);
    expect(strict.stdout).toContain('Tolerances: strict.yaml');
    writeFileSync(path.join(cwd, '.ci/baseline.json'), JSON.stringify(scaledInput(path.join(cwd, '.ci/baseline.json'), 'masking|', 1 / 1.04)));
    const masking = check();
    expect(masking.code).toBe(100);
    expect(masking.stdout).toMatch(/^5 regressions, 0 improvements over 10 runs compared/m);
    expect(masking.stdout.match(/REGRESSION\s+inputTokens\s+masking\|/g)).toHaveLength(5);
  });

  it('a malformed or missing tolerance file is one line naming the file and field (the README’s message)', () => {
    mkdirSync(path.join(cwd, 'bad/.ci'), { recursive: true });
    writeFileSync(path.join(cwd, 'bad/.ci/baseline.json'), readFileSync(path.join(cwd, 'b.json')));
    writeFileSync(path.join(cwd, 'bad/.ci/ctxbench.tolerances.yaml'), 'defaults:\n  inputTokns: rel:5%\n');
    const r = bench(['check', '--baseline', '.ci/baseline.json', '--db', '../r.duckdb'], path.join(cwd, 'bad'));
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const message = r.stderr.trim();
    expect(readme).toContain(`(\`${message}\`)`);
    expectOneLineError(r, /^bench: \.ci\/ctxbench\.tolerances\.yaml: defaults: unknown metric inputTokns \(known: steps, /);
    expectOneLineError(bench(['check', '--baseline', 'b.json', '--db', 'r.duckdb', '--tolerances', 'nope.yaml'], cwd), /^bench: --tolerances nope\.yaml: cannot read \(ENOENT\)$/m);
  });

  it('exits 1 with one line on a missing or malformed baseline or a bad tolerance', () => {
    expectOneLineError(bench(['check', '--baseline', 'nope.json', '--db', 'r.duckdb'], cwd), /nope\.json: cannot read the baseline \(no such file/);
    writeFileSync(path.join(cwd, 'broken.json'), '{"format": 1, "runs": ');
    expectOneLineError(bench(['check', '--baseline', 'broken.json', '--db', 'r.duckdb'], cwd), /broken\.json: not valid JSON/);
    expectOneLineError(bench(['check', '--baseline', 'b.json', '--db', 'r.duckdb', '--tolerance', 'tokens=5'], cwd), /--tolerance tokens=5: expected/);
  });

  // --json: the same batches and baseline, one document on stdout that its schema accepts.
  describe('bench check --json', () => {
    it('passes: exit 0, the document says so; the --json-out and --markdown-out files are written too', () => {
      const r = bench(['check', '--json', '--baseline', 'b.json', '--db', 'r.duckdb', '--json-out', 'bench.json', '--markdown-out', 'summary.md'], cwd);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const doc = CHECK_DOCUMENT.parse(documentOf(r));
      expect(doc).toMatchObject({ kind: 'check', format: 1, exitCode: 0, passed: true, verdict: null, compared: 10, tolerances: null, regressions: [], missingFromCandidate: [] });
      expect(doc.baseline).toMatchObject({ file: 'b.json', format: 2, runs: 10, command: expect.stringMatching(/^bench run -s raw,masking /) });
      expect(doc.candidate).toMatchObject({ database: 'r.duckdb', runs: 10 });
      expect(doc.update).toBe('bench baseline --db r.duckdb -o b.json');
      expect(existsSync(path.join(cwd, 'bench.json')) && existsSync(path.join(cwd, 'summary.md'))).toBe(true);
    });

    it('regressions: exit 100, each run and metric with both values and its unit, the verdict line the text prints', () => {
      const data = JSON.parse(readFileSync(path.join(cwd, 'b.json'), 'utf8')) as { runs: Record<string, { inputTokens: number }> };
      const key = Object.keys(data.runs).find((k) => k.startsWith('masking|'))!;
      const candidate = data.runs[key]!.inputTokens;
      const better = scaledInput(path.join(cwd, 'b.json'), key, 0.9) as typeof data;
      writeFileSync(path.join(cwd, 'better.json'), JSON.stringify(better, null, 2));
      const run = better.runs[key]!;
      const r = bench(['check', '--json', '--baseline', 'better.json', '--db', 'r.duckdb'], cwd);
      expect(r.code).toBe(EXIT_CODES.regressions);
      const doc = CHECK_DOCUMENT.parse(documentOf(r));
      expect(doc).toMatchObject({ exitCode: EXIT_CODES.regressions, passed: false, fails: { regressions: true, missingRuns: false, changedConfigurations: false } });
      expect(doc.regressions).toEqual([{ key, metric: 'inputTokens', unit: 'count', baseline: run.inputTokens, candidate, delta: candidate - run.inputTokens }]);
      const text = bench(['check', '--baseline', 'better.json', '--db', 'r.duckdb'], cwd);
      expect(doc.verdict).toBe(lastLine(text.stdout));
    });

    it('baseline runs missing: exit 101, the runs listed', () => {
      const r = bench(['check', '--json', '--baseline', 'b.json', '--db', 'raw-only.duckdb'], cwd);
      expect(r.code).toBe(EXIT_CODES.incomparable);
      const doc = CHECK_DOCUMENT.parse(documentOf(r));
      expect(doc).toMatchObject({ exitCode: EXIT_CODES.incomparable, fails: { regressions: false, missingRuns: true, changedConfigurations: false }, compared: 5 });
      expect(doc.missingFromCandidate).toHaveLength(5);
      expect(doc.missingFromCandidate.every((key) => key.startsWith('masking|'))).toBe(true);
      expect(doc.verdict).toBe('FAIL: 5 of 10 baseline runs missing (pass --allow-missing to gate the runs present)');
    });
  });
});

describe('README: the gate against a changed configuration', () => {
  it('prints what the README shows, and exits 101', () => {
    const [commands, output] = readmeExample('gate-changed');
    const cwd = tempDir('ctxbench-gate-readme-');
    mkdirSync(path.join(cwd, '.ci'));
    cpSync(path.join(ROOT, '.ci/baseline.json'), path.join(cwd, '.ci/baseline.json'));
    const [run, check] = commands!.split('\n').map(benchArgs);
    expect(bench(run!, cwd).code).toBe(0);
    const r = bench(check!, cwd);
    expect(r.code, r.stderr).toBe(101);
    expect(r.stdout.split('\n').slice(1, -1)).toEqual(output!.split('\n'));
  }, 120_000);
});
