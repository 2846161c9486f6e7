/**
 * End to end: `--json` on bench run, sweep, scenarios list, strategies and check, through the built
 * CLI (check's in test/gate.e2e.test.ts, on the batches and baseline it gates). Each prints one JSON
 * document on stdout that its schema (src/cli/json/) accepts, field for field (no field it does not
 * document); progress, warnings and calibration lines stay on stderr; the exit
 * codes stay as they are and the document says them; errors stay one line on stderr, with nothing on stdout.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RUN_DOCUMENT } from '../src/cli/json/run.js';
import { SCENARIOS_DOCUMENT } from '../src/cli/json/scenarios.js';
import { STRATEGIES_DOCUMENT } from '../src/cli/json/strategies.js';
import { EXIT_CODES } from '../src/cli/exit-codes.js';
import { startModelServer, type RunningServer } from '../src/server/index.js';
import { PRESET_NAMES, STRATEGY_NAMES } from '../src/strategies/index.js';
import { bench, benchAsync, expectOneLineError, ROOT, signalWhen, storedRuns, tempDir, type CliResult } from './helpers/cli.js';

const SYNTHETIC = path.join(ROOT, 'scenarios/synthetic');
/** A recorded trajectory with provider usage: its model gets a calibration line. */
const RECORDED = path.join(ROOT, 'scenarios/mini-swe-agent-gemini3pro/psf__requests-1142.json');
const PROBED = path.join(SYNTHETIC, 'synthetic-s60-seed1-o400-f10.json');
/** One OpenHands instance of ten call files: its calibration is fitted on one scenario, and is off by more than 5% (a warning). */
const INSTANCE_FOLDERS = path.join(ROOT, 'fixtures/trajectories/openhands-codeact-sonnet35-swebench-verified/llm_completions');

/** The whole of stdout as one JSON document: nothing else may be printed there. */
const documentOf = (r: CliResult): unknown => JSON.parse(r.stdout);

const lastLine = (text: string): string => text.trim().split('\n').at(-1) ?? '';

