/**
 * Live runs end to end: `bench run` spawned as a user runs it, driving the real `ollama` and `openai`
 * clients against the project's protocol-faithful server on 127.0.0.1 (src/server).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type RunningServer, type ServerOptions } from '../src/server/index.js';
import { EXIT_CODES } from '../src/cli/exit-codes.js';
import { benchAsync, ROOT, storedRuns } from './helpers/cli.js';

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

const lastLine = (text: string): string => text.trim().split('\n').at(-1) ?? '';

const README_LINES = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').map((line) => line.trim());
/** The README shows the last line of `stderr`, with the test server's `url` in place of the one it shows. */
function expectShownInReadme(stderr: string, url: string, shown: string): void {
  expect(README_LINES).toContain(lastLine(stderr).replaceAll(url, shown));
}

const common = ['--scenario', SCENARIO, '-s', 'raw,masking', '--window', '16k', '--db', 'r.duckdb', '--no-report'];

describe('bench run against a live server', () => {
  it('ollama:chat: provider usage in every step, then a cached re-run that sends no request', async () => {
    const s = await start();
    const first = await benchAsync(['run', '-m', 'ollama:chat:mock-model', '--host', s.url, ...common]);
    expect(first.code).toBe(0);
    expect(first.stderr).not.toMatch(/warning|error/i);
    const runs = await storedRuns(first.cwd);
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
    const cached = (await storedRuns(first.cwd)).slice(2);
    expect(cached.every((r) => r.steps.every((x) => x.cached !== false))).toBe(true);
  });

  it('openai:chat: streaming with the usage chunk, provider usage recorded', async () => {
    const s = await start();
    const r = await benchAsync(['run', '-m', 'openai:chat:mock-model', '--base-url', `${s.url}/v1`, ...common, '--no-cache']);
    expect(r.code).toBe(0);
    const runs = await storedRuns(r.cwd);
    expect(runs.every((run) => run.steps.some((x) => x.usageSource === 'provider'))).toBe(true);
    expect(s.requests.some((q) => q.path === '/v1/chat/completions' && (q.body as { stream?: boolean }).stream === true)).toBe(true);
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

  it('detects Ollama silently truncating a prompt longer than the model holds', async () => {
    const s = await start({ models: [{ name: 'small', contextLength: 4096 }] });
    const r = await benchAsync(['run', '-m', 'ollama:chat:small', '--host', s.url, '--scenario', SCENARIO, '-s', 'raw', '--window', '16k', '--db', 'r.duckdb', '--no-report', '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/larger than small's context length \(4096\)/);
    const [run] = await storedRuns(r.cwd);
    expect(run!.events.some((e) => e.kind === 'warning' && e.detail.startsWith('suspected truncation'))).toBe(true);
  });
});
