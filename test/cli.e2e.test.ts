/**
 * End to end: the built `bench` binary spawned as a user runs it, on the bundled real trajectories.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ResultStore } from '../src/store/result-store.js';
import { EXIT_CODE_MEANINGS, EXIT_CODES } from '../src/cli/exit-codes.js';
import { BIN, bench, expectOneLineError, ROOT, signalWhen, storedRuns, tempDir, type CliResult } from './helpers/cli.js';
import { PRESET_NAMES, STRATEGY_NAMES } from '../src/strategies/index.js';
import { markdownExamples, missingOutput, printedText, type Example } from './helpers/examples.js';

const MINI_SWE_FIXTURES = path.join(ROOT, 'fixtures/trajectories/mini-swe-agent-gemini3pro');
const README_EXAMPLES = markdownExamples(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'README.md');

/**
 * What `r` printed shows the README's block of output of `command`: the two matrices below are the
 * README's, and test/examples.e2e.test.ts leaves their blocks to this file rather than replay them twice.
 */
function expectReadmeOutput(command: string, r: CliResult): void {
  const block = README_EXAMPLES.find((e) => e.kind === 'output' && e.commands.length === 1 && e.commands[0]!.text === command);
  expect(block, `README.md: no <!-- output of: ${command} --> block`).toBeDefined();
  expect(missingOutput((block as Extract<Example, { kind: 'output' }>).text, printedText([r.stdout, r.stderr])), `a line README.md shows that ${command} does not print`).toBeUndefined();
}

describe('bench run (the README main job)', () => {
  let main: CliResult;
  beforeAll(() => {
    main = bench(['run', '--window', '32k']);
  }, 120_000);

  it('prints the summary table and the paths it wrote', () => {
    expect(main.code).toBe(0);
    for (const header of ['strategy', 'steps', 'sessions', 'restarts', 'total input tokens', 'peak ctx', 'overflowed']) {
      expect(main.stdout).toContain(header);
    }
    const db = /Results: (.+)/.exec(main.stdout)![1]!;
    const html = /Report:\s+(.+)/.exec(main.stdout)![1]!;
    expect(db).toBe(path.join(main.cwd, 'reports/ctxbench.duckdb'));
    expect(existsSync(db) && existsSync(html)).toBe(true);
    expect(readFileSync(html, 'utf8')).toContain('<html');
  });

  it('prints what the README shows for it', () => {
    expectReadmeOutput('npx bench run --window 32k', main);
  });

  it('reports the token-count error against the recorded provider usage', () => {
    // Before and after the per-model correction fitted on that usage (issue 4: about 14% -> about 3%), in
    // sample and out of sample (issue 14: each scenario's requests estimated by the fit on the others).
    const fit = /Token calibration: gemini-3-pro-preview x(\d\.\d+), fitted on (\d+) recorded requests of 4 scenarios: mean error (-\d+\.\d)% -> [+-]\d+\.\d%, mean absolute (\d+\.\d)% -> (\d+\.\d)% in sample, (\d+\.\d)% out of sample/.exec(main.stdout);
    expect(fit).not.toBeNull();
    const [, factor, , signedBefore, , absAfter, outOfSample] = fit!.map(Number);
    expect(factor).toBeGreaterThan(1.1);
    expect(signedBefore).toBeLessThan(-10);
    expect(absAfter).toBeLessThan(4);
    expect(outOfSample).toBeLessThan(5);
    expect(main.stdout).toMatch(/Replayed token counts vs recorded provider usage \(o200k_base, calibrated, raw replay, \d+ steps of \d+ scenarios\): mean absolute error \d+\.\d%/);
  });

  it('stores every step: raw overflows where masking does not', async () => {
    const store = await ResultStore.openExisting(path.join(main.cwd, 'reports/ctxbench.duckdb'));
    const runs = await store.loadRuns();
    await store.close();
    const raw = runs.filter((r) => r.config.strategy === 'raw');
    const masking = runs.filter((r) => r.config.strategy === 'masking');
    expect(raw.length).toBeGreaterThanOrEqual(5);
    expect(masking).toHaveLength(raw.length);
    expect(raw.filter((r) => r.summary.status === 'overflow').length).toBeGreaterThanOrEqual(3);
    for (const r of masking) {
      const twin = raw.find((x) => x.config.scenarioId === r.config.scenarioId)!;
      if (twin.summary.status === 'overflow') expect(r.summary.status).toBe('completed');
      expect(r.steps).toHaveLength(r.summary.steps);
    }
  });
});

