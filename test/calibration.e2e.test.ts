/**
 * End to end: token accounting and calibration as `bench run` does them (issue 14): an OpenHands
 * instance folder of call files is one scenario with every call's recorded usage, the calibration is
 * per resolved model with its out-of-sample error, `--save-calibration` writes what `--calibration`
 * applies, and a calibrated error above 5% is a warning in the summary and the report's header.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bench, expectOneLineError, ROOT, storedRuns, tempDir, type CliResult } from './helpers/cli.js';

const INSTANCE_FOLDERS = path.join(ROOT, 'fixtures/trajectories/openhands-codeact-sonnet35-swebench-verified/llm_completions');
const BUNDLED_OPENHANDS = path.join(ROOT, 'scenarios/openhands-codeact-sonnet35');

describe('an OpenHands llm_completions folder: one scenario per instance, every call a recorded request', () => {
  let run: CliResult;
  beforeAll(() => {
    run = bench(['run', '--scenario', INSTANCE_FOLDERS, '-s', 'raw', '--window', '100k', '--db', 'r.duckdb', '--report', 'r.html']);
  }, 60_000);

  it('regression: the ten call files of astropy__astropy-12907 replay as one scenario (they were ten with one id, refused)', async () => {
    expect(run.code).toBe(0);
    const runs = await storedRuns(run.cwd);
    expect(runs.map((r) => [r.config.scenarioId, r.summary.status, r.summary.steps])).toEqual([['astropy__astropy-12907', 'completed', 10]]);
    // Every call's recorded prompt tokens is compared with the replay at its step, not only the last call's.
    expect(runs[0]!.steps.map((s) => s.recordedPromptTokens)).toEqual([2154, 13902, 14300, 14571, 18748, 19342, 19614, 20054, 20369, 20737]);
    expect(run.stdout).toContain('raw replay, 10 steps of 1 scenarios');
  });

  it('fits the calibration on those ten requests, says it cannot be checked out of sample, and warns: the trimmed fixture is far from its usage', () => {
    expect(run.stdout).toMatch(/^Token calibration: claude-3-5-sonnet x\d\.\d{3}, fitted on 10 recorded requests of 1 scenario: mean error -\d+\.\d% -> [+-]\d+\.\d%, mean absolute \d+\.\d% -> \d+\.\d% in sample, none out of sample \(one scenario\)$/m);
    // As README "Token calibration" shows it.
    expect(run.stdout).toContain('\nWarning: the token calibration of claude-3-5-sonnet is off by 36.1% in sample (above 5%): the token counts of its scenarios, and the thresholds they cross, are that uncertain.\n');
    const html = readFileSync(path.join(run.cwd, 'r.html'), 'utf8');
    expect(html).toMatch(/<p class="note" role="note">Warning: the token calibration of claude-3-5-sonnet is off by \d+\.\d% in sample \(above 5%\)/);
    expect(html).toMatch(/<dt>Token calibration<\/dt><dd>claude-3-5-sonnet ×\d\.\d{3} \(fitted on 10 requests of 1 scenario; \d+\.\d% off in sample\)<\/dd>/);
  });

  it('bench report reads the calibration back from the results file: the same header fact and warning', () => {
    const report = bench(['report', '--db', 'r.duckdb', '-o', 'again.html'], run.cwd);
    expect(report.code).toBe(0);
    const html = readFileSync(path.join(run.cwd, 'again.html'), 'utf8');
    expect(html).toMatch(/Warning: the token calibration of claude-3-5-sonnet is off by/);
    expect(html).toMatch(/<dt>Token calibration<\/dt><dd>claude-3-5-sonnet ×\d\.\d{3} \(fitted on 10 requests/);
  });

  it('bench scenarios import of an instance folder writes that one scenario', () => {
    const cwd = tempDir();
    const imported = bench(['scenarios', 'import', path.join(INSTANCE_FOLDERS, 'astropy__astropy-12907'), '-o', 'one.json'], cwd);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('detected format openhands-litellm; 1 scenario(s), 10 steps');
    const data = JSON.parse(readFileSync(path.join(cwd, 'one.json'), 'utf8')) as { id: string; messages: { usage?: object }[]; tools: unknown[]; source: { notes: string } };
    expect(data.id).toBe('astropy__astropy-12907');
    expect(data.messages.filter((m) => m.usage)).toHaveLength(10);
    expect(data.tools).toHaveLength(3);
    expect(data.source.notes).toBe('10 call files joined: the recorded usage of 10 requests at the steps they were made');
  });
});

describe('--save-calibration and --calibration', () => {
  let saved: CliResult;
  beforeAll(() => {
    saved = bench(['run', '--scenario', BUNDLED_OPENHANDS, '-s', 'raw', '--window', '200k', '--no-report', '--db', 'a.duckdb', '--save-calibration', 'team.json']);
  }, 60_000);

  it("writes the calibration a run used as a calibration file: one per resolved model, with what it was fitted on", () => {
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(`Calibration: ${path.join(saved.cwd, 'team.json')}`);
    // The bundled scenarios name the model two ways (litellm proxy and Bedrock): one calibration.
    expect(saved.stdout.match(/^Token calibration: /gm)).toHaveLength(1);
    expect(saved.stdout).toMatch(/^Token calibration: claude-3-5-sonnet x\d\.\d{3}(?: \+ \d+ tokens per request)?, fitted on 3 recorded requests of 3 scenarios: .* in sample, \d\.\d% out of sample$/m);
    const file = JSON.parse(readFileSync(path.join(saved.cwd, 'team.json'), 'utf8')) as unknown;
    expect(file).toEqual({
      ctxbenchCalibration: 1,
      calibrations: [{ model: 'claude-3-5-sonnet', encoding: 'o200k_base', factor: expect.any(Number), overhead: expect.any(Number), fitted: { requests: 3, scenarios: 3, inSample: expect.any(Number), outOfSample: expect.any(Number) } }],
    });
  });

  it('applies a calibration file instead of fitting, and checks it on the usage the scenarios recorded', async () => {
    const applied = bench(['run', '--scenario', INSTANCE_FOLDERS, '-s', 'raw', '--window', '100k', '--no-report', '--db', 'b.duckdb', '--calibration', 'team.json'], saved.cwd);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/^Token calibration: claude-3-5-sonnet x\d\.\d{3}.* \(from team\.json, fitted on 3 requests of 3 scenarios, \d\.\d% out of sample\): on these 10 recorded requests of 1 scenario, mean error /m);
    const { factor, overhead } = (JSON.parse(readFileSync(path.join(saved.cwd, 'team.json'), 'utf8')) as { calibrations: { factor: number; overhead: number }[] }).calibrations[0]!;
    const [only] = await storedRuns(saved.cwd, 'b.duckdb');
    expect([only!.config.calibrationFactor, only!.config.calibrationOverhead]).toEqual([factor, overhead]);
  });

  it('warns, in the summary, when a stored calibration is far off the recorded usage, and names a model the file lacks', () => {
    writeFileSync(path.join(saved.cwd, 'off.json'), JSON.stringify({ ctxbenchCalibration: 1, calibrations: [{ model: 'gpt-4o', encoding: 'o200k_base', factor: 1.01 }, { model: 'litellm_proxy/claude-3-5-sonnet-20241022', encoding: 'o200k_base', factor: 2.5 }] }));
    const off = bench(['run', '--scenario', BUNDLED_OPENHANDS, '--scenario', path.join(ROOT, 'scenarios/mini-swe-agent-gemini3pro/astropy__astropy-13398.json'), '-s', 'raw', '--window', '200k', '--no-report', '--db', 'c.duckdb', '--calibration', 'off.json'], saved.cwd);
    expect(off.code).toBe(0);
    expect(off.stdout).toMatch(/^Warning: the token calibration of claude-3-5-sonnet is off by \d+\.\d% on these scenarios' recorded requests \(above 5%\)/m);
    expect(off.stderr).toContain('bench: warning: off.json has no calibration of gemini-3-pro-preview (o200k_base): its scenarios are counted uncalibrated');
  });

  it('refuses a bad file in one line naming the file and the field, before anything runs', () => {
    const cwd = saved.cwd;
    writeFileSync(path.join(cwd, 'notjson.json'), '{ "ctxbenchCalibration": 1,');
    writeFileSync(path.join(cwd, 'badfactor.json'), JSON.stringify({ ctxbenchCalibration: 1, calibrations: [{ model: 'claude-3-5-sonnet', encoding: 'o200k_base', factor: -1 }] }));
    writeFileSync(path.join(cwd, 'twice.json'), JSON.stringify({ ctxbenchCalibration: 1, calibrations: [{ model: 'claude-3-5-sonnet', encoding: 'o200k_base', factor: 1.2 }, { model: 'anthropic.claude-3-5-sonnet-20241022-v2:0', encoding: 'o200k_base', factor: 1.3 }] }));
    const run = (file: string, ...more: string[]) => bench(['run', '-s', 'raw', '--no-report', '--db', 'x.duckdb', '--calibration', file, ...more], cwd);
    expectOneLineError(run('missing.json'), /^bench: --calibration missing\.json: cannot read \(ENOENT\)$/m);
    expectOneLineError(run('notjson.json'), /^bench: notjson\.json: not valid JSON: /);
    expectOneLineError(run('badfactor.json'), /^bench: badfactor\.json: calibrations\[0\]\.factor: Too small: expected number to be >0$/m);
    expectOneLineError(run('twice.json'), /^bench: twice\.json: calibrations\[1\]: claude-3-5-sonnet with o200k_base again \(also calibrations\[0\]\): one calibration per model and encoding$/m);
    expectOneLineError(run('team.json', '--no-calibrate'), /^bench: --calibration team\.json: pass it or --no-calibrate, not both$/m);
    expect(run('notjson.json').stdout).toBe('');
  });
});
