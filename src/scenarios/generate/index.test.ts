import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bench, expectOneLineError, tempDir } from '../../../test/helpers/cli.js';
import { extractFacts } from '../../core/facts.js';
import { createTokenCounter, type TokenCounter } from '../../core/tokens.js';
import { loadScenario } from '../load.js';
import { parseScenario } from '../scenario.js';
import { turns } from '../turns.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { generateScenario } from './index.js';
import { syntheticId } from './naming.js';
import { GENERATE_DEFAULTS, GENERATE_LIMITS, type GenerateOptions } from './options.js';
import { SYNTHETIC_SUITE } from './suite.js';
import { FACT_WORDS } from './vocabulary.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

type Assistant = Extract<ScenarioFileMessage, { role: 'assistant' }>;
const assistants = (s: ScenarioFile): Assistant[] => s.messages.filter((m): m is Assistant => m.role === 'assistant');
const toolOutputs = (s: ScenarioFile) => s.messages.filter((m): m is Extract<ScenarioFileMessage, { role: 'tool' }> => m.role === 'tool');
const textOf = (m: ScenarioFileMessage): string =>
  m.role === 'assistant' ? [m.content ?? '', ...(m.toolCalls ?? []).map((c) => (typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)))].join('\n') : m.content;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Index of the assistant message that starts each step. */
const stepStarts = (s: ScenarioFile): number[] => s.messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