// One run of the whole matrix (the longest the suite makes, the README's), read by every test below.
describe('bench run --strategy all', () => {
  let all: CliResult;
  beforeAll(() => {
    all = bench(['run', '--strategy', 'all', '--window', '32k']);
  }, 180_000);

  it('prints what the README shows for it', () => {
    expect(all.code, all.stderr).toBe(0);
    expectReadmeOutput('npx bench run --strategy all --window 32k', all);
  });

  it('runs every strategy and preset over the bundled scenarios with zero pairing violations', async () => {
    expect(all.code, all.stderr).toBe(0);
    const runs = await storedRuns(all.cwd, 'reports/ctxbench.duckdb');
    const names = new Set(runs.map((run) => run.config.strategy));
    const scenarios = new Set(runs.map((run) => run.config.scenarioId)).size;
    expect(scenarios).toBeGreaterThanOrEqual(12); // 7 recorded + 5 synthetic
    expect([...names].sort()).toEqual([...STRATEGY_NAMES, ...PRESET_NAMES].sort());
    for (const run of runs) {
      expect(run.summary.status).not.toBe('invalid_context');
      expect(run.events.filter((e) => e.kind === 'pairing_violation')).toEqual([]);
    }
    // Every strategy that checks the context before each request survives a 32k window on every bundled
    // task (continuation and checkpoint-restart check after a response, as their seeds say, so one
    // large tool result can still overflow them).
    for (const name of ['masking', 'summarization', 'progressive-removal', 'window', 'hybrid', 'deepagents', 'codex', 'goose', 'jetbrains-masking']) {
      expect(runs.filter((run) => run.config.strategy === name).map((run) => run.summary.status)).toEqual(Array(scenarios).fill('completed'));
    }
  });

  // How fast it renders is scripts/bench-speed.ts's to measure; a test asserts what the file holds.
  it('bench report renders every run of it (100+), into a folder it creates, in a file small enough to attach to a CI job', () => {
    const r = bench(['report', '--db', 'reports/ctxbench.duckdb', '-o', 'out/all.html'], all.cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Report: .*out\/all\.html \(\d{3,} runs\)/);
    // 1.3 MB for the 180 runs of the bundled suite.
    expect(statSync(path.join(all.cwd, 'out/all.html')).size).toBeLessThan(2.5 * 1024 * 1024);
  });
});

describe('bench run with a config file', () => {
  it('takes its settings from ctxbench.config.yaml, with flags winning, and rejects unknown keys', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'ctxbench-config-'));
    const scenario = path.join(ROOT, 'scenarios/synthetic/synthetic-s60-seed1-o400-f10.json');
    writeFileSync(path.join(cwd, 'ctxbench.config.yaml'), `window: 16k\nstrategy: [raw, masking]\nscenario: ${scenario}\nreport: false\ndb: cfg.duckdb\n`);
    const fromFile = bench(['run'], cwd);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).not.toContain('Report:');
    // A file found in the folder shapes the results unasked: the output names it and what it set.
    expect(fromFile.stdout).toContain('Config: ctxbench.config.yaml (strategy, scenario, window, db, report)\n');
    const flagWins = bench(['run', '-s', 'masking'], cwd);
    expect(flagWins.code).toBe(0);
    const store = await ResultStore.openExisting(path.join(cwd, 'cfg.duckdb'));
    const runs = await store.loadRuns();
    await store.close();
    // Runs load in start order, and on worker threads raw and masking start together.
    expect(runs.map((r) => [r.config.strategy, r.config.window]).sort()).toEqual([['masking', 16384], ['masking', 16384], ['raw', 16384]]);
    writeFileSync(path.join(cwd, 'bad.yaml'), 'windw: 16k\n');
    expectOneLineError(bench(['run', '--config', 'bad.yaml'], cwd), /^bench: bad\.yaml: unknown setting windw \(known: /);
    // A bad value from the file names the file and its setting, not a flag the user never typed.
    writeFileSync(path.join(cwd, 'values.yaml'), 'window: abc\nconcurrency: 1000000000\n');
    expectOneLineError(bench(['run', '--config', 'values.yaml', '--no-report'], cwd), /^bench: values\.yaml: window abc: expected a whole number from 256 to /m);
    expectOneLineError(bench(['run', '--config', 'values.yaml', '--window', '16k', '--no-report'], cwd), /^bench: values\.yaml: concurrency 1000000000: expected a whole number from 1 to /m);
    expectOneLineError(bench(['run', '--config', 'values.yaml', '--window', 'xyz'], cwd), /^bench: --window xyz: expected /m);
  });

  it('takes a negated flag by its camelCase name (noReport: true for --no-report), for bench sweep too', () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'ctxbench-config-'));
    const scenario = path.join(ROOT, 'scenarios/synthetic/synthetic-s60-seed1-o400-f10.json');
    writeFileSync(path.join(cwd, 'ctxbench.config.yaml'), `window: 16k\nscenario: ${scenario}\nnoReport: true\nnoCalibrate: true\ngrid: { keep: "5,10" }\n`);
    const r = bench(['sweep', '--preset', 'jetbrains-masking'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^jetbrains-masking \(clear-tool-results · keep=5\)\s/m);
    expect(r.stdout).not.toContain('Report:');
    expect(existsSync(path.join(cwd, 'reports', 'ctxbench-report.html'))).toBe(false);
  });
});

