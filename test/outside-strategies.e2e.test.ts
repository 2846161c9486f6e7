/**
 * Outside strategies (`--strategy ./x.ts`) through the built CLI: beside built-ins in one matrix, from
 * a config file, swept over their own parameters, labelled with their file and digest, named by the
 * gate when their source changes; and contained when they fail: a strategy that throws, returns a
 * malformed plan, never settles or loops forever ends its own run with status `error` and one line,
 * while the rest of the matrix completes.
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sourceDigest } from '../src/runner/strategy-file.js';
import { generateScenario } from '../src/scenarios/generate/index.js';
import { bench, expectOneLineError, ROOT, storedRuns, tempDir } from './helpers/cli.js';

/** The example written against the public API (it imports 'ctxbench': the package's own dist). */
const EXAMPLE = path.join(ROOT, 'examples/strategies/keep-recent-rounds.ts');
/** Long enough to outgrow WINDOW without a strategy (raw overflows); the example compacts it. */
const SMALL = { steps: 30, seed: 1, outputTokens: 300, maxOutputTokens: 1200, factDensity: 20, contextWindow: 32_768 };
const WINDOW = '8k';

/** A strategy written out by hand, no import, so it loads from any folder: `hook` is its beforeRequest's body. */
const strategyFile = (name: string, hook: string): string =>
  `export default { name: '${name}', summary: 'a test strategy', params: {}, thresholds: () => [], create: () => ({ beforeRequest(input) { ${hook} } }) };\n`;
const PASS = 'return { messages: input.messages };';

const BROKEN: readonly { file: string; hook: string; failure: string }[] = [
  { file: 'throws.mjs', hook: `if (input.step === 3) throw new Error('broke at 3'); ${PASS}`, failure: 'strategy throws, beforeRequest at step 3: threw: broke at 3' },
  {
    file: 'malformed.mjs',
    hook: `return input.step === 2 ? { messages: [...input.messages, { role: 'note', id: 'n', content: '' }] } : { messages: input.messages };`,
    failure: 'strategy malformed, beforeRequest at step 2: returned a malformed message: messages[',
  },
  { file: 'never-settles.mjs', hook: `return input.step === 2 ? new Promise(() => {}) : { messages: input.messages };`, failure: 'strategy never-settles, beforeRequest at step 2: no answer within 1 s (--strategy-timeout)' },
  { file: 'loops.mjs', hook: `if (input.step === 4) while (true) {} ${PASS}`, failure: 'strategy loops, beforeRequest at step 4: no answer within 1 s (--strategy-timeout)' },
];

let scenario: string;
beforeAll(() => {
  scenario = path.join(tempDir('ctxbench-outside-'), 'small.json');
  writeFileSync(scenario, JSON.stringify(generateScenario(SMALL)));
});

const matrixFlags = (): string[] => ['--scenario', scenario, '--window', WINDOW, '--no-report', '--db', 'r.duckdb'];

