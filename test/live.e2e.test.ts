/**
 * Live runs end to end: `bench run` spawned as a user runs it, driving the real `ollama` and `openai`
 * clients against the project's protocol-faithful server on 127.0.0.1 (src/server).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type RunningServer, type ServerOptions } from '../src/server/index.js';
import { EXIT_CODES } from '../src/cli/exit-codes.js';
import { startBadUsageProxy, type BadUsageProxy, type UsageOverrides } from './helpers/bad-usage-proxy.js';
import { benchAsync, BIN, deadUrl, expectOneLineError, ROOT, storedRuns, tempDir, type CliResult } from './helpers/cli.js';
import { faultServer, openAiError } from './helpers/fault-server.js';

const SCENARIO = path.join(ROOT, 'scenarios/openhands-codeact-sonnet35/django__django-10880.json');
const SECOND = path.join(ROOT, 'scenarios/mini-swe-agent-gemini3pro/matplotlib__matplotlib-23476.json');
/** A generated scenario with 6 planted facts, each probed later. */
const PROBED = path.join(ROOT, 'scenarios/synthetic/synthetic-s60-seed1-o400-f10.json');

let server: RunningServer | undefined;
let proxy: BadUsageProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  [server, proxy] = [undefined, undefined];
});

async function start(options: ServerOptions = {}): Promise<RunningServer> {
  server = await startModelServer({ models: [{ name: 'mock-model', contextLength: 32768 }], ...options });
  return server;
}

/** `text` as a regular expression that matches it literally. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const lastLine = (text: string): string => text.trim().split('\n').at(-1) ?? '';

const README_LINES = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').map((line) => line.trim());
/** The README shows the last line of `stderr`, with the test server's `url` in place of the one it shows. */
function expectShownInReadme(stderr: string, url: string, shown: string): void {
  expect(README_LINES).toContain(lastLine(stderr).replaceAll(url, shown));
}

const common = ['--scenario', SCENARIO, '-s', 'raw,masking', '--window', '16k', '--db', 'r.duckdb', '--no-report'];

/** The cells of the strategy table's row for `strategy` (the table with a "cached" column). */
function strategyRow(stdout: string, strategy: string): Record<string, string> {
  const lines = stdout.split('\n');
  const header = lines.findIndex((line) => line.startsWith('strategy') && line.includes('cached'));
  const names = lines[header]!.trim().split(/\s{2,}/);
  const cells = lines.slice(header + 2).find((line) => line.startsWith(`${strategy} `))!.trim().split(/\s{2,}/);
  return Object.fromEntries(names.map((name, i) => [name, cells[i]!]));
}