describe('bench subcommands', () => {
  it('runs as `npx bench` from the project, as the README says (the bin is executable)', () => {
    // Without scripts: npx installs the project into its cache the first time, and that runs its
    // `prepare` (the build), which would empty dist/ under the test files running beside this one.
    const r = spawnSync('npx', ['--no-install', 'bench', '--version'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_ignore_scripts: 'true' } });
    expect(r.stderr).not.toMatch(/Permission denied/);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('output piped into a reader that stops early (`| head -1`) ends quietly, without a stack', () => {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" scenarios gen --steps 500 | head -1`], { encoding: 'utf8' });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toBe('');
  });

  it('strategies lists every strategy with its parameters and defaults', () => {
    const r = bench(['strategies']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^raw: /m);
    expect(r.stdout).toMatch(/^masking \(seed 000\): /m);
    expect(r.stdout).toContain('--param masking.softThreshold=0.7');
    expect(r.stdout).toContain('--param masking.carryoverTurns=5');
    for (const name of STRATEGY_NAMES) expect(r.stdout).toMatch(new RegExp(`^${name}( \\(seed \\d+\\))?: `, 'm'));
    for (const name of PRESET_NAMES) expect(r.stdout).toMatch(new RegExp(`^${name} = `, 'm'));
    // Each preset says where it comes from and what of its source it does not reproduce.
    expect(r.stdout.match(/^ {2}Source: /gm)).toHaveLength(PRESET_NAMES.length);
    expect(r.stdout.match(/^ {2}Not reproduced: /gm)).toHaveLength(PRESET_NAMES.length);
  });

  it('scenarios list shows the bundled scenarios', () => {
    const r = bench(['scenarios', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/recorded peak/);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(2 + 5);
  });

  it('scenarios import names the format it detected and writes a valid scenario', () => {
    const source = path.join(MINI_SWE_FIXTURES, 'trajs/django__django-14155/django__django-14155.traj.json');
    const out = bench(['scenarios', 'import', source, '-o', 'imported.yaml']);
    expect(out.stderr).toMatch(/detected format mini-swe-agent-1/);
    expect(out.code).toBe(0);
    const check = bench(['scenarios', 'validate', 'imported.yaml'], out.cwd);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^ok\s+imported\.yaml \(ctxbench, \d+ steps\)/);
  });

});

describe('scenario folders walked like dataset roots: junk skipped, links followed, globs with brace sets', () => {
  const SYNTHETIC = path.join(ROOT, 'scenarios/synthetic');
  /** data/ holds a scenario, two files of no known format and a README; data/linked/ is a link to a folder with another scenario, and a link back to data/ (a cycle). */
  const dataset = (): string => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'ctxbench-dataset-'));
    mkdirSync(path.join(cwd, 'data/trajs'), { recursive: true });
    mkdirSync(path.join(cwd, 'elsewhere'));
    copyFileSync(path.join(SYNTHETIC, 'synthetic-s60-seed1-o400-f10.json'), path.join(cwd, 'data/trajs/s60.json'));
    copyFileSync(path.join(SYNTHETIC, 'synthetic-s40-seed7-o600-x6000-f20-mclaude-sonnet-4.json'), path.join(cwd, 'elsewhere/s40.json'));
    writeFileSync(path.join(cwd, 'data/results_summary.json'), '{"resolved": [], "unresolved": ["x"]}');
    writeFileSync(path.join(cwd, 'data/metadata.json'), '{"agent_class": "CodeActAgent"}');
    writeFileSync(path.join(cwd, 'data/README.md'), '# a dataset');
    symlinkSync(path.join(cwd, 'elsewhere'), path.join(cwd, 'data/linked'));
    symlinkSync(path.join(cwd, 'data'), path.join(cwd, 'elsewhere/back'));
    return cwd;
  };

  it('regression: bench run --scenario <folder> runs every scenario in it and its linked folders, and sums up the skipped files in one line (a results_summary.json failed the run)', async () => {
    const r = bench(['run', '--scenario', 'data/', '-s', 'raw', '--window', '32k', '--no-report', '--db', 'r.duckdb'], dataset());
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Report:'); // --no-report
    // One line before the progress lines (one per finished run, not on a terminal).
    expect(r.stderr.split('\n').filter((line) => !line.startsWith('['))).toEqual(['bench: skipped 2 file(s) of no known format: data/metadata.json, data/results_summary.json', '']);
    expect((await storedRuns(r.cwd)).map((run) => run.config.scenarioId).sort()).toEqual(['synthetic-s40-seed7-o600-x6000-f20-mclaude-sonnet-4', 'synthetic-s60-seed1-o400-f10']);
  });

  it('bench scenarios validate <folder> lists each skipped file, and counts them: not failures', () => {
    const r = bench(['scenarios', 'validate', 'data'], dataset());
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'ok    data/linked/s40.json (ctxbench, 40 steps)',
        'skip  data/metadata.json (no known format)',
        'skip  data/results_summary.json (no known format)',
        'ok    data/trajs/s60.json (ctxbench, 60 steps)',
        '2 scenario file(s) valid, 2 skipped (no known format)',
        '',
      ].join('\n'),
    );
  });

  it('bench scenarios validate: an invalid file still fails, and the count says how many were skipped', () => {
    const cwd = dataset();
    writeFileSync(path.join(cwd, 'data/broken.json'), '{"ctxbench": 2}');
    const r = bench(['scenarios', 'validate', 'data'], cwd);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL\s+data\/broken\.json: ctxbench: /m);
    expect(r.stderr).toBe('bench: 1 of 3 scenario file(s) invalid, 2 skipped (no known format)\n');
  });

  it('a folder with no scenario: one line naming what it skipped, exit 1; a file of unknown format named on its own is still an error', () => {
    const cwd = dataset();
    expectOneLineError(bench(['run', '--scenario', 'data/*.json'], cwd), /^bench: --scenario data\/\*\.json: no scenario found: 2 file\(s\) of no known format \(data\/metadata\.json, data\/results_summary\.json; known: ctxbench \(scenario file\), mini-swe-agent-1, /);
    // The paths of `bench scenarios` are arguments, not the --scenario flag.
    expectOneLineError(bench(['scenarios', 'validate', 'data/*.json'], cwd), /^bench: data\/\*\.json: no scenario found: 2 file\(s\) of no known format/);
    expectOneLineError(bench(['run', '--scenario', 'data/metadata.json'], cwd), /^bench: data\/metadata\.json: not a format ctxbench knows \(known: /);
  });

  it('regression: a glob with a brace set and ** finds the scenarios (scenarios/**/*.{json,yaml} found nothing)', () => {
    const r = bench(['scenarios', 'list', path.join(ROOT, 'scenarios/**/*.{json,yaml}')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(2 + 12);
  });
});

describe('bad input: one line naming the problem, non-zero exit, nothing half-written', () => {
  const broken = (content: string, name = 'broken.json'): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ctxbench-bad-'));
    writeFileSync(path.join(dir, name), content);
    return dir;
  };

  it('an unknown strategy: the message lists the presets too; a preset named as a strategy says --preset', () => {
    const known = `strategies: ${STRATEGY_NAMES.join(', ')}; presets, with --preset: ${PRESET_NAMES.join(', ')}; or "all"`;
    expectOneLineError(bench(['run', '--strategy', 'raw,nope']), new RegExp(`^bench: --strategy nope: unknown strategy \\(${known}\\)$`, 'm'));
    expectOneLineError(bench(['run', '--strategy', 'goose']), /^bench: --strategy goose: a preset, not a strategy: pass --preset goose$/m);
    expectOneLineError(bench(['run', '--preset', 'nope']), /^bench: --preset nope: unknown preset \(known: /m);
  });

  it('regression: no strategy at all (-s "" or -s ",") is an error, not a run of nothing that exits 0', () => {
    expectOneLineError(bench(['run', '-s', '']), /^bench: --strategy '': an empty value$/m);
    expectOneLineError(bench(['run', '-s', ',']), /^bench: --strategy: no strategy or preset named \(e\.g\. -s masking/m);
  });

  it('an empty value for any flag, or an empty argument, is refused by name before the command runs', () => {
    const r = bench(['export', '--parquet', '']);
    expectOneLineError(r, /^bench: --parquet '': an empty value$/m);
    expect(readdirSync(r.cwd)).toEqual([]); // it wrote the Parquet files into the current folder
    expectOneLineError(bench(['run', '--db', '']), /^bench: --db '': an empty value$/m);
    expectOneLineError(bench(['run', '-p', 'softThreshold=0.6', '-p', '']), /^bench: --param '': an empty value$/m);
    expectOneLineError(bench(['scenarios', 'validate', '']), /^bench: scenarios validate '': an empty argument$/m);
  });

  it('regression: limits are checked when the flags are read, each naming its own range', () => {
    expectOneLineError(bench(['run', '--window', '999999999999999999999']), /^bench: --window 999999999999999999999: expected a whole number from 256 to 2147483647, like 32768 or 32k$/m);
    expectOneLineError(bench(['run', '-j', '100000']), /^bench: -j 100000: expected a whole number from 1 to \d+$/m);
    expectOneLineError(bench(['run', '-j', '0']), /^bench: -j 0: expected a whole number from 1 to \d+$/m);
    expectOneLineError(bench(['run', '--retries', '2.5']), /^bench: --retries 2\.5: expected a whole number from 0 to 100$/m);
  });

  it('regression: an error line prints the control bytes it echoes escaped (no terminal escape reaches the screen)', () => {
    const r = bench(['run', '--param', 'softThreshold=\u001b[2J\u001b[31mx\nfake line']);
    expectOneLineError(r, /^bench: --param softThreshold=\\x1b\[2J\\x1b\[31mx\\nfake line: masking\.softThreshold must be a fraction/m);
    expect(r.stderr).not.toContain('\u001b');
  });

  it('a bad --param value, and an unknown parameter', () => {
    expectOneLineError(bench(['run', '--param', 'softThreshold=2']), /--param softThreshold=2: masking\.softThreshold must be a fraction in \(0, 1\]/);
    expectOneLineError(bench(['run', '-s', 'raw', '--param', 'softThreshold=0.5']), /no selected strategy has a parameter "softThreshold"/);
  });

  it('a bad --window', () => {
    expectOneLineError(bench(['run', '--window', 'lots']), /--window lots: expected a whole number from 256 to /);
    expectOneLineError(bench(['run', '--mock-recall', '2']), /--mock-recall 2: expected a fraction in \[0, 1\]/);
  });

  it('an unknown flag, a typo, an unknown command, a missing argument: one line as every error, with the hint', () => {
    expectOneLineError(bench(['run', '--bogus']), /^bench: unknown option '--bogus' \(run with --help for usage\)$/m);
    expectOneLineError(bench(['run', '--scenarios', 'x']), /^bench: unknown option '--scenarios' \(Did you mean --scenario\?\) \(run with --help for usage\)$/m);
    expectOneLineError(bench(['nosuch']), /^bench: unknown command 'nosuch' \(run with --help for usage\)$/m);
    expectOneLineError(bench(['verify']), /^bench: missing required argument 'strategy' \(run with --help for usage\)$/m);
  });

  it('a strategy file that calls process.exit(0) ends the command with one line and exit 1, not a silent success', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'exits.mjs'), 'process.exit(0);\nexport default {};\n');
    for (const args of [['run', '-s', 'raw,./exits.mjs', '--window', '32k', '--no-report'], ['verify', './exits.mjs']]) {
      expectOneLineError(bench(args, dir), /^bench: process\.exit\(0\) was called before the command finished \(by a strategy file\?\)$/m);
    }
  });

  it('two outputs on one file (--report and --save-calibration), before any run', () => {
    const r = bench(['run', '--report', 'out.file', '--save-calibration', 'out.file']);
    expectOneLineError(r, /^bench: --save-calibration out\.file: the same file as --report out\.file; each output needs its own path$/m);
    expect(existsSync(path.join(r.cwd, 'reports'))).toBe(false);
    expect(existsSync(path.join(r.cwd, 'out.file'))).toBe(false);
  });

  it('a --price-model with no list price (every cost would be blank), before any run', () => {
    const r = bench(['run', '--price-model', 'nosuch']);
    expectOneLineError(r, /^bench: --price-model "nosuch": expected a model with a list price: gpt-4o, .*, local$/m);
    expect(existsSync(path.join(r.cwd, 'reports'))).toBe(false);
  });

  it('a missing scenario file', () => {
    expectOneLineError(bench(['run', '--scenario', 'nowhere.json']), /^bench: --scenario nowhere\.json: no such file or directory$/m);
    expectOneLineError(bench(['scenarios', 'list', 'nowhere.json']), /^bench: nowhere\.json: no such file or directory$/m);
    expectOneLineError(bench(['scenarios', 'validate', 'nowhere.json']), /^bench: nowhere\.json: no such file or directory$/m);
  });

  it('a malformed scenario file names the file and the field, and writes no database', () => {
    const dir = broken(JSON.stringify({ ctxbench: 1, id: 'x', model: { name: 'gpt-4o' }, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', toolCalls: [{ id: 1 }] }] }));
    const r = bench(['run', '--scenario', 'broken.json'], dir);
    expectOneLineError(r, /^bench: broken\.json: messages\[1\]\.toolCalls\[0\]\.id: /);
    expect(existsSync(path.join(dir, 'reports'))).toBe(false);
  });

  it('a scenario that is not JSON, and one in an unknown format', () => {
    expectOneLineError(bench(['run', '--scenario', 'broken.json'], broken('{"ctxbench": 1,')), /broken\.json: not valid JSON/);
    expectOneLineError(bench(['scenarios', 'import', 'broken.json'], broken('{"hello": []}')), /broken\.json: not a format ctxbench knows \(known: ctxbench \(scenario file\), mini-swe-agent-1, openhands-litellm/);
  });

  it('scenarios validate lists each failure and exits 1', () => {
    const dir = broken('{"ctxbench": 2}');
    const r = bench(['scenarios', 'validate', 'broken.json'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL\s+broken\.json: ctxbench: /m);
    expect(r.stderr.trim()).toBe('bench: 1 of 1 scenario file(s) invalid');
  });

  it('an unwritable --db', () => {
    const dir = broken('not a directory', 'afile');
    const r = bench(['run', '--db', 'afile/x.duckdb'], dir);
    expectOneLineError(r, /^bench: --db afile\/x\.duckdb: afile is a file, not a folder \(ENOTDIR\)$/m);
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(`\n${r.stderr.trim()}\n`); // as the README shows it
  });

  it('a report from a missing or empty database', () => {
    expectOneLineError(bench(['report', '--db', 'missing.duckdb']), /missing\.duckdb: no such results database/);
  });

  it('an interrupted run keeps every finished run and nothing half-written', async () => {
    // All 180 runs of the bundled suite: on the main thread (a matrix this small) they replay in
    // ~5 ms each, so a shorter matrix could end before the signal lands. On the first run's line: the
    // runs after it are saved, and their lines printed, together a second later (GATHER_MS).
    const r = await signalWhen(['run', '-s', 'all', '--window', '32k', '--no-report'], /\[1\/180\]/, 'SIGINT');
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/bench: interrupted: \d+ finished run\(s\) kept in /);
    const runs = await storedRuns(r.cwd, 'reports/ctxbench.duckdb');
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.length).toBeLessThan(180);
    for (const r of runs) expect(r.steps.length).toBeGreaterThanOrEqual(r.summary.steps);
  });

  it('bench --help ends with the exit codes and their meanings, as the README lists them', () => {
    const r = bench(['--help']);
    expect(r.code).toBe(0);
    const help = r.stdout.slice(r.stdout.indexOf('\nExit codes:\n'));
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const [name, code] of Object.entries(EXIT_CODES)) {
      const meaning = EXIT_CODE_MEANINGS[name as keyof typeof EXIT_CODES];
      expect(help).toContain(`\n  ${String(code).padEnd(5)}${meaning}\n`);
      expect(readme).toContain(`\n| ${code} | ${meaning} |\n`);
    }
  });
});
