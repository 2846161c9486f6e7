/**
 * `bench verify` as a user runs it (the built CLI): a built-in passes with exit 0; an outside
 * strategy file written against `ctxbench` that breaks pairing fails with exit 102 and prints the
 * shrunk counterexample (rule, step, messages) and the command that reproduces it, which gives the
 * same output again; bad input is one line and exit 1.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli/exit-codes.js';
import { bench, expectOneLineError, ROOT, tempDir } from './helpers/cli.js';

const BROKEN = path.join(ROOT, 'examples/strategies/broken-drops-results.ts');

describe('bench verify', () => {
  it('a built-in: every property passes, exit 0, progress on stderr', () => {
    const r = bench(['verify', 'masking', '--runs', '5', '--seed', '3']);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.stdout).toMatch(/^bench verify masking: 5 generated cases per property, seed 3\nparameters: softThreshold=0\.7 /);
    for (const name of ['pairing', 'in-place', 'fits', 'deterministic']) expect(r.stdout).toMatch(new RegExp(`^pass  ${name}: .* \\(5 cases\\)$`, 'm'));
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('all 4 properties hold');
    expect(r.stderr).toBe('[1/4] pairing\n[2/4] in-place\n[3/4] fits\n[4/4] deterministic\n');
  });

  it('a broken strategy file: exit 102, the shrunk counterexample, and a reproduce line that gives the same output', () => {
    const r = bench(['verify', BROKEN, '--runs', '20', '--seed', '5', '--param', 'keepResults=1']);
    expect(r.code).toBe(EXIT_CODES.propertyBroken);
    expect(r.stdout).toContain('parameters: keepResults=1\n');
    expect(r.stdout).toMatch(/^FAIL  pairing: /m);
    expect(r.stdout).toMatch(/^ {2}rule broken: (unmatched_tool_use|parallel_missing_result) at \[\d+\]: call call_\d+_\d+ has no result/m);
    expect(r.stdout).toMatch(/^ {2}counterexample \(case \d+ failed, shrunk \d+ times\): \d+ messages, \d+ agent steps, window 300, (forced|reactive) replay$/m);
    expect(r.stdout).toMatch(/^ {2}agent request at step \d+, \d+ messages:\n {4}\[0\] system {4}m0000 "You are an agent\."\n/m);
    expect(r.stdout).toMatch(/^ {4}\[\d\] assistant m\d{4} calls call_\d+_\d+/m);
    for (const name of ['in-place', 'fits', 'deterministic']) expect(r.stdout).toMatch(new RegExp(`^pass  ${name}: `, 'm'));
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('1 of 4 properties broken');
    const reproduce = /^ {2}reproduce: bench verify (.*)$/m.exec(r.stdout)![1]!;
    expect(reproduce).toBe(`${BROKEN} --seed 5 --runs 20 --param keepResults=1`);
    const again = bench(['verify', ...reproduce.split(' ')]);
    expect(again.code).toBe(EXIT_CODES.propertyBroken);
    expect(again.stdout).toBe(r.stdout);
  });

  it('a hook in a synchronous endless loop: its property broken once the timeout passes, the thread stopped, the rest not checked', () => {
    const dir = tempDir('ctxbench-verify-');
    writeFileSync(path.join(dir, 'loops.mjs'), "export default { name: 'loops', summary: 's', params: {}, thresholds: () => [], create: () => ({ beforeRequest: () => { for (;;) {} } }) };\n");
    const r = bench(['verify', './loops.mjs', '--runs', '3', '--seed', '1', '--strategy-timeout', '1'], dir);
    expect(r.code).toBe(EXIT_CODES.propertyBroken);
    expect(r.stdout).toContain(
      'FAIL  pairing: every request sent, helper requests included, is well-paired and in history order\n' +
        '  rule broken: strategy loops, beforeRequest at step 0: no answer within 1 s (--strategy-timeout); its thread was stopped (a synchronous endless loop?)\n' +
        '  counterexample: not known (the thread was stopped in the middle of a case)\n' +
        '  reproduce: bench verify ./loops.mjs --seed 1 --runs 3 --strategy-timeout 1\n',
    );
    for (const name of ['in-place', 'fits', 'deterministic']) expect(r.stdout).toMatch(new RegExp(`^skip  ${name}: .* \\(not checked: the thread was stopped\\)$`, 'm'));
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('1 of 4 properties broken (3 not checked)');
    expect(r.stderr).toBe('[1/4] pairing\n');
  }, 60_000);

  it('bad input: one line, exit 1', () => {
    expectOneLineError(bench(['verify', 'no-such-strategy']), /^bench: verify no-such-strategy: unknown strategy \(strategies: raw, masking, .*; or a strategy file, .\/my-strategy.ts\)\n$/);
    expectOneLineError(bench(['verify', './missing.ts']), /^bench: verify \.\/missing\.ts: no such file\n$/);
    expectOneLineError(bench(['verify', 'masking', '--runs', '0']), /^bench: --runs 0: expected a whole number from 1 to 100000\n$/);
    expectOneLineError(bench(['verify', 'masking', '--param', 'nope=1']), /nope/);
  });
});