describe('bench strategies --json', () => {
  it('prints every strategy with its parameters and every preset with its settings, in the order bench strategies lists them', () => {
    const r = bench(['strategies', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = STRATEGIES_DOCUMENT.parse(documentOf(r));
    expect(doc).toMatchObject({ kind: 'strategies', format: 1 });
    expect(doc.strategies.map((s) => s.name)).toEqual(STRATEGY_NAMES);
    expect(doc.presets.map((p) => p.name)).toEqual(PRESET_NAMES);
    const masking = doc.strategies.find((s) => s.name === 'masking')!;
    expect(masking.seed).toBe('000');
    expect(masking.params.find((p) => p.name === 'softThreshold')).toMatchObject({ kind: 'fraction', default: 0.7, range: 'a fraction in (0, 1]', min: null, values: null });
    expect(masking.params.find((p) => p.name === 'maxRestarts')).toMatchObject({ kind: 'integer', default: 'unlimited', min: 0, unlimited: true });
    expect(masking.params.find((p) => p.name === 'measure')).toMatchObject({ kind: 'choice', default: 'projected', values: ['projected', 'last-prompt'] });
    expect(doc.presets.find((p) => p.name === 'goose')).toMatchObject({ strategy: 'summarization', params: { summarizationThreshold: 0.8, template: 'goose' } });
    // The text lists the same parameters with the same defaults.
    const text = bench(['strategies']).stdout;
    for (const s of doc.strategies) for (const p of s.params) expect(text).toContain(`--param ${s.name}.${p.name}=${String(p.default)}  `);
  });
});

describe('bench scenarios list --json', () => {
  it('prints every bundled scenario with the numbers of the table', () => {
    const r = bench(['scenarios', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = SCENARIOS_DOCUMENT.parse(documentOf(r));
    expect(doc).toMatchObject({ kind: 'scenarios', format: 1, encoding: 'o200k_base', skipped: [] });
    expect(doc.scenarios).toHaveLength(12);
    const table = bench(['scenarios', 'list']).stdout.trim().split('\n').slice(2);
    for (const s of doc.scenarios) {
      const row = table.find((line) => line.startsWith(`${s.id} `))!.trim().split(/\s{2,}/);
      expect(row).toEqual([s.id, s.format, String(s.steps), s.historyTokens.toLocaleString('en-US'), s.recordedPeakTokens?.toLocaleString('en-US') ?? '-', s.model, s.window.toLocaleString('en-US'), s.outcome ?? '-']);
    }
    expect(doc.scenarios.find((s) => s.id === 'synthetic-s60-seed1-o400-f10')).toMatchObject({ probes: 6, recordedPeakTokens: null, outcome: null });
  });

  it('lists the files a folder led to that hold no known format, and still says so in one line on stderr', () => {
    const cwd = tempDir();
    mkdirSync(path.join(cwd, 'data'));
    copyFileSync(PROBED, path.join(cwd, 'data/one.json'));
    writeFileSync(path.join(cwd, 'data/results_summary.json'), '{"resolved": 1}');
    const r = bench(['scenarios', 'list', 'data/', '--json'], cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('bench: skipped 1 file(s) of no known format: data/results_summary.json\n');
    const doc = SCENARIOS_DOCUMENT.parse(documentOf(r));
    expect(doc.scenarios.map((s) => s.file)).toEqual(['data/one.json']);
    expect(doc.skipped).toEqual(['data/results_summary.json']);
  });
});

describe('bench run --json', () => {
  let run: CliResult;
  beforeAll(() => {
    run = bench(['run', '--json', '-s', 'raw,masking', '--scenario', RECORDED, '--scenario', PROBED, '--window', '32k', '--db', 'r.duckdb', '-j', '1']);
  }, 120_000);

  it('prints one document on stdout; the progress and the calibration line go to stderr', () => {
    expect(run.code, run.stderr).toBe(0);
    const doc = RUN_DOCUMENT.parse(documentOf(run));
    expect(doc).toMatchObject({ kind: 'run', format: 1, exitCode: 0, interrupted: false, shard: null, resumed: null, cache: null });
    expect(doc.database).toBe(path.join(run.cwd, 'r.duckdb'));
    expect(doc.report).toBe(path.join(run.cwd, 'reports/ctxbench-report.html'));
    expect(existsSync(doc.report!)).toBe(true);
    expect(doc.batch?.command).toMatch(/^bench run --json -s raw,masking /);
    expect(doc.runs.map((r) => [r.strategy, r.scenarioId, r.status])).toEqual([
      ['raw', 'psf__requests-1142', 'overflow'],
      ['masking', 'psf__requests-1142', 'completed'],
      ['raw', 'synthetic-s60-seed1-o400-f10', 'overflow'],
      ['masking', 'synthetic-s60-seed1-o400-f10', 'completed'],
    ]);
    expect(doc.runs[0]).toMatchObject({ failedStep: 51, failure: expect.stringMatching(/window/) });
    const [calibration] = doc.calibration;
    expect(calibration).toMatchObject({ model: 'gemini-3-pro-preview', encoding: 'o200k_base', source: 'fitted', samples: 71 });
    expect(run.stderr).toContain(`Token calibration: gemini-3-pro-preview x${calibration!.factor.toFixed(3)}, fitted on 71 recorded requests`);
    expect(run.stderr).toMatch(/^\[1\/4\] raw x psf__requests-1142: overflow at step 51$/m);
    expect(doc.usage).toMatchObject({ encoding: 'o200k_base', calibrated: true, steps: 51, scenarios: 1 });
  });

  it('its configurations and runs are what bench report writes for the batch, and the tables print', () => {
    const report = bench(['report', '--db', 'r.duckdb', '-o', 'r.json'], run.cwd);
    expect(report.code, report.stderr).toBe(0);
    const doc = RUN_DOCUMENT.parse(documentOf(run));
    const written = JSON.parse(readFileSync(path.join(run.cwd, 'r.json'), 'utf8'));
    for (const field of ['notes', 'recommended', 'successDefinition', 'configurations', 'runs'] as const) expect(doc[field]).toEqual(written[field]);

    const text = bench(['run', '-s', 'raw,masking', '--scenario', RECORDED, '--scenario', PROBED, '--window', '32k', '--db', 'text.duckdb', '-j', '1', '--no-report'], run.cwd);
    const lines = text.stdout.split('\n');
    const header = lines.findIndex((line) => line.includes('total input tokens'));
    const row = lines.slice(header).find((line) => line.startsWith('masking '))!.trim().split(/\s{2,}/);
    const masking = doc.configurations.find((c) => c.configuration === 'masking')!;
    expect(row.slice(0, 6)).toEqual(['masking', String(masking.runs), expect.stringMatching(/^\d+\/\d+$/), expect.any(String), String(masking.restarts), masking.inputTokens.toLocaleString('en-US')]);
    expect(text.stdout).toContain('Token calibration: gemini-3-pro-preview');
  });
});

describe('bench run --json: the token calibration', () => {
  it('gives each calibration as the batch stores it, its warning in notes and on stderr (not stdout), and the --save-calibration file', () => {
    const r = bench(['run', '--json', '--scenario', INSTANCE_FOLDERS, '-s', 'raw', '--window', '100k', '--no-report', '--db', 'r.duckdb', '--save-calibration', 'team.json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = RUN_DOCUMENT.parse(documentOf(r));
    expect(doc.calibrationFile).toBe(path.join(r.cwd, 'team.json'));
    expect(existsSync(doc.calibrationFile!)).toBe(true);
    const [fitted] = doc.calibration;
    expect(doc.calibration).toHaveLength(1);
    expect(fitted).toMatchObject({ model: 'claude-3-5-sonnet', encoding: 'o200k_base', source: 'fitted', samples: 10, scenarios: 1, outOfSample: null, overhead: expect.any(Number) });
    expect(fitted!.after).toEqual({ meanPctError: expect.any(Number), meanAbsPctError: expect.any(Number) });
    expect(fitted!.warning).toMatch(/^the token calibration of claude-3-5-sonnet is off by \d+\.\d% in sample \(above 5%\)$/);
    const line = `Warning: ${fitted!.warning}: the token counts of its scenarios, and the thresholds they cross, are that uncertain.`;
    expect(doc.notes[0]).toBe(line);
    expect(r.stderr).toContain(`\n${line}\n`);
    expect(r.stderr).toMatch(/^Token calibration: claude-3-5-sonnet x\d\.\d{3}.*, fitted on 10 recorded requests of 1 scenario: /m);

    const applied = bench(['run', '--json', '--scenario', INSTANCE_FOLDERS, '-s', 'raw', '--window', '100k', '--no-report', '--db', 'b.duckdb', '--calibration', 'team.json'], r.cwd);
    expect(applied.code, applied.stderr).toBe(0);
    const again = RUN_DOCUMENT.parse(documentOf(applied));
    expect(again.calibrationFile).toBeNull();
    expect(again.calibration).toEqual([expect.objectContaining({ model: 'claude-3-5-sonnet', source: 'file', factor: fitted!.factor, overhead: fitted!.overhead, samples: 10 })]);
  });
});

describe('bench sweep --json', () => {
  it('prints the document of kind sweep: each setting a configuration, the recommendation; the skipped setting is a warning on stderr', () => {
    const r = bench(['sweep', '--json', '-s', 'masking', '--grid', 'softThreshold=0.5,0.6,0.9', '--scenario', PROBED, '--window', '16k', '--db', 'r.duckdb', '--no-report', '-j', '1']);
    expect(r.code, r.stderr).toBe(0);
    const doc = RUN_DOCUMENT.parse(documentOf(r));
    expect(doc).toMatchObject({ kind: 'sweep', exitCode: 0, report: null });
    expect(doc.configurations.map((c) => c.configuration)).toEqual(['masking (softThreshold=0.5)', 'masking (softThreshold=0.6)']);
    expect(doc.configurations.map((c) => c.configuration)).toContain(doc.recommended.configuration);
    expect(doc.runs.map((run) => run.params['softThreshold'])).toEqual([0.5, 0.6]);
    expect(r.stderr).toMatch(/^bench: warning: 1 of 3 settings skipped, masking refuses them: softThreshold=0\.9: /m);
  });
});

describe('a matrix that ends with another exit code: the document says it', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('runs a backend error ended: exit 75, the document says 75 and has every run, the one line is on stderr', async () => {
    server = await startModelServer({ models: [{ name: 'mock-model', contextLength: 32768 }], faults: [{ kind: 'http500', times: 1 }] });
    const r = await benchAsync(['run', '--json', '-m', 'ollama:chat:mock-model', '--host', server.url, '--scenario', PROBED, '-s', 'raw,masking', '--window', '16k', '--db', 'r.duckdb', '--no-report', '--retries', '0', '--no-cache']);
    expect(r.code).toBe(EXIT_CODES.runErrors);
    const doc = RUN_DOCUMENT.parse(documentOf(r));
    expect(doc.exitCode).toBe(EXIT_CODES.runErrors);
    expect(doc.runs.map((run) => run.status)).toEqual(['error', expect.not.stringMatching(/^error$/)]);
    expect(doc.runs[0]!.failure).toMatch(/answered 500/);
    expect(lastLine(r.stderr)).toMatch(/^bench: 1 of 2 runs ended with a backend error \(the first: .*answered 500.*\); the same command with --resume runs them again$/);
  });

  it('a live run: the record/replay cache in the document (what it answered, what was sent), its folder', async () => {
    server = await startModelServer({ models: [{ name: 'mock-model', contextLength: 32768 }] });
    const live = ['run', '--json', '-m', 'ollama:chat:mock-model', '--host', server.url, '--scenario', PROBED, '-s', 'raw', '--window', '16k', '--no-report', '--cache-dir', 'llm-cache'];
    const first = await benchAsync([...live, '--db', 'a.duckdb']);
    expect(first.code, first.stderr).toBe(0);
    const sent = RUN_DOCUMENT.parse(documentOf(first)).cache!;
    expect(sent).toMatchObject({ dir: path.join(first.cwd, 'llm-cache'), hits: 0 });
    expect(sent.sent).toBeGreaterThan(0);
    const again = await benchAsync([...live, '--db', 'b.duckdb'], first.cwd);
    expect(again.code, again.stderr).toBe(0);
    expect(RUN_DOCUMENT.parse(documentOf(again)).cache).toEqual({ dir: sent.dir, hits: sent.sent, sent: 0 });
  });

  // The one SIGTERM test of the suite (a CI cancellation stops like Ctrl-C); bench run prints the
  // resume line on stdout without --json (test/scale.e2e.test.ts).
  it('SIGTERM: exit 143, the document says 143 and interrupted, and holds the runs that finished; --resume completes the matrix and says what it kept, the line on stderr', async () => {
    // All 180 runs of the bundled suite, so the signal lands before the main thread has replayed them
    // all. On the first run's line: a run's line comes once it is saved, and the runs finishing after
    // the first are saved together a second later (result-store.ts GATHER_MS), by when the matrix
    // (about a second on the main thread) may be over.
    const matrix = ['run', '--json', '-s', 'all', '--window', '32k', '--no-report', '--db', 'r.duckdb'];
    const r = await signalWhen(matrix, /\[1\/180\]/, 'SIGTERM');
    expect(r.code).toBe(EXIT_CODES.terminated);
    expect(r.stderr).toMatch(/^bench: SIGTERM: finishing the runs in progress, then stopping \(send it again to quit now\)$/m);
    const doc = RUN_DOCUMENT.parse(documentOf(r));
    expect(doc).toMatchObject({ exitCode: EXIT_CODES.terminated, interrupted: true });
    const kept = await storedRuns(r.cwd);
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeLessThan(180);
    expect(doc.runs.map((run) => run.runId).sort()).toEqual(kept.map((run) => run.runId).sort());
    expect(lastLine(r.stderr)).toMatch(/^bench: interrupted: \d+ finished run\(s\) kept in r\.duckdb; the same command with --resume runs the rest$/);

    const resumed = bench([...matrix, '--resume'], r.cwd);
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = RUN_DOCUMENT.parse(documentOf(resumed));
    expect(again).toMatchObject({ exitCode: 0, interrupted: false, resumed: { kept: kept.length, ran: 180 - kept.length, redone: 0 }, batch: { batchId: doc.batch!.batchId } });
    expect(again.runs).toHaveLength(180);
    expect(await storedRuns(r.cwd)).toHaveLength(180);
    expect(resumed.stderr).toContain(`Resuming batch ${doc.batch!.batchId}: ${kept.length} finished run(s) kept, ${180 - kept.length} to run\n`);
  });

  it('--shard: the shard in the document, its line on stderr', () => {
    const r = bench(['run', '--json', '--shard', '1/2', '-s', 'raw,masking', '--scenario', SYNTHETIC, '--window', '16k', '--no-report', '--db', 's1.duckdb', '-j', '1']);
    expect(r.code, r.stderr).toBe(0);
    const doc = RUN_DOCUMENT.parse(documentOf(r));
    expect(doc.shard).toEqual({ index: 1, count: 2, runs: doc.runs.length, matrixRuns: 10 });
    expect(r.stderr).toMatch(new RegExp(`^Shard 1/2: ${doc.runs.length} of the matrix's 10 runs, batch ${doc.batch!.batchId}$`, 'm'));
  });
});

describe('errors with --json: one line on stderr, nothing on stdout', () => {
  it.each([
    [['run', '--json', '--strategy', 'goose'], /^bench: --strategy goose: a preset, not a strategy: pass --preset goose$/m],
    [['check', '--json', '--baseline', 'nope.json'], /^bench: nope\.json: cannot read the baseline \(no such file; write one with `bench baseline -o nope\.json`\)$/m],
    [['scenarios', 'list', '--json', 'nowhere/'], /nowhere/],
  ])('bench %j', (args, line) => {
    const r = bench(args);
    expectOneLineError(r, line);
    expect(r.stdout).toBe('');
  });
});
