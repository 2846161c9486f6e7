/**
 * `bench serve-mock` as a user runs it: the built CLI prints the URL, serves until SIGTERM, exits 0.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Ollama } from 'ollama';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BIN, bench, expectOneLineError } from '../../test/helpers/cli.js';
import { parseFault, parseModel, serveMockCommand } from '../cli/commands/serve-mock.js';

/** Starts `bench serve-mock ...args` and resolves with the URL it prints. */
async function serveMock(args: readonly string[]) {
  const child = spawn(process.execPath, [BIN, 'serve-mock', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /serving mock models at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve-mock exited with ${code} before printing its URL`)));
  });
  return { child, url, output: () => stdout };
}

describe('bench serve-mock', () => {
  it('serves the models and faults it is given until SIGTERM, then exits 0', async () => {
    const { child, url, output } = await serveMock(['--model', 'qwen2.5-coder:7b=4k', '--fault', 'http500:1']);
    try {
      expect(output()).toContain('models: qwen2.5-coder:7b (context 4096)');
      expect(output()).toContain('faults: http500 x1');
      const ollama = new Ollama({ host: url });
      expect((await ollama.list()).models.map((m) => m.name)).toEqual(['qwen2.5-coder:7b']);
      const messages = [{ role: 'user', content: 'hello' }];
      await expect(ollama.chat({ model: 'qwen2.5-coder:7b', messages, stream: false })).rejects.toMatchObject({ status_code: 500 });
      await expect(ollama.chat({ model: 'qwen2.5-coder:7b', messages, stream: false })).resolves.toMatchObject({ done: true });
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(output()).toMatch(/stopped \(SIGTERM\) after 3 requests/);
  });

  it('rejects bad flags with one line naming the flag', () => {
    expectOneLineError(bench(['serve-mock', '--fault', 'explode']), /--fault explode: expected kind\[:times\]/);
    expectOneLineError(bench(['serve-mock', '--model', 'no-context']), /--model no-context: expected name=contextLength/);
    expectOneLineError(bench(['serve-mock', '--port', '70000']), /--port 70000: expected a whole number from 0 to 65535/);
  });
});

describe('bench serve-mock and Ctrl-C', () => {
  afterEach(() => vi.restoreAllMocks());

  it('listens for Ctrl-C before it says it is ready, so a script may stop it the moment it reads the URL', async () => {
    const before = process.listenerCount('SIGINT');
    const atReady: number[] = [];
    const stop = (): void => void (process.listeners('SIGINT').at(-1) as (signal: NodeJS.Signals) => void)('SIGINT');
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      if (String(chunk).startsWith('serving mock models at')) {
        atReady.push(process.listenerCount('SIGINT') - before);
        setImmediate(stop); // what the script does once it has read the line
      }
      return true;
    });
    await serveMockCommand({ port: '0', model: [], fault: [], retryAfter: '1', delay: '0', encoding: 'o200k_base' });
    expect(atReady).toEqual([1]);
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});

describe('flag parsers', () => {
  it('parses name=ctx (names may carry a tag) and kind[:times]', () => {
    expect(parseModel('qwen2.5-coder:7b=32k')).toEqual({ name: 'qwen2.5-coder:7b', contextLength: 32768 });
    expect(parseFault('cut-stream', 1, 1000)).toEqual({ kind: 'cut-stream', times: 1, retryAfterSeconds: 1, delayMs: 1000 });
    expect(parseFault('http429:inf', 3, 1000)).toMatchObject({ kind: 'http429', times: Infinity, retryAfterSeconds: 3 });
    expect(() => parseFault('http500:0', 1, 1000)).toThrow('--fault http500:0: expected times to be a whole number >= 1 or inf');
  });
});
