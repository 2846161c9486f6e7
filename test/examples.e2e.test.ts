/**
 * Every example a user is shown runs, as shown: the command and config examples of README.md (fenced
 * `sh`/`bash`/`yaml`/`json` blocks, inline `bench ...` commands, the blocks that show what a command
 * prints) and the "Examples:" of every `bench <command> --help`. They are found by test/helpers/examples.ts
 * (its header lists the README's conventions), never listed here, so a new example runs the day it is
 * written.
 *
 * How an example runs: in a temp folder prepared like a user's project (FILES, SETUP), in a real shell
 * whose `bench`, `npx bench` and `duckdb` are the built CLI and a DuckDB stand-in (helpers/example-shell.ts),
 * one command line after the other, in the order they are shown (README examples in one folder, help
 * examples in another, the two side by side), so `bench report --db results.duckdb` reads what `bench
 * run --db results.duckdb` wrote before it. Live backends answer from the project's model server on
 * 127.0.0.1 (OLLAMA_HOST and OPENAI_BASE_URL point at it, SUBSTITUTIONS map the URLs examples name),
 * which serves the models the examples name, but those named only by examples that fail on purpose. A
 * `bench run` or `bench sweep` that names no scenario gets one small generated scenario (SMALL) on one
 * worker thread, unless a README block shows its output: those run as written, on the bundled suite.
 * Each must exit 0, or the code its `# exit N` comment says; a block of output must appear in what its
 * commands print; an inline synopsis (`bench report [--db file]`) must name a command and flags that exist.
 *
 * When a new example fails here because it names something a user would have and this folder has not:
 * - a URL or a value that cannot work here (a remote host, a fixed port): a row in SUBSTITUTIONS;
 * - a file the user would have (their logs, a trajectory, a database of main): a row in FILES (copied
 *   from fixtures or written) or SETUP (made by a bench command);
 * - a command that cannot run here at all: a row in NOT_RUN, with the reason;
 * - a block another test runs and checks more closely: a row in RUN_ELSEWHERE naming it;
 * - a ```text block that shows no command's output (a diagram, a listing): a row in NOT_OUTPUT.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildProgram } from '../src/cli/program.js';
import { generateScenario } from '../src/scenarios/generate/index.js';
import { startModelServer, type ModelSpec, type RunningServer } from '../src/server/index.js';
import { ROOT, tempDir } from './helpers/cli.js';
import { exampleShell, type ExampleShell, type Ran } from './helpers/example-shell.js';
import { andList, helpExamples, markdownExamples, missingOutput, printedText, shellCommands, words, type Example, type ExampleCommand } from './helpers/examples.js';

/** What a stand-in depends on: the model server's URL, the temp folder, the small scenario. */
interface Here {
  readonly server: string;
  readonly root: string;
  readonly small: string;
}

/** Text an example writes that cannot work here, and what takes its place. */
const SUBSTITUTIONS: readonly { find: string | RegExp; by: (here: Here) => string; why: string }[] = [
  { find: 'https://api.openai.com/v1', by: (h) => `${h.server}/v1`, why: 'OpenAI itself: the model server speaks its protocol, no key needed' },
  { find: /http:\/\/127\.0\.0\.1:11434/g, by: (h) => h.server, why: "a local Ollama's default address" },
  { find: 'http://gpu-box:11434', by: (h) => h.server, why: 'an Ollama on another machine' },
  { find: /--port \d+/g, by: () => '--port 0', why: 'a fixed port may be taken on a shared machine: any free one' },
  { find: /\$\{\{\s*github\.run_id\s*\}\}/g, by: () => '1', why: "a GitHub Actions expression: the workflow's run id" },
];

/**
 * The model server serves every model an example that should succeed names (below: servedModels), at
 * the context length the README gives it, else at LARGE_CONTEXT (above any window an example asks for).
 */
const MODEL_CONTEXT: Readonly<Record<string, number>> = { 'qwen2.5-coder:7b': 32_768 };
const LARGE_CONTEXT = 131_072;