describe('generateScenario: determinism', () => {
  it('gives the same object, and the same JSON, for the same options', () => {
    const options: GenerateOptions = { steps: 300, seed: 7, factDensity: 12, parallelShare: 0.3, followUpShare: 0.1 };
    const [a, b] = [generateScenario(options), generateScenario(options)];
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('differs between seeds, and only the seed changes the id', () => {
    const [a, b] = [generateScenario({ steps: 60, seed: 1 }), generateScenario({ steps: 60, seed: 2 })];
    expect(JSON.stringify(a.messages)).not.toBe(JSON.stringify(b.messages));
    expect(a.probes).not.toEqual(b.probes);
    expect([a.id, b.id]).toEqual(['synthetic-s60-seed1', 'synthetic-s60-seed2']);
  });

  it('encodes the knobs that differ from the defaults in the id, and the regenerating command in source.notes', () => {
    expect(syntheticId({ steps: 500, seed: 7 })).toBe('synthetic-s500-seed7');
    expect(syntheticId()).toBe(`synthetic-s${GENERATE_DEFAULTS.steps}-seed${GENERATE_DEFAULTS.seed}`);
    const s = generateScenario({ steps: 40, seed: 3, outputTokens: 80, factDensity: 10, parallelShare: 0.5, model: 'qwen3-coder:30b', contextWindow: 32768 });
    expect(s.id).toBe('synthetic-s40-seed3-o80-f10-p0.5-mqwen3-coder:30b-w32768');
    expect(s.model).toEqual({ name: 'qwen3-coder:30b', contextWindow: 32768 });
    expect(s.source?.notes).toBe('Regenerate with: bench scenarios gen --steps 40 --seed 3 --output-tokens 80 --fact-density 10 --parallel 0.5 --model qwen3-coder:30b --window 32768');
    expect(s.tags).toContain('synthetic');
  });
});

describe('generateScenario: validity', () => {
  const cases: GenerateOptions[] = [
    { steps: 20, seed: 0 },
    { steps: 20, seed: 1, factDensity: 50, parallelShare: 1, followUpShare: 0.5 },
    { steps: 21, seed: 2, factDensity: 0, parallelShare: 0, followUpShare: 0 },
    { steps: 150, seed: 3, outputTokens: 10, maxOutputTokens: 64, heavyTailShare: 0.5 },
    { steps: 400, seed: 4_294_967_295, factDensity: 30, bashStyle: 'openhands' },
    { steps: 90, seed: 11, outputTokens: 2000, bashStyle: 'returncode', contextWindow: 1_000_000 },
    ...Array.from({ length: 12 }, (_, i) => ({ steps: 20 + i * 37, seed: 100 + i, factDensity: i * 4 })),
  ];

  it.each(cases.map((c) => [JSON.stringify(c), c]))('%s passes parseScenario with the requested step count', (_, options) => {
    const data = generateScenario(options);
    const scenario = parseScenario(data, 'generated.json');
    expect(turns(scenario)).toHaveLength(options.steps!);
    expect(scenario.probes).toHaveLength(data.probes!.length);
    // Every assistant turn thinks aloud; the last one answers without calls.
    for (const a of assistants(data)) expect((a.content ?? '').trim().length).toBeGreaterThan(10);
    expect(assistants(data).at(-1)!.toolCalls ?? []).toEqual([]);
  });
});

describe('generateScenario: planted facts and probes', () => {
  const scenarios = [
    generateScenario({ steps: 400, seed: 5, factDensity: 20 }),
    generateScenario({ steps: 120, seed: 9, factDensity: 50, parallelShare: 0.6, outputTokens: 40 }),
    generateScenario({ steps: 2000, seed: 13 }),
    ...SYNTHETIC_SUITE.map((o) => generateScenario(o)),
  ];

  it('plants round(density x steps / 100) facts, one probe each, with unique ids, answers and questions', () => {
    expect(generateScenario({ steps: 400, seed: 1, factDensity: 20 }).probes).toHaveLength(80);
    expect(generateScenario({ steps: 200, seed: 1, factDensity: 0 }).probes).toEqual([]);
    expect(generateScenario({ steps: 250, seed: 1, factDensity: 6 }).probes).toHaveLength(15);
    for (const s of scenarios) {
      const probes = s.probes!;
      for (const key of ['id', 'answer', 'question'] as const) expect(new Set(probes.map((p) => p[key])).size).toBe(probes.length);
      expect(probes.map((p) => p.step)).toEqual([...probes.map((p) => p.step)].sort((a, b) => a - b));
    }
  });

  it('every answer is planted in one tool output before its step, and appears nowhere else but the next thought', () => {
    for (const s of scenarios) {
      const starts = stepStarts(s);
      for (const probe of s.probes!) {
        const holders = s.messages.flatMap((m, i) => (textOf(m).includes(probe.answer) ? [i] : []));
        const plant = holders[0]!;
        expect(s.messages[plant]!.role, `${s.id} ${probe.id}`).toBe('tool');
        expect(plant).toBeGreaterThan(1); // not the system prompt or the task
        expect(plant).toBeLessThan(starts[probe.step]!);
        // The plant step is at least two steps before the probe.
        const plantStep = starts.filter((i) => i < plant).length - 1;
        expect(probe.step - plantStep).toBeGreaterThanOrEqual(2);
        // Besides the plant, only the assistant turn right after it may mention the answer.
        const next = starts[plantStep + 1]!;
        expect(holders.slice(1).every((i) => i === next), `${s.id} ${probe.id}: ${probe.answer} at ${holders.join(',')}`).toBe(true);
        // The answer is a distinctive fact in ctxbench's sense, so mock recall can keep or lose it.
        expect(extractFacts(textOf(s.messages[plant]!))).toContain(probe.answer);
        expect(probe.question).not.toContain(probe.answer);
      }
    }
  });

  it('probes reach well past their plant: some gaps are long', () => {
    const s = generateScenario({ steps: 1000, seed: 21, factDensity: 10 });
    const starts = stepStarts(s);
    const gaps = s.probes!.map((p) => {
      const plant = s.messages.findIndex((m) => textOf(m).includes(p.answer));
      return p.step - (starts.filter((i) => i < plant).length - 1);
    });
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2);
    expect(gaps.filter((g) => g >= 100).length).toBeGreaterThan(10);
    expect(gaps.filter((g) => g <= 10).length).toBeGreaterThan(5);
  });

  it('the sometimes-mentioned answers do show up in the next thought', () => {
    const s = generateScenario({ steps: 400, seed: 5, factDensity: 20 });
    const mentioned = s.probes!.filter((p) => assistants(s).some((a) => (a.content ?? '').includes(p.answer)));
    expect(mentioned.length).toBeGreaterThan(10);
    expect(mentioned.length).toBeLessThan(s.probes!.length - 10);
  });
});

describe('generateScenario: knobs', () => {
  it('parallelShare sets the share of tool-calling steps with 2-4 calls', () => {
    for (const share of [0, 0.2, 0.6]) {
      const s = generateScenario({ steps: 1000, seed: 3, parallelShare: share });
      const calling = assistants(s).filter((a) => (a.toolCalls ?? []).length > 0);
      const parallel = calling.filter((a) => a.toolCalls!.length > 1);
      expect(Math.abs(parallel.length / calling.length - share)).toBeLessThan(0.05);
      expect(parallel.every((a) => a.toolCalls!.length <= 4)).toBe(true);
    }
  });

  it('followUpShare sets the share of steps followed by a user message', () => {
    for (const share of [0, 0.1, 0.3]) {
      const s = generateScenario({ steps: 1000, seed: 4, followUpShare: share });
      const users = s.messages.filter((m) => m.role === 'user').length - 1; // minus the task
      expect(Math.abs(users / 1000 - share)).toBeLessThan(0.04);
    }
  });

  it('outputTokens sets the median read_file / grep / bash output; maxOutputTokens caps every output', () => {
    for (const [target, max] of [
      [300, 12_000],
      [1000, 4000],
    ] as const) {
      const s = generateScenario({ steps: 600, seed: 8, outputTokens: target, maxOutputTokens: max });
      const sizes = toolOutputs(s)
        .filter((m) => ['read_file', 'grep', 'bash'].includes(m.name!) && m.content.length > 0)
        .map((m) => counter.countText(m.content));
      expect(median(sizes) / target).toBeGreaterThan(0.85);
      expect(median(sizes) / target).toBeLessThan(1.2);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(max);
    }
  });

  it('heavyTailShare sets how many outputs are large; some are huge', () => {
    const large = (tail: number): number[] => {
      const s = generateScenario({ steps: 800, seed: 10, outputTokens: 200, heavyTailShare: tail });
      return toolOutputs(s)
        .map((m) => counter.countText(m.content))
        .filter((n) => n > 200 * 4);
    };
    const [none, some, many] = [large(0), large(0.1), large(0.3)];
    expect(none.length).toBeLessThan(some.length / 3);
    expect(some.length).toBeLessThan(many.length);
    expect(many.some((n) => n > 200 * 25)).toBe(true);
  });

  it('has a realistic tool mix: every tool, empty results, unicode, exit-code footers', () => {
    const s = generateScenario({ steps: 500, seed: 12 });
    const outputs = toolOutputs(s);
    const names = new Set(outputs.map((m) => m.name));
    expect([...names].sort()).toEqual(['bash', 'edit_file', 'grep', 'read_file', 'write_file']);
    expect(outputs.some((m) => m.content === '')).toBe(true);
    expect(s.messages.some((m) => /[^\x00-\x7f]/.test(textOf(m)))).toBe(true);
    const calls = assistants(s).flatMap((a) => a.toolCalls ?? []);
    const args = (name: string) => calls.filter((c) => c.name === name).map((c) => JSON.parse(c.arguments as string) as Record<string, unknown>);
    expect(args('write_file').every((a) => typeof a.content === 'string' && a.content.length > 0)).toBe(true);
    expect(args('edit_file').every((a) => typeof a.old_str === 'string' && typeof a.new_str === 'string')).toBe(true);
    expect(outputs.filter((m) => m.name === 'grep' && m.content).every((m) => /^[\w./-]+:\d+:/.test(m.content))).toBe(true);
    const styles = new Set(
      [1, 2, 3, 4, 5, 6].flatMap((seed) =>
        toolOutputs(generateScenario({ steps: 40, seed }))
          .filter((m) => m.name === 'bash')
          .map((m) => (/\n?\[Command finished with exit code \d+\]$/.test(m.content) ? 'openhands' : /^<returncode>\d+<\/returncode>\n<output>\n[\s\S]*<\/output>$/.test(m.content) ? 'returncode' : 'other')),
      ),
    );
    expect([...styles].sort()).toEqual(['openhands', 'returncode']);
  });

  it('no fact, and nothing planted, in the system prompt or the task', () => {
    const s = generateScenario({ steps: 200, seed: 14, factDensity: 30 });
    const prelude = s.messages.slice(0, 2).map(textOf).join('\n');
    expect(s.messages.slice(0, 2).map((m) => m.role)).toEqual(['system', 'user']);
    for (const p of s.probes!) expect(prelude).not.toContain(p.answer);
    expect(FACT_WORDS.filter((w) => prelude.includes(w))).toEqual([]);
  });

  it('rejects out-of-range options with a one-line error naming the option', () => {
    expect(() => generateScenario({ steps: 5 })).toThrow(/^steps 5: expected 20 to 10000$/);
    expect(() => generateScenario({ steps: 10001 })).toThrow(/^steps 10001: expected 20 to 10000$/);
    expect(() => generateScenario({ steps: 50.5 })).toThrow(/expected 20 to 10000/);
    expect(() => generateScenario({ parallelShare: 1.5 })).toThrow(/^parallelShare 1.5: expected a fraction in \[0, 1\]$/);
    expect(() => generateScenario({ factDensity: -1 })).toThrow(/^factDensity -1: expected a number in \[0, 50\]$/);
    expect(() => generateScenario({ seed: -1 })).toThrow(/^seed -1: expected 0 to 4294967295$/);
    expect(() => generateScenario({ outputTokens: 5000, maxOutputTokens: 1000 })).toThrow(/above maxOutputTokens 1000/);
  });
});

describe('generateScenario: the largest task', () => {
  // How fast it generates is scripts/bench-speed.ts's to measure; a test asserts what it generates.
  it(`generates ${GENERATE_LIMITS.steps.max.toLocaleString('en-US')} steps, every one a valid step`, () => {
    const s = generateScenario({ steps: GENERATE_LIMITS.steps.max, seed: 99 });
    expect(assistants(s)).toHaveLength(GENERATE_LIMITS.steps.max);
    expect(() => parseScenario(s, 'generated.json')).not.toThrow();
  });
});

describe('bundled suite (scenarios/synthetic)', () => {
  const dir = path.join(ROOT, 'scenarios/synthetic');

  it('holds exactly the suite, each file byte-identical to a fresh generation, small enough to ship', async () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(SYNTHETIC_SUITE.map((o) => `${syntheticId(o)}.json`).sort());
    let total = 0;
    for (const options of SYNTHETIC_SUITE) {
      const file = path.join(dir, `${syntheticId(options)}.json`);
      expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(generateScenario(options), null, 1)}\n`);
      const { scenario, format } = await loadScenario(file);
      expect(format).toBe('ctxbench');
      expect(scenario.probes.length).toBeGreaterThan(0);
      total += statSync(file).size;
    }
    expect(total).toBeLessThan(1.5 * 1024 * 1024);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('bench scenarios gen --suite -o scenarios/synthetic/');
  });
});

// ---------------------------------------------------------------------------------------------------
// The CLI end to end: the built `bench` spawned as a user runs it (test/global-setup.ts builds it).

describe('bench scenarios gen (built CLI)', () => {

  it('writes one file that `bench scenarios validate` accepts, equal to the API output', () => {
    const cwd = tempDir();
    const r = bench(['scenarios', 'gen', '-o', 'long.json', '--steps', '120', '--seed', '7', '--fact-density', '10', '--parallel', '0.3'], cwd);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^wrote long\.json \(120 steps, 12 probes, \d+ KB\)$/m);
    const text = readFileSync(path.join(cwd, 'long.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify(generateScenario({ steps: 120, seed: 7, factDensity: 10, parallelShare: 0.3 }), null, 1)}\n`);
    const check = bench(['scenarios', 'validate', 'long.json'], cwd);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^ok\s+long\.json \(ctxbench, 120 steps\)/);
  });

  it('--count writes K files with seeds seed..seed+K-1 into a folder; without -o it prints JSON', () => {
    const cwd = tempDir();
    const r = bench(['scenarios', 'gen', '--count', '3', '--seed', '5', '--steps', '30', '-o', 'many'], cwd);
    expect(r.code).toBe(0);
    expect(readdirSync(path.join(cwd, 'many')).sort()).toEqual(['synthetic-s30-seed5.json', 'synthetic-s30-seed6.json', 'synthetic-s30-seed7.json']);
    expect(bench(['scenarios', 'validate', 'many'], cwd).code).toBe(0);
    const out = bench(['scenarios', 'gen', '--steps', '20', '--seed', '2', '--window', '32k'], cwd);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(generateScenario({ steps: 20, seed: 2, contextWindow: 32768 }));
    expect(existsSync(path.join(cwd, 'synthetic-s20-seed2-w32768.json'))).toBe(false);
  });

  it('--suite rewrites the bundled suite exactly', () => {
    const cwd = tempDir();
    expect(bench(['scenarios', 'gen', '--suite', '-o', 'suite/'], cwd).code).toBe(0);
    for (const options of SYNTHETIC_SUITE) {
      const name = `${syntheticId(options)}.json`;
      expect(readFileSync(path.join(cwd, 'suite', name), 'utf8')).toBe(readFileSync(path.join(ROOT, 'scenarios/synthetic', name), 'utf8'));
    }
  });

  it('bad flags: one line naming the flag, exit 1, nothing written', () => {
    const cwd = tempDir();
    expectOneLineError(bench(['scenarios', 'gen', '--steps', '5', '-o', 'x.json'], cwd), /^bench: --steps 5: expected 20 to 10000$/m);
    expectOneLineError(bench(['scenarios', 'gen', '--steps', 'many'], cwd), /^bench: --steps many: expected 20 to 10000$/m);
    expectOneLineError(bench(['scenarios', 'gen', '--parallel', '2'], cwd), /^bench: --parallel 2: expected a fraction in \[0, 1\]$/m);
    expectOneLineError(bench(['scenarios', 'gen', '--fact-density', '80'], cwd), /^bench: --fact-density 80: expected a number in \[0, 50\]$/m);
    expectOneLineError(bench(['scenarios', 'gen', '--window', 'lots'], cwd), /^bench: --window lots: expected a whole number from 256 to 2147483647/m);
    expectOneLineError(bench(['scenarios', 'gen', '--count', '0', '-o', 'd/'], cwd), /^bench: --count 0: expected a whole number from 1 to 1000$/m);
    expectOneLineError(bench(['scenarios', 'gen', '--count', '3'], cwd), /^bench: --count 3: writes several files; pass -o FOLDER\/$/m);
    expectOneLineError(bench(['scenarios', 'gen', '--bash-style', 'zsh'], cwd), /^bench: --bash-style zsh: expected openhands or returncode$/m);
    expectOneLineError(bench(['scenarios', 'gen', '--output-tokens', '20000'], cwd), /^bench: --output-tokens 20000: above --max-output-tokens 12000/m);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('--help lists every knob with its range and default', () => {
    const r = bench(['scenarios', 'gen', '--help'], tempDir());
    expect(r.code).toBe(0);
    const d = GENERATE_DEFAULTS;
    for (const text of [
      `20 to 10000 (default ${d.steps})`,
      `(default ${d.seed})`,
      `(default ${d.outputTokens})`,
      `(default ${d.heavyTailShare})`,
      `(default ${d.maxOutputTokens})`,
      `(default ${d.factDensity})`,
      `(default ${d.parallelShare})`,
      `(default ${d.followUpShare})`,
      `(default ${d.model})`,
    ]) {
      expect(r.stdout.replace(/\s+/g, " ")).toContain(text);
    }
  });
});
