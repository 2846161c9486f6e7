import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { importCommand, listCommand, validateCommand } from './scenarios.js';

const CHAT = path.join(REPO_ROOT, 'fixtures/trajectories/openai-chat/chat.json');
const SYNTHETIC = path.join(REPO_ROOT, 'scenarios/synthetic/synthetic-s40-seed7-o600-x6000-f20-mclaude-sonnet-4.json');

/** `bench scenarios ...` in process: what it wrote to stdout and stderr, and the error it failed with. */
async function run(command: () => Promise<void>): Promise<{ stdout: string; stderr: string; error?: Error }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    await command();
    return { stdout, stderr };
  } catch (error) {
    return { stdout, stderr, error: error as Error };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('bench scenarios', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-scenarios-'));
  });
  afterEach(() => rm(tmp, { recursive: true, force: true }));
  const put = async (name: string, from = CHAT): Promise<string> => {
    await mkdir(path.dirname(path.join(tmp, name)), { recursive: true });
    await copyFile(from, path.join(tmp, name));
    return path.join(tmp, name);
  };

  // Regression: the inputs check compared the outputs with the folder only, and d/x.json was rewritten.
  it('import never writes over a file it read in the folder', async () => {
    const input = await put(`d/${path.basename(SYNTHETIC)}`, SYNTHETIC);
    const before = await readFile(input, 'utf8');
    const { error } = await run(() => importCommand(path.join(tmp, 'd'), { output: `${path.join(tmp, 'd')}/` }));
    expect(error?.message).toBe(`-o ${input}: the same file as the input ${input}; an output never replaces an input (pass another path)`);
    expect(await readFile(input, 'utf8')).toBe(before);
  });

  // Regression: it said "detected format <the first one's>" for a folder of several.
  it('import names every format a folder held, with its count', async () => {
    await put('in/chat.json');
    await put('in/synthetic.json', SYNTHETIC);
    await put('in/more/chat2.json');
    const { stderr, error } = await run(() => importCommand(path.join(tmp, 'in'), { output: path.join(tmp, 'all.jsonl') }));
    expect(error).toBeUndefined();
    expect(stderr).toContain(`${path.join(tmp, 'in')}: detected formats openai-chat (2), ctxbench (1); 3 scenario(s), `);
  });

  // Regression: the second was written over the first, exit 0.
  describe('two scenarios with one id', () => {
    it('import refuses them before writing anything: one file in two folders, two names safeId makes one', async () => {
      for (const [first, second, id] of [
        ['in/a/chat.json', 'in/b/chat.json', 'chat'],
        ['in/my chat (1).json', 'in/my chat [1].json', 'my-chat-1-'],
      ] as const) {
        const [a, b] = [await put(first), await put(second)];
        const out = path.join(tmp, 'out');
        const { error } = await run(() => importCommand(path.join(tmp, 'in'), { output: `${out}/` }));
        expect(error?.message).toBe(`${b}: scenario id ${id} is also the id of a scenario in ${a}; ids name the runs, so they must be unique`);
        await expect(readdir(out)).rejects.toThrow(/ENOENT/);
        await rm(path.join(tmp, 'in'), { recursive: true });
      }
    });

    it('validate lists them as a failure, list refuses them as run does', async () => {
      const [a, b] = [await put('a/chat.json'), await put('b/chat.json')];
      const message = `${b}: scenario id chat is also the id of a scenario in ${a}; ids name the runs, so they must be unique`;
      const validated = await run(() => validateCommand([tmp]));
      expect(validated.stdout).toContain(`FAIL  ${message}\n`);
      expect(validated.error?.message).toBe('1 of 2 scenario file(s) invalid');
      expect((await run(() => listCommand([tmp]))).error?.message).toBe(message);
    });
  });
});
