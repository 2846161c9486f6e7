import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { genCommand } from './gen.js';

describe('bench scenarios gen, bad flags', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-gen-'));
  });
  afterEach(() => rm(tmp, { recursive: true, force: true }));

  // Regression: the errors named the option (`contextWindow ...`) or the output file (`id: at most 200 characters`), not the flag.
  it('name the flag, and write nothing', async () => {
    const output = path.join(tmp, 'x.json');
    await expect(genCommand({ window: '100000001', output })).rejects.toThrow(/^--window 100000001: expected 256 to 100000000$/);
    await expect(genCommand({ model: 'm'.repeat(250), output })).rejects.toThrow(
      /^--model m{40}\.\.\.: too long, the scenario id it is part of would have 272 characters \(at most 200\)$/,
    );
    expect(await readdir(tmp)).toEqual([]);
  });
});