describe('bench run --strategy ./file', () => {
  it('runs a file strategy beside built-ins; broken ones end their own run with status error and one line, the rest completes', async () => {
    const cwd = tempDir('ctxbench-outside-');
    for (const { file, hook } of BROKEN) writeFileSync(path.join(cwd, file), strategyFile(path.basename(file, '.mjs'), hook));
    const strategies = ['raw', EXAMPLE, ...BROKEN.map((b) => `./${b.file}`)].join(',');
    const r = bench(['run', '-s', strategies, '--strategy-timeout', '1', '-j', '2', ...matrixFlags()], cwd);

    expect(r.code).toBe(75);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^bench: 4 of 6 runs ended with an error \(the first: strategy \S+, beforeRequest at step \d: .*\); the same command with --resume runs them again$/);
    const runs = await storedRuns(cwd);
    const byName = new Map(runs.map((run) => [run.config.strategy, run]));
    expect([...byName.keys()].sort()).toEqual(['keep-recent-rounds', 'loops', 'malformed', 'never-settles', 'raw', 'throws']);
    for (const { file, failure } of BROKEN) {
      const run = byName.get(path.basename(file, '.mjs'))!;
      expect(run.summary.status).toBe('error');
      expect(run.summary.failure).toContain(failure);
      expect(run.config.strategySource).toEqual({ file, digest: sourceDigest(readFileSync(path.join(cwd, file))) });
    }
    const good = byName.get('keep-recent-rounds')!;
    expect(good.summary.status).toBe('completed');
    expect(good.events.some((e) => e.kind === 'masked')).toBe(true);
    expect(good.config.strategySource).toEqual({ file: path.relative(cwd, EXAMPLE).split(path.sep).join('/'), digest: sourceDigest(readFileSync(EXAMPLE)) });
    expect(byName.get('raw')!.config.strategySource).toBeUndefined();
    // The tables name the file and its digest where they name the strategy.
    expect(r.stdout).toContain(`keep-recent-rounds (keep-recent-rounds.ts@${good.config.strategySource!.digest})`);
  });

  it.each([
    ['a built-in', "name: 'masking'", /--strategy \.\/a\.mjs: its strategy is named "masking", the name of a built-in strategy; runs are stored by name: rename it/],
    ['another file', "name: 'b'", /--strategy \.\/(a|b)\.mjs: its strategy is named "b", as is the strategy of \.\/(a|b)\.mjs; runs are stored by name: rename it/],
  ])('refuses a file strategy named like %s, in one line', (_what, name, message) => {
    const cwd = tempDir('ctxbench-outside-');
    writeFileSync(path.join(cwd, 'a.mjs'), strategyFile('a', PASS).replace("name: 'a'", name));
    writeFileSync(path.join(cwd, 'b.mjs'), strategyFile('b', PASS));
    expectOneLineError(bench(['run', '-s', './a.mjs,./b.mjs', ...matrixFlags()], cwd), message);
  });

  it('sweeps a file strategy over its own parameters', async () => {
    const cwd = tempDir('ctxbench-outside-');
    const r = bench(['sweep', '-s', EXAMPLE, '--grid', 'keepRounds=1,4', '--param', 'startAt=0.4', ...matrixFlags()], cwd);
    expect(r.code).toBe(0);
    const runs = await storedRuns(cwd);
    expect(runs.map((run) => [run.config.variant, run.config.params])).toEqual([
      ['keepRounds=1', { keepRounds: 1, startAt: 0.4 }],
      ['keepRounds=4', { keepRounds: 4, startAt: 0.4 }],
    ]);
    expect(runs.every((run) => run.config.strategySource?.digest === sourceDigest(readFileSync(EXAMPLE)))).toBe(true);
  });

  it("finds a config file's strategy file from the config's folder; the gate names its changed source as a configuration change", async () => {
    const cwd = tempDir('ctxbench-outside-');
    mkdirSync(path.join(cwd, 'conf'));
    const mine = path.join(cwd, 'conf/mine.mjs');
    writeFileSync(mine, strategyFile('mine', PASS));
    writeFileSync(path.join(cwd, 'conf/ctxbench.config.yaml'), 'strategy: [raw, ./mine.mjs]\n');
    const run = (): void => expect(bench(['run', '--config', 'conf/ctxbench.config.yaml', ...matrixFlags()], cwd).code).toBe(0);
    run();
    const before = sourceDigest(readFileSync(mine));
    expect((await storedRuns(cwd)).map((r) => r.config.strategySource)).toEqual([undefined, { file: 'conf/mine.mjs', digest: before }]);
    expect(bench(['baseline', '--db', 'r.duckdb', '-o', 'b.json'], cwd).code).toBe(0);

    writeFileSync(mine, `// edited\n${readFileSync(mine, 'utf8')}`);
    run();
    const check = bench(['check', '--baseline', 'b.json', '--db', 'r.duckdb'], cwd);
    expect(check.code).toBe(101);
    expect(check.stdout).toContain(`strategy source changed: conf/mine.mjs ${before} -> ${sourceDigest(readFileSync(mine))}`);
  });
});
