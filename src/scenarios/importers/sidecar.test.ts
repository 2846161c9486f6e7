import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSidecar } from './sidecar.js';

describe('readSidecar', () => {
  let root: string;
  let file: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'ctxbench-sidecar-'));
    file = path.join(root, 'a/b/c/d/run.json');
    await mkdir(path.dirname(file), { recursive: true });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('looks in the file\'s folder and at most 3 folders above it, nearest first', async () => {
    await writeFile(path.join(root, 'labels.json'), '{"at":"root"}');
    expect(await readSidecar(file, 'labels.json')).toBeUndefined();
    await writeFile(path.join(root, 'a/labels.json'), '{"at":"a"}');
    expect(await readSidecar(file, 'labels.json')).toEqual({ at: 'a' });
    await writeFile(path.join(root, 'a/b/c/labels.json'), '{"at":"c"}');
    expect(await readSidecar(file, 'labels.json')).toEqual({ at: 'c' });
  });

  it('takes a relative path and names a sidecar that is not JSON', async () => {
    await mkdir(path.join(root, 'a/b/logs/x'), { recursive: true });
    await writeFile(path.join(root, 'a/b/logs/x/report.json'), 'not json');
    await expect(readSidecar(file, 'logs/x/report.json')).rejects.toThrow(/logs\/x\/report\.json: not valid JSON/);
  });
});
