/**
 * Live runs end to end: `bench run` spawned as a user runs it, driving the real `ollama` and `openai`
 * clients against the project's protocol-faithful server on 127.0.0.1 (src/server).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type RunningServer, type ServerOptions } from '../src/server/index.js';
import { ResultStore } from '../src/store/result-store.js';
import { BIN, ROOT, tempDir, type CliResult } from './helpers/cli.js';

const SCENARIO = path.join(ROOT, 'scenarios/openhands-codeact-sonnet35/django__django-10880.json');
const SECOND = path.join(ROOT, 'scenarios/mini-swe-agent-gemini3pro/matplotlib__matplotlib-23476.json');
/** A generated scenario with 6 planted facts, each probed later. */
const PROBED = path.join(ROOT, 'scenarios/synthetic/synthetic-s60-seed1-o400-f10.json');

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
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

  it('detects Ollama silently truncating a prompt longer than the model holds', async () => {
    const s = await start({ models: [{ name: 'small', contextLength: 4096 }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:small', '--host', s.url, '--scenario', SCENARIO, '-s', 'raw', '--window', '16k', '--db', 'r.duckdb', '--no-report', '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/larger than small's context length \(4096\)/);
    const [run] = await runsIn(r.cwd);
    expect(run!.events.some((e) => e.kind === 'warning' && e.detail.startsWith('suspected truncation'))).toBe(true);
  });
});
