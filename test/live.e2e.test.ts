/**
 * Live runs end to end: `bench run` spawned as a user runs it, driving the real `ollama` and `openai`
 * clients against the project's protocol-faithful server on 127.0.0.1 (src/server).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type RunningServer, type ServerOptions } from '../src/server/index.js';
import { ResultStore } from '../src/store/result-store.js';
import { startBadUsageProxy, type BadUsageProxy, type UsageOverrides } from './helpers/bad-usage-proxy.js';
import { BIN, ROOT, tempDir, type CliResult } from './helpers/cli.js';

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

/** Spawns bench without blocking this process, which serves the requests. */
function benchAsync(args: readonly string[], cwd = tempDir('ctxbench-live-')): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', OLLAMA_HOST: '', OPENAI_BASE_URL: '', OPENAI_API_KEY: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr, cwd }));
  });
}

async function runsIn(cwd: string) {
  const store = await ResultStore.openExisting(path.join(cwd, 'r.duckdb'));
  const runs = await store.loadRuns();
  await store.close();
  return runs;
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
  it('ollama:chat: provider usage in every step, then a cached re-run that sends no request', async () => {
    const s = await start();
    const first = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common]);
    expect(first.code).toBe(0);
    expect(first.stderr).not.toMatch(/warning|error/i);
    const runs = await runsIn(first.cwd);
    expect(runs.map((r) => r.config.backend)).toEqual(['ollama:chat:mock-model', 'ollama:chat:mock-model']);
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
    const cached = (await runsIn(first.cwd)).slice(2);
    expect(cached.every((r) => r.steps.every((x) => x.cached !== false))).toBe(true);
  });

  it("ollama:chat: the cached share is n/a (Ollama reports none) and the cost local, never a local estimate or the scenario's list prices", async () => {
    const s = await start();
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    for (const strategy of ['raw', 'masking']) expect(strategyRow(r.stdout, strategy)).toMatchObject({ cached: 'n/a', cost: 'local' });
    for (const run of await runsIn(r.cwd)) {
      expect(run.summary.cachedInputTokens).toBeUndefined(); // NULL in the database
      expect([run.config.priceModel, run.summary.costUsd]).toEqual(['local', 0]);
    }
    // --price-model still prices a local run at a listed model.
    const priced = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common, '--no-cache', '--price-model', 'gpt-4o'], r.cwd);
    expect(strategyRow(priced.stdout, 'raw').cost).toMatch(/^\$\d+\.\d\d$/);
  });

  it("openai:chat: the cached share is the provider's (prompt_tokens_details.cached_tokens), the cost the served model's", async () => {
    const s = await start({ models: [{ name: 'gpt-4o-mini', contextLength: 32768 }, { name: 'mock-model', contextLength: 32768 }] });
    const r = await benchAsync(['run', '-m', 'openai:chat:gpt-4o-mini', '--base-url', `${s.url}/v1`, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    for (const run of await runsIn(r.cwd)) {
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
    expect((await runsIn(r.cwd)).slice(2).every((run) => run.summary.costUsd === undefined)).toBe(true);
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
      const runs = await runsIn(r.cwd);
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

  it('openai:chat: streaming with the usage chunk, provider usage recorded', async () => {
    const s = await start();
    const r = await benchAsync(['run', '-m', 'openai:chat:mock-model', '--base-url', `${s.url}/v1`, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    const runs = await runsIn(r.cwd);
    expect(runs.every((run) => run.steps.some((x) => x.usageSource === 'provider'))).toBe(true);
    expect(s.requests.some((q) => q.path === '/v1/chat/completions' && (q.body as { stream?: boolean }).stream === true)).toBe(true);
  });

  it('asks the model each probe question and grades its answer against the expected fact', async () => {
    const s = await start();
    const args = ['run', '-m', 'ollama:chat:mock-model', '--host', s.url, '--scenario', PROBED, '-s', 'masking', '--window', '32k', '--db', 'r.duckdb', '--no-report', '--no-cache'];
    const r = await benchAsync(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+\/6 \(answered; in context v\d+ s\d+ r\d+\)/);
    const [run] = await runsIn(r.cwd);
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
    const [, onContext] = await runsIn(r.cwd);
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

  it('transient faults are retried and the runs complete', async () => {
    const s = await start({ faults: [{ kind: 'http500', times: 1 }, { kind: 'http429', times: 1, retryAfterSeconds: 0 }, { kind: 'cut-stream', times: 1, path: 'openai' }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/retrying in/);
    expect((await runsIn(r.cwd)).every((run) => run.summary.status !== 'error')).toBe(true);
  });

  it('a fault that outlasts the retries errors that run; the other runs finish and are stored', async () => {
    const s = await start({ faults: [{ kind: 'http500', times: Number.POSITIVE_INFINITY }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, '--retries', '1', ...common, '--scenario', SECOND, '--no-cache']);
    expect(r.code).toBe(0);
    const runs = await runsIn(r.cwd);
    expect(runs).toHaveLength(4);
    for (const run of runs) {
      expect(run.summary.status).toBe('error');
      expect(run.summary.failure).toMatch(/500/);
    }
  });

  it('missing usage is stored as missing, with the local count used and a warning', async () => {
    const s = await start({ faults: [{ kind: 'no-usage', times: Number.POSITIVE_INFINITY }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    for (const run of await runsIn(r.cwd)) {
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
    const [run] = await runsIn(r.cwd);
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