/** A mini-swe-agent run as it publishes it: a trajectory, its outcome labels beside it. */
const MINI_SWE_RUN = path.join(ROOT, 'fixtures/trajectories/mini-swe-agent-gemini3pro');
/** A recorded trajectory as a user's agent wrote it (mini-swe-agent). */
const TRAJECTORY = path.join(MINI_SWE_RUN, 'trajs/django__django-14155/django__django-14155.traj.json');

/**
 * The strategy file of the README's "Write your own strategy"; its `ctxbench` import finds the built package
 * through the stand-in under node_modules below (test/strategy-package.e2e.test.ts installs it as a user does).
 */
function readmeStrategy(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Write your own strategy\n'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  return code;
}

/** Files the examples expect a user to have, relative to the folder the examples run in. */
const FILES: readonly { path: string; from?: string; text?: string; why: string }[] = [
  { path: '../my-agent/logs/django__django-14155.traj.json', from: TRAJECTORY, why: "the user's agent logs" },
  { path: 'my-agent-logs/django__django-14155.traj.json', from: TRAJECTORY, why: "the user's agent logs" },
  { path: 'logs/django__django-14155/django__django-14155.traj.json', from: TRAJECTORY, why: 'what "logs/**/*.traj.json" finds' },
  { path: 'trajs/django__django-12708.traj.json', from: TRAJECTORY, why: 'a trajectory to import' },
  ...['trajs/django__django-14155/django__django-14155.traj.json', 'logs/django__django-14155/report.json', 'results_summary.json'].map((file) => ({
    path: `mini-swe-agent-run/${file}`,
    from: path.join(MINI_SWE_RUN, file),
    why: 'a mini-swe-agent run as published: the folder walked like a dataset root',
  })),
  {
    path: 'broken.json',
    text: JSON.stringify({ ctxbench: 1, id: 'broken', model: { name: 'gpt-4o' }, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', toolCalls: [{ id: 1, name: 'bash', arguments: '{}' }] }] }),
    why: "the README's malformed scenario: a tool call id that is a number",
  },
  { path: 'afile', text: '', why: 'a file where --db wants a folder' },
  { path: 'examples/strategies/broken-drops-results.ts', from: path.join(ROOT, 'examples/strategies/broken-drops-results.ts'), why: "the repository's broken example strategy, as in a checkout" },
  {
    path: 'node_modules/ctxbench/index.js',
    text: `export * from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/sdk/index.js')).href)};\n`,
    why: "ctxbench as installed, for a strategy file's `import ... from 'ctxbench'`: the built package itself",
  },
  { path: 'node_modules/ctxbench/package.json', text: JSON.stringify({ name: 'ctxbench', type: 'module', exports: './index.js' }), why: 'the same' },
  { path: 'my-strategy.ts', text: readmeStrategy(), why: "the README's strategy file, as a user writes it" },
];

/** bench commands that make what examples read before anything produced it (a database of main, baselines). */
const SETUP: readonly { args: (here: Here) => string[]; why: string }[] = [
  { args: (h) => ['run', '--scenario', h.small, '--no-report', '--db', 'main.duckdb'], why: 'main.duckdb: the results of main, for --baseline' },
  { args: () => ['baseline', '--db', 'main.duckdb', '-o', 'b.json'], why: 'b.json: a baseline for bench check' },
  { args: () => ['baseline', '--db', 'main.duckdb', '-o', '.ci/baseline.json'], why: "the project's committed baseline" },
];

/** Commands that cannot run here: skipped, each for its reason. */
const NOT_RUN: readonly { command: RegExp; why: string }[] = [
  { command: /^npm ci\b/, why: 'installs the packages: this test runs with them installed' },
  { command: /^npm test\b/, why: 'runs the test suite this test is part of' },
  { command: /^ollama (serve|pull)\b/, why: 'needs Ollama installed; the model server answers in its place (OLLAMA_HOST)' },
  { command: /^python\b/, why: 'needs Python with pandas, which ctxbench does not depend on' },
];

/**
 * Shell blocks another test runs and checks closer than an exit code, and blocks of output another test
 * compares with what it prints, by their first command: run there only, not twice (each would be a
 * second replay of the same matrix). A command whose output is checked there runs here as any other.
 */
const RUN_ELSEWHERE: readonly { kind: 'shell' | 'output'; startsWith: string; runBy: string; why: string }[] = [
  { kind: 'shell', startsWith: 'npx bench serve-mock --port 11435 ', runBy: 'test/live.e2e.test.ts', why: 'runs the live example against its own serve-mock and compares the tables it prints with the ones the README shows' },
  { kind: 'shell', startsWith: 'npx bench run -s masking --param softThreshold=0.5 ', runBy: 'test/gate.e2e.test.ts', why: "runs the gate example as written, against the project's baseline, and compares what it prints with the README" },
  { kind: 'output', startsWith: 'npx bench run --window 32k', runBy: 'test/cli.e2e.test.ts', why: 'runs it as the README main job and checks its tables, calibration and database' },
  { kind: 'output', startsWith: 'npx bench run --strategy all --window 32k', runBy: 'test/cli.e2e.test.ts', why: 'runs it to check every strategy over the bundled scenarios, and their report' },
];

/** ```text blocks that show no command's output, by their first line. */
const NOT_OUTPUT: readonly { startsWith: string; why: string }[] = [
  { startsWith: 'bench: 1 of 2 runs ended with a backend error', why: 'test/live.e2e.test.ts makes it against a server that fails and compares it' },
  {
    startsWith: 'strategy  runs    steps  sessions  restarts  total input tokens  cached  overhead  LLM calls   cost  peak ctx  mean ctx  overflowed\n' +
      '--------  ----  -------  --------  --------  ------------------  ------  --------  ---------  -----  --------  --------  ------------\nraw          3   82/117',
    why: "test/live.e2e.test.ts runs the live example against its own serve-mock and compares these tables",
  },
  { startsWith: 'configuration changed: masking.softThreshold 0.7 -> 0.5 (12 runs', why: "test/gate.e2e.test.ts runs it against the project's own baseline and compares it word for word" },
  { startsWith: 'cli         -> every layer below', why: "the layers' import table (test/architecture.test.ts checks it)" },
  { startsWith: 'src/core        messages,', why: 'what each folder holds' },
];

/** Programs a command line may start with: the built CLI, the DuckDB stand-in, plain shell tools, and node (which ctxbench runs on). */
const RUNNABLE = new Set(['bench', 'npx', 'duckdb', 'cat', 'node']);

/** Commands that serve until Ctrl-C: started, stopped with SIGINT once they print `ready`. */
const SERVERS: readonly { command: RegExp; ready: RegExp }[] = [{ command: /\bbench serve-mock\b/, ready: /^serving mock models at http:\/\/127\.0\.0\.1:\d+$/m }];

/** The scenario a `bench run` or `bench sweep` example gets when it names none: 20 steps, fits 32k. */
const SMALL = { steps: 20, seed: 1, outputTokens: 60, maxOutputTokens: 400, factDensity: 20, contextWindow: 32_768 };

const README = 'README.md';
const readmeExamples = markdownExamples(readFileSync(path.join(ROOT, README), 'utf8'), README);
const program = buildProgram({ interruptible: (work) => work(new AbortController().signal) });
const helpByCommand = allCommands(program).map((command) => ({ command, examples: helpExamples(helpText(command)) }));
/** Commands whose output a README block shows (and no other test checks): they run as written, on the bundled suite. */
const shownOutput = new Set(readmeExamples.flatMap((e) => (e.kind === 'output' && !runElsewhere(e) ? e.commands.map((c) => normalize(c.text)) : [])));

let server: RunningServer;
let here: Here;
let sh: ExampleShell;

beforeAll(async () => {
  server = await startModelServer({ models: servedModels() });
  const root = tempDir('ctxbench-examples-');
  here = { server: server.url, root, small: path.join(root, 'small-scenario.json') };
  writeFileSync(here.small, JSON.stringify(generateScenario(SMALL)));
  sh = exampleShell(root, {
    OLLAMA_HOST: server.url,
    OPENAI_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: '',
    GITHUB_STEP_SUMMARY: path.join(root, 'github-step-summary.md'),
  });
  const seed = path.join(root, 'seed');
  for (const file of FILES) {
    const to = path.resolve(seed, file.path);
    mkdirSync(path.dirname(to), { recursive: true });
    if (file.from) cpSync(file.from, to);
    else writeFileSync(to, file.text ?? '');
  }
  for (const step of SETUP) {
    const r = await sh.run(['bench', ...step.args(here).map(quote)].join(' '), seed);
    expect(r.code, `setup (${step.why}): ${r.stderr}`).toBe(0);
  }
  for (const folder of ['readme', 'help']) cpSync(seed, path.join(root, folder), { recursive: true });
});

afterAll(async () => {
  sh?.stopAll();
  await server?.close();
});

// The README's examples and the help's run side by side (each in its own folder), each in order.
describe.concurrent(`${README}: every example runs`, () => {
  const cwd = (): string => path.join(here.root, 'readme');
  /** What each command printed, by its text: the output blocks read it. */
  const printed = new Map<string, Ran>();
  for (const example of readmeExamples) {
    it.sequential(`${example.where}: ${title(example)}`, async () => {
      switch (example.kind) {
        case 'shell': {
          const elsewhere = runElsewhere(example);
          if (elsewhere) return expectReadsReadme(elsewhere.runBy);
          for (const command of example.commands) await runLine(command, cwd(), { printed });
          return;
        }
        case 'output': {
          const elsewhere = runElsewhere(example);
          if (elsewhere) return expectReadsReadme(elsewhere.runBy);
          return checkOutput(example, cwd(), printed);
        }
        case 'data':
          return runData(example, cwd());
        case 'usage':
          return checkUsage(example.text);
        case 'text': {
          const allowed = NOT_OUTPUT.some((n) => example.text.startsWith(n.startsWith));
          expect(allowed, 'a ```text block with no <!-- output of: COMMAND --> before it: if it shows what a command prints, add the comment; if not, a row in NOT_OUTPUT').toBe(true);
          return;
        }
        case 'code': {
          expect(example.runBy, 'a ```ts block: name the test that runs it in <!-- run by: test/FILE.test.ts --> before it').toBeDefined();
          return expectReadsReadme(example.runBy!);
        }
        case 'unknown':
          expect.fail(`a \`\`\`${example.language} block: give it a language this test runs (sh, yaml, json), ts (with the test that runs it) or text`);
      }
    }, 240_000);
  }
});

describe.concurrent('bench --help: every example runs', () => {
  const cwd = (): string => path.join(here.root, 'help');
  for (const { command, examples } of helpByCommand) {
    for (const example of examples) {
      it.sequential(`bench ${commandPath(command)} --help: ${example.text}`, async () => {
        await runLine(example, cwd());
      }, 240_000);
    }
  }
});

describe('bench --help: every option line', () => {
  it('prints a default only when it says something (a repeatable option starts from no list, not "[]")', () => {
    const lines = helpByCommand.flatMap(({ command }) => helpText(command).split('\n').map((line) => `bench ${commandPath(command)}: ${line}`));
    expect(lines.filter((line) => line.includes('(default: [])'))).toEqual([]);
    // The repeatable options are still there, with their text.
    expect(lines.some((line) => line.startsWith('bench run:   --preset <names>'))).toBe(true);
  });
});

/** The RUN_ELSEWHERE row of a shell or output block, if another test runs it. */
function runElsewhere(example: Example): (typeof RUN_ELSEWHERE)[number] | undefined {
  if (example.kind !== 'shell' && example.kind !== 'output') return undefined;
  const first = normalize(example.commands[0]?.text ?? '');
  return RUN_ELSEWHERE.find((r) => r.kind === example.kind && first.startsWith(r.startsWith));
}

/** `test`, which runs an example of the README, exists and reads the README. */
function expectReadsReadme(test: string): void {
  const file = path.join(ROOT, test);
  expect(existsSync(file) && readFileSync(file, 'utf8').includes(README), `${test}: no test here reads ${README}`).toBe(true);
}

interface RunOptions {
  /** No small scenario added: the command names its own. */
  readonly asWritten?: boolean;
  /** What the failure message says the command was run for. */
  readonly what?: string;
  /** Where to keep what each part printed, by its text. */
  readonly printed?: Map<string, Ran>;
}

/** Runs one command line, part by part (`a && b`), and checks its exit code; returns what it printed. */
async function runLine(line: ExampleCommand, cwd: string, { asWritten = false, what = '', printed }: RunOptions = {}): Promise<Ran> {
  let last: Ran = { code: 0, stdout: '', stderr: '' };
  for (const part of andList(substitute(line.text))) {
    const executable = words(part.replace(/^(\w+=\S*\s+)+/, ''))[0] ?? '';
    if (NOT_RUN.some((n) => n.command.test(part))) continue;
    expect(RUNNABLE.has(executable), `${part}: not a command this test can run; a row in NOT_RUN says why it cannot`).toBe(true);
    expect(part.match(/https?:\/\/(?!127\.0\.0\.1)[^\s"']+/g) ?? [], `${part}: a URL that leaves this machine: a row in SUBSTITUTIONS maps it`).toEqual([]);
    const served = SERVERS.find((s) => s.command.test(part));
    last = served ? await serveUntilReady(part, cwd, served.ready) : await sh.run(asWritten ? part : shrink(part), cwd);
    printed?.set(normalize(part), last);
    if (last.code !== 0) break;
  }
  expect(last.code, `${what}${line.text}\n${last.stderr}${last.stdout}`).toBe(line.exit);
  return last;
}

/** A block of output: every line of it in what its commands printed (run now if no example ran them). */
async function checkOutput(example: Extract<Example, { kind: 'output' }>, cwd: string, printed: Map<string, Ran>): Promise<void> {
  const outputs: string[] = [];
  for (const command of example.commands) {
    const ran = printed.get(normalize(substitute(command.text))) ?? (await runLine(command, cwd));
    outputs.push(ran.stdout, ran.stderr);
  }
  expect(missingOutput(example.text, printedText(outputs)), `a line the README shows that ${example.commands.map((c) => c.text).join(', ')} does not print`).toBeUndefined();
}

/** A yaml/json block: a scenario file is validated, a GitHub Actions workflow's commands run, anything else is a config file. */
async function runData(example: Extract<Example, { kind: 'data' }>, cwd: string): Promise<void> {
  const text = substitute(example.text);
  if (example.file !== undefined) {
    const to = path.resolve(cwd, example.file);
    mkdirSync(path.dirname(to), { recursive: true });
    return writeFileSync(to, text);
  }
  const data = (example.language === 'json' ? JSON.parse(text) : parseYaml(text)) as Record<string, unknown>;
  if ('ctxbench' in data) {
    writeFileSync(path.join(cwd, 'example-scenario.yaml'), text);
    await runLine({ text: 'bench scenarios validate example-scenario.yaml', exit: 0 }, cwd);
  } else if ('jobs' in data) {
    for (const command of workflowCommands(data)) await runLine(command, cwd);
  } else {
    // A config file: in a folder of its own, so it does not apply to the examples after it.
    const folder = path.join(cwd, `config-${example.where.replace(/\W/g, '-')}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, example.language === 'json' ? 'ctxbench.config.json' : 'ctxbench.config.yaml'), text);
    const what = 'a yaml/json block with neither `ctxbench:` nor `jobs:` and no <!-- file: PATH --> before it is a ctxbench.config.yaml: ';
    await runLine({ text: 'bench run', exit: 0 }, folder, { asWritten: 'scenario' in data, what });
  }
}

/**
 * A GitHub Actions workflow's `run:` steps, job after job, once per matrix combination (actions such
 * as checkout or artifact upload have no counterpart here: every job shares the one folder).
 */
function workflowCommands(workflow: Record<string, unknown>): ExampleCommand[] {
  type Job = { strategy?: { matrix?: Record<string, unknown[]> }; steps?: { run?: string }[] };
  return Object.values(workflow['jobs'] as Record<string, Job>).flatMap((job) =>
    matrixCombinations(job.strategy?.matrix ?? {}).flatMap((values) =>
      (job.steps ?? []).flatMap((step) =>
        step.run === undefined ? [] : shellCommands(step.run.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_, key: string) => String(values[key]))),
      ),
    ),
  );
}

function matrixCombinations(matrix: Record<string, unknown[]>): Record<string, unknown>[] {
  return Object.entries(matrix).reduce<Record<string, unknown>[]>((combos, [key, values]) => combos.flatMap((c) => values.map((v) => ({ ...c, [key]: v }))), [{}]);
}

/**
 * The models examples that should succeed name (`-m ollama:chat:NAME`, `openai:chat:NAME`, a config
 * file's `model:`). A model only examples that fail on purpose name (`# exit 1`) is not served: that is
 * how they fail.
 */
function servedModels(): ModelSpec[] {
  const texts = [
    ...readmeExamples.flatMap((e) => (e.kind === 'shell' || e.kind === 'output' ? e.commands.filter((c) => c.exit === 0).map((c) => c.text) : e.kind === 'data' ? [e.text] : [])),
    ...helpByCommand.flatMap((h) => h.examples.filter((c) => c.exit === 0).map((c) => c.text)),
  ];
  const names = new Set(texts.flatMap((t) => [...t.matchAll(/\b(?:ollama|openai):chat:([^\s"',\]]+)/g)].map((m) => m[1]!)));
  return [...names].map((name) => ({ name, contextLength: MODEL_CONTEXT[name] ?? LARGE_CONTEXT }));
}

/** A synopsis or a mention (`bench run --scenario`): its command exists and has every flag it names. */
function checkUsage(text: string): void {
  const tokens = words(text.replace(/[[\]]/g, ' ')).slice(text.startsWith('npx ') ? 2 : 1);
  let command = program;
  for (const token of tokens) {
    const sub = command.commands.find((c) => c.name() === token);
    if (sub === undefined) break;
    command = sub;
  }
  const flags = tokens.filter((t) => /^--?[a-zA-Z]/.test(t)).map((t) => t.replace(/[=,].*$/, ''));
  const known = new Set([...command.options.flatMap((o) => [o.long, o.short]), '--help', '-h']);
  expect(flags.filter((f) => !known.has(f)), `${text}: flags bench ${commandPath(command)} does not have`).toEqual([]);
  if (/^[a-z][a-z-]*$/.test(tokens[0] ?? '')) expect(commandPath(command), `${text}: no such command`).not.toBe('');
}

/**
 * A `bench run` or `bench sweep` that names no scenario gets SMALL, on one worker thread (a second
 * only costs its start on a scenario this small; results are the same whatever -j), unless a README
 * block shows its output.
 */
function shrink(part: string): string {
  if (shownOutput.has(normalize(part)) || !/\bbench (run|sweep)\b/.test(part) || /--scenario\b/.test(part)) return part;
  return `${part} --scenario ${quote(here.small)}${/(^|\s)(-j|--concurrency)\b/.test(part) ? '' : ' -j 1'}`;
}

const substitute = (text: string): string => SUBSTITUTIONS.reduce((t, s) => t.replaceAll(s.find, s.by(here)), text);

/** A command that serves until Ctrl-C: stopped with Ctrl-C once it says it is ready, it must say it stopped. */
async function serveUntilReady(command: string, cwd: string, ready: RegExp): Promise<Ran> {
  const ran = await sh.serve(command, cwd, ready);
  expect(ran.stdout, `${command}: stopped with Ctrl-C, it says so`).toMatch(/^stopped \(SIGINT\)/m);
  return ran;
}

/** Every command of the program, the program itself first. */
function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/** "scenarios gen" for `bench scenarios gen`; "" for `bench` itself. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** What `bench <command> --help` prints, its added text (the Examples) included. */
function helpText(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

function title(example: Example): string {
  switch (example.kind) {
    case 'shell':
      return example.commands.map((c) => c.text).join('; ');
    case 'output':
      return `what ${example.commands.map((c) => c.text).join(', ')} prints`;
    case 'usage':
      return `${example.text} (names a command and its flags)`;
    case 'data':
      return `a ${example.language} file`;
    case 'text':
      return `a text block: ${example.text.split('\n')[0]}`;
    case 'code':
      return `a ts block, run by ${example.runBy ?? '(no test named)'}`;
    case 'unknown':
      return `a ${example.language} block`;
  }
}

function normalize(command: string): string {
  return command.replace(/\s+/g, ' ').trim();
}

/** `s` as one shell word. */
function quote(s: string): string {
  return /^[\w./:=,@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}