describe('bench run against a live server', () => {
  it("ollama:chat: provider usage in every step, the cached share n/a (Ollama reports none) and the cost local (never a local estimate or the scenario's list prices), then a cached re-run that sends no request", async () => {
    const s = await start();
    const first = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common]);
    expect(first.code).toBe(0);
    expect(first.stderr).not.toMatch(/warning|error/i);
    for (const strategy of ['raw', 'masking']) expect(strategyRow(first.stdout, strategy)).toMatchObject({ cached: 'n/a', cost: 'local' });
    const runs = await storedRuns(first.cwd);
    expect(runs.map((r) => r.config.backend)).toEqual(['ollama:chat:mock-model', 'ollama:chat:mock-model']);
    for (const run of runs) {
      expect(run.summary.cachedInputTokens).toBeUndefined(); // NULL in the database
      expect([run.config.priceModel, run.summary.costUsd]).toEqual(['local', 0]);
    }
    for (const run of runs) {
      expect(run.summary.status === 'completed' || run.summary.status === 'overflow').toBe(true);
      for (const step of run.steps.filter((x) => !(run.summary.status === 'overflow' && x.step === run.summary.failedStep))) {
        expect(step.usageSource).toBe('provider');
        expect(step.providerPromptTokens).toBe(step.promptTokens);
        expect(step.finishReason).toMatch(/^(stop|length)$/); // Ollama's done_reason, stored
        // masking's first steps send exactly what raw sent: answered from the cache already.
        expect(step.cached).toBe(run.config.strategy === 'raw' ? false : step.cached);
      }
    }
    expect(runs[1]!.steps.some((x) => x.cached === true)).toBe(true);
    const chats = s.requests.filter((r) => r.path === '/api/chat');
    expect(chats.length).toBeGreaterThan(0);
    // num_ctx is always sent, = the window; measure mode asks one output token.
    expect(chats.every((r) => (r.body as { options: { num_ctx: number; num_predict: number } }).options.num_ctx === 16384)).toBe(true);

    const before = s.requests.length;
    const again = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common], first.cwd);
    expect(again.code).toBe(0);
    expect(s.requests.length).toBe(before); // not one HTTP request
    expect(again.stdout).toMatch(/Cache: \d+ hit\(s\), 0 request\(s\) sent/);
    const cached = (await storedRuns(first.cwd)).slice(2);
    expect(cached.every((r) => r.steps.every((x) => x.cached !== false))).toBe(true);

    // --price-model still prices a local run at a listed model (its answers from the cache).
    const priced = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common, '--price-model', 'gpt-4o'], first.cwd);
    expect(strategyRow(priced.stdout, 'raw').cost).toMatch(/^\$\d+\.\d\d$/);
  });

  it("openai:chat: streaming with the usage chunk, provider usage recorded; the cached share is the provider's (prompt_tokens_details.cached_tokens), the cost the served model's", async () => {
    const s = await start({ models: [{ name: 'gpt-4o-mini', contextLength: 32768 }, { name: 'mock-model', contextLength: 32768 }] });
    const r = await benchAsync(['run', '-m', 'openai:chat:gpt-4o-mini', '--base-url', `${s.url}/v1`, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    expect(s.requests.some((q) => q.path === '/v1/chat/completions' && (q.body as { stream?: boolean }).stream === true)).toBe(true);
    for (const run of await storedRuns(r.cwd)) {
      expect(run.steps.some((x) => x.usageSource === 'provider')).toBe(true);
      const { inputTokens, outputTokens, cachedInputTokens, costUsd } = run.summary;
      // The server's prompt cache serves the messages an earlier request began with: most of each step.
      expect(cachedInputTokens).toBeGreaterThan(inputTokens / 2);
      expect(cachedInputTokens).toBeLessThanOrEqual(inputTokens);
      expect(run.config.priceModel).toBe('gpt-4o-mini');
      expect(costUsd).toBeCloseTo(((inputTokens - cachedInputTokens!) * 0.15 + cachedInputTokens! * 0.075 + outputTokens * 0.6) / 1e6, 12);
      const share = strategyRow(r.stdout, run.config.strategy).cached!;
      expect(share).toBe(`${((100 * cachedInputTokens!) / inputTokens).toFixed(1)}%`);
    }
    // A model the price table does not know has no cost: "-", never the scenario's list prices.
    const unknown = await benchAsync(['run', '-m', 'openai:chat:mock-model', '--base-url', `${s.url}/v1`, ...common, '--no-cache'], r.cwd);
    expect(strategyRow(unknown.stdout, 'raw').cost).toBe('-');
    expect((await storedRuns(r.cwd)).slice(2).every((run) => run.summary.costUsd === undefined)).toBe(true);
  });

  describe('usage values that are no token count: stored as NULL with a warning naming the field, every run kept', () => {
    const cases: [string, string, UsageOverrides, string][] = [
      // Today: `internal error ... costUsd ... got -190`.
      ['ollama', 'negative', { ollama: { prompt_eval_count: -190 } }, 'prompt_eval_count'],
      // Today: `cannot save run ... invalid INTEGER value 12.5`, and every run lost.
      ['ollama', 'fractional', { ollama: { prompt_eval_count: 12.5 } }, 'prompt_eval_count'],
      ['openai', 'huge', { openai: { prompt_tokens: 1e300 } }, 'usage.prompt_tokens'],
      ['openai', 'a string', { openai: { prompt_tokens: 'abc' } }, 'usage.prompt_tokens'],
      // Today: stored as a provider count, "suspected truncation", and masking never masks.
      ['openai', 'null', { openai: { prompt_tokens: null } }, 'usage.prompt_tokens'],
    ];
    it.each(cases)('%s: %s prompt count', async (route, _what, overrides, field) => {
      const s = await start();
      proxy = await startBadUsageProxy(s.url, overrides);
      const model = route === 'ollama' ? ['-m', 'ollama:chat:mock-model', '--host', proxy.url] : ['-m', 'openai:chat:mock-model', '--base-url', `${proxy.url}/v1`];
      const r = await benchAsync(['run', ...model, ...common, '--no-cache']);
      expect(r.stderr).not.toMatch(/internal error|cannot save/);
      expect(r.code).toBe(0);
      const runs = await storedRuns(r.cwd);
      expect(runs.map((run) => run.config.strategy)).toEqual(['raw', 'masking']);
      for (const run of runs) {
        expect(run.steps.every((x) => x.usageSource === 'local' && x.providerPromptTokens === undefined)).toBe(true);
        const warnings = run.events.filter((e) => e.kind === 'warning');
        expect(warnings.filter((e) => e.detail.startsWith(`${field} = `))).toHaveLength(1);
        expect(warnings.some((e) => e.detail.startsWith('suspected truncation'))).toBe(false);
        expect(run.summary.inputTokens).toBe(run.steps.filter((x) => x.step !== run.summary.failedStep || run.summary.status !== 'overflow').reduce((sum, x) => sum + x.promptTokens, 0));
      }
      // The local counts drive the strategy, as for a provider that reports no usage.
      expect(runs[1]!.events.some((e) => e.kind === 'masked')).toBe(true);
    });
  });

  it("the README's live example prints the tables README shows (serve-mock, both routes)", async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const example = /```sh\n(npx bench serve-mock --port 11435 [^]*?)```\n\n```text\n([^]*?)```/.exec(readme);
    expect(example).not.toBeNull();
    const [serveLine, ...runLines] = example![1]!.trim().split('\n');
    const serveArgs = serveLine!.replace(/^npx bench /, '').replace(/ &$/, '').replace('--port 11435', '--port 0').split(' ');
    const serveMock = spawn(process.execPath, [BIN, ...serveArgs], { env: { ...process.env, NO_COLOR: '1' } });
    try {
      const url = await new Promise<string>((resolve) => {
        let out = '';
        serveMock.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const found = /serving mock models at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (found) resolve(found[1]!);
        });
      });
      const tables: string[] = [];
      const cwd = tempDir('ctxbench-live-');
      for (const line of runLines) {
        const args = line.replace(/^npx bench /, '').replaceAll('http://127.0.0.1:11435', url).replace(' scenarios/', ` ${ROOT}/scenarios/`).split(' ');
        const r = await benchAsync(args, cwd);
        expect(r.code).toBe(0);
        const lines = r.stdout.split('\n');
        const header = lines.findIndex((l) => l.startsWith('strategy') && l.includes('cached'));
        const end = lines.indexOf('', header);
        tables.push(lines.slice(header, end).join('\n'));
      }
      expect(`${tables.join('\n\n')}\n`).toBe(example![2]);
    } finally {
      // Waited for, so no server outlives the test.
      const exited = new Promise((resolve) => serveMock.once('exit', resolve));
      if (serveMock.exitCode === null && serveMock.signalCode === null && serveMock.kill()) await exited;
    }
  });

  it('asks the model each probe question and grades its answer against the expected fact', async () => {
    const s = await start();
    const args = ['run', '-m', 'ollama:chat:mock-model', '--host', s.url, '--scenario', PROBED, '-s', 'masking', '--window', '32k', '--db', 'r.duckdb', '--no-report', '--no-cache'];
    const r = await benchAsync(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+\/6 \(answered; in context v\d+ s\d+ r\d+\)/);
    const [run] = await storedRuns(r.cwd);
    const asked = s.requests.filter((q) => JSON.stringify(q.body).includes('Question: '));
    expect(asked).toHaveLength(6); // one per probe, each answered by the server from the context it got
    expect(run!.probes.every((p) => typeof p.reply === 'string' && typeof p.answered === 'boolean')).toBe(true);
    // The server answers from the context only: a fact it gives back was in the context sent.
    expect(run!.probes.filter((p) => p.answered).every((p) => p.how === 'verbatim' || p.how === 'summary')).toBe(true);
    expect(run!.summary.probes.answered).toBeGreaterThanOrEqual(4);
    const probeSteps = run!.steps.filter((x) => x.purpose === 'probe');
    expect(probeSteps).toHaveLength(6);
    expect(probeSteps.every((x) => x.usageSource === 'provider' && x.finishReason !== undefined)).toBe(true);

    const judged = await benchAsync([...args, '--probes', 'context'], r.cwd);
    expect(judged.code).toBe(0);
    const [, onContext] = await storedRuns(r.cwd);
    expect(onContext!.summary.probes.answered).toBeUndefined();
    expect(onContext!.steps.some((x) => x.purpose === 'probe')).toBe(false);
  });

  it('a server that is down at the start: one line naming the URL and how to start Ollama', async () => {
    const s = await start();
    const url = s.url;
    await s.close();
    server = undefined;
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', url, ...common]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`cannot reach Ollama at ${url}`);
    expect(r.stderr).toContain('ollama serve');
  });

  it('an unknown model: the message names it and suggests ollama pull', async () => {
    const s = await start();
    const r = await benchAsync(['run', '-m', 'ollama:chat:llama9', '--host', s.url, ...common]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no model 'llama9'; run `ollama pull llama9`/);
  });

  describe('the preflight: one check before the first request a run sends', () => {
    const ollamaArgs = (url: string, model = 'mock-model') => ['run', '-m', `ollama:chat:${model}`, '--host', url, ...common];
    const openAiArgs = (url: string, model = 'mock-model') => ['run', '-m', `openai:chat:${model}`, '--base-url', `${url}/v1`, ...common];
    /** A folder whose .ctxbench-cache an earlier run filled (mock-model at `url`, a server closed since). */
    async function filledCache(strategies = 'raw,masking'): Promise<{ cwd: string; url: string }> {
      const s = await start();
      const first = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, '--scenario', SCENARIO, '-s', strategies, '--window', '16k', '--db', 'r.duckdb', '--no-report']);
      expect(first.code).toBe(0);
      await s.close();
      server = undefined;
      return { cwd: first.cwd, url: s.url };
    }
    /** Stopped in one line (no retry) before anything is stored. */
    function expectStopped(r: CliResult, message: string): void {
      expectOneLineError(r, new RegExp(`^bench: ${literal(message)}`));
      expect(existsSync(path.join(r.cwd, 'other.duckdb'))).toBe(false);
    }
    const inOtherDb = (args: string[]) => [...args, '--db', 'other.duckdb'];
    /** One filled cache for the tests that only read it (a run stopped by the preflight writes nothing). */
    let filled: { cwd: string; url: string };
    beforeAll(async () => {
      filled = await filledCache();
    }, 120_000);

    it('a dead port, though the cache holds answers of another server: one line naming the URL and `ollama serve`', async () => {
      const { cwd } = filled;
      const dead = await deadUrl();
      const r = await benchAsync(inOtherDb(ollamaArgs(dead)), cwd);
      expectStopped(r, `cannot reach Ollama at ${dead} (connection refused); start it with \`ollama serve\` or pass --host`);
      expectShownInReadme(r.stderr, dead, 'http://127.0.0.1:11434');
    });

    it('an unknown model, though the cache holds answers of another model: `ollama pull`, or the model and the base URL', async () => {
      const { cwd } = filled;
      const s = await start();
      const ollama = await benchAsync(inOtherDb(ollamaArgs(s.url, 'nosuch')), cwd);
      expectStopped(ollama, `Ollama at ${s.url} has no model 'nosuch'; run \`ollama pull nosuch\``);
      expectShownInReadme(ollama.stderr, s.url, 'http://127.0.0.1:11434');
      const openai = await benchAsync(inOtherDb(openAiArgs(s.url, 'nosuch')), cwd);
      expectStopped(openai, `${s.url}/v1 has no model 'nosuch' (404: The model \`nosuch\` does not exist`);
      expectShownInReadme(openai.stderr, `${s.url}/v1`, 'http://127.0.0.1:8000/v1');
      // GET /models does not list it, so one 1-token request asked; no run sent anything.
      expect(s.requests.filter((q) => q.path === '/api/chat')).toHaveLength(0);
      expect(s.requests.filter((q) => q.path === '/v1/chat/completions').map((q) => (q.body as { max_tokens?: number }).max_tokens)).toEqual([1]);
    });

    it('a server that refuses the key (401): one line saying to check OPENAI_API_KEY', async () => {
      const { cwd } = filled;
      const refusing = await faultServer(() => [401, openAiError('Incorrect API key provided: sk-abc***', 'invalid_api_key')]);
      try {
        const r = await benchAsync(inOtherDb(openAiArgs(refusing.url)), cwd);
        expectStopped(r, `${refusing.url}/v1 refused the API key (401: Incorrect API key provided: sk-abc***); check OPENAI_API_KEY`);
        expectShownInReadme(r.stderr, `${refusing.url}/v1`, 'https://api.openai.com/v1');
      } finally {
        await refusing.close();
      }
    });

    it('a server without GET /models: a 1-token request finds the model missing', async () => {
      const unlisted = await faultServer((request) =>
        request.endsWith('/models') ? [404, openAiError('Not Found')] : [404, openAiError('model "nosuch" not found', 'model_not_found')],
      );
      try {
        expectStopped(await benchAsync(inOtherDb(openAiArgs(unlisted.url, 'nosuch'))), `${unlisted.url}/v1 has no model 'nosuch' (404: model "nosuch" not found)`);
        expect(unlisted.requests).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
      } finally {
        await unlisted.close();
      }
    });

    it('a cache that answers every request: no check, the server may be down', async () => {
      const { cwd, url } = filled;
      const again = await benchAsync(ollamaArgs(url), cwd);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/Cache: \d+ hit\(s\), 0 request\(s\) sent/);
    });

    it('a cache that answers part of the matrix, the server down: the first request it cannot answer stops the command, one line after the runs it answered', async () => {
      const { cwd, url } = await filledCache('raw');
      const r = await benchAsync(inOtherDb(ollamaArgs(url)), cwd);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/retrying|\n\s+at /);
      expect(r.stdout).not.toMatch(/Results: /);
      expect(lastLine(r.stderr)).toMatch(
        new RegExp(`^bench: ${literal(`cannot reach Ollama at ${url} (connection refused)`)}.* ${literal('(1 finished run(s) kept in other.duckdb; the same command with --resume runs the rest)')}$`),
      );
      const runs = await storedRuns(cwd, 'other.duckdb');
      expect(runs.map((run) => [run.config.strategy, run.summary.status === 'error'])).toEqual([['raw', false], ['masking', true]]);
    });
  });

  it('transient faults are retried and the runs complete', async () => {
    const s = await start({ faults: [{ kind: 'http500', times: 1 }, { kind: 'http429', times: 1, retryAfterSeconds: 0 }, { kind: 'cut-stream', times: 1, path: 'openai' }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/retrying in/);
    expect((await storedRuns(r.cwd)).every((run) => run.summary.status !== 'error')).toBe(true);
  });

  it('a fault that outlasts the retries errors that run; the other runs finish and are stored', async () => {
    const s = await start({ faults: [{ kind: 'http500', times: Number.POSITIVE_INFINITY }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, '--retries', '1', ...common, '--scenario', SECOND, '--no-cache']);
    expect(r.code).toBe(EXIT_CODES.runErrors);
    expect(lastLine(r.stderr)).toMatch(/^bench: 4 of 4 runs ended with a backend error \(the first: ollama:chat:mock-model: Ollama at \S+ answered 500 .*\); the same command with --resume runs them again$/);
    const runs = await storedRuns(r.cwd);
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      expect(run.summary.status).toBe('error');
      expect(run.summary.failure).toMatch(/500/);
    }
  });

  describe('runs a backend error ended (exit code runErrors)', () => {
    const once500 = { faults: [{ kind: 'http500' as const, times: 1 }] };
    const failing = (url: string, command = 'run') => [command, '-m', 'ollama:chat:mock-model', '--host', url, ...common, '--retries', '0', '--no-cache'];

    it('bench run: the other runs finish and are saved, the summary is printed, the last line says how many and --resume runs them again', async () => {
      const s = await start(once500);
      const r = await benchAsync(failing(s.url));
      expect(r.code).toBe(EXIT_CODES.runErrors);
      expect(r.stdout).toMatch(/^Results: /m);
      expect(r.stdout).toMatch(/error at step 0/);
      expect(lastLine(r.stderr)).toMatch(/^bench: 1 of 2 runs ended with a backend error \(the first: .*answered 500.*\); the same command with --resume runs them again$/);
      expectShownInReadme(r.stderr, s.url, 'http://127.0.0.1:11434');
      expect((await storedRuns(r.cwd)).map((run) => [run.config.strategy, run.summary.status === 'error'])).toEqual([['raw', true], ['masking', false]]);

      const resumed = await benchAsync([...failing(s.url), '--resume'], r.cwd);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(/Resuming batch \S+: 1 finished run\(s\) kept, 1 to run \(1 ended with a backend error: run again\)/);
      const runs = await storedRuns(r.cwd);
      expect(runs).toHaveLength(2);
      expect(runs.some((run) => run.summary.status === 'error')).toBe(false);
    });

    it('bench sweep: the same exit code and last line, after the Pareto summary', async () => {
      const s = await start(once500);
      const r = await benchAsync(failing(s.url, 'sweep'));
      expect(r.code).toBe(EXIT_CODES.runErrors);
      expect(r.stdout).toMatch(/^Cost vs success/m);
      expect(lastLine(r.stderr)).toMatch(/^bench: 1 of 2 runs ended with a backend error .*--resume runs them again$/);
    });
  });

  it('missing usage is stored as missing, with the local count used and a warning', async () => {
    const s = await start({ faults: [{ kind: 'no-usage', times: Number.POSITIVE_INFINITY }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    for (const run of await storedRuns(r.cwd)) {
      expect(run.steps.every((x) => x.usageSource === 'local')).toBe(true);
      expect(run.steps.every((x) => x.providerPromptTokens === undefined)).toBe(true); // NULL, never 0
      expect(run.events.some((e) => e.kind === 'warning' && /reported no usage/.test(e.detail))).toBe(true);
    }
  });

  it('ends a run Ollama silently truncated as truncated, replayed to the end, and bench check calls it a regression', async () => {
    const args = ['--scenario', SCENARIO, '-s', 'raw', '--window', '48k', '--no-report', '--no-cache'];
    // The baseline: the same model holds the whole window.
    const roomy = await start({ models: [{ name: 'small', contextLength: 49152 }] });
    const port = Number(new URL(roomy.url).port);
    const base = await benchAsync(['run', '-m', 'ollama:chat:small', '--host', roomy.url, ...args, '--db', 'base.duckdb']);
    expect(base.code).toBe(0);
    expect(base.stdout).toMatch(/raw\s+django__django-10880\s+49,152\s+34\/34 .* completed/);
    const baseline = await benchAsync(['baseline', '--db', 'base.duckdb', '-o', 'baseline.json'], base.cwd);
    expect(baseline.code).toBe(0);
    await roomy.close();
    server = undefined;

    // The same server address, now with a model that holds 4,096 tokens: it cuts every longer prompt.
    const s = await start({ port, models: [{ name: 'small', contextLength: 4096 }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:small', '--host', s.url, ...args, '--db', 'r.duckdb'], base.cwd);
    expect(r.code).toBe(0);
    expect(r.stderr.match(/warning: --window 49152 is larger than small's context length \(4096\)/g)).toHaveLength(1);
    const [run] = await storedRuns(r.cwd);
    expect(run!.summary).toMatchObject({ status: 'truncated', steps: 34, totalSteps: 34 });
    const first = run!.summary.failedStep!;
    expect(run!.events.find((e) => e.kind === 'warning' && e.detail.startsWith('suspected truncation'))?.step).toBe(first);
    expect(run!.summary.failure).toMatch(/^the provider counted \d+ prompt tokens at step \d+, the local estimate is \d+: the server cut the prompt/);
    expect(r.stdout).toMatch(new RegExp(`raw\\s+django__django-10880\\s+49,152\\s+34/34 .* truncated from step ${first}`));
    expect(strategyRow(r.stdout, 'raw').overflowed).toBe('no; 1 truncated');
    expect(r.stdout).toMatch(/raw\s+0\/1 /); // not completed

    const check = await benchAsync(['check', '--baseline', 'baseline.json', '--db', 'r.duckdb'], base.cwd);
    expect(check.code).toBe(100);
    expect(check.stdout).toMatch(/REGRESSION\s+status\s+raw\|django__django-10880\s+completed\s+truncated/);
  });

  it('openai:chat: a --window above the context length the model list gives is one warning line at the start', async () => {
    const s = await start({ models: [{ name: 'small', contextLength: 4096 }] });
    const r = await benchAsync(['run', '-m', 'openai:chat:small', '--base-url', `${s.url}/v1`, '--scenario', SCENARIO, '-s', 'raw', '--window', '16k', '--db', 'r.duckdb', '--no-report', '--no-cache', '--retries', '0']);
    expect(r.stderr.match(/warning: --window 16384 is larger than small's context length \(4096\)/g)).toHaveLength(1);
  });
});
