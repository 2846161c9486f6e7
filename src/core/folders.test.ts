import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolderPerTest } from '../../test/helpers/temp-folder.js';
import { canonicalPath, createFolders } from './folders.js';

const folder = tempFolderPerTest('ctxbench-folders-');

describe('createFolders', () => {
  it('creates every missing level, and accepts folders that exist', async () => {
    await createFolders(join(folder(), 'a', 'b', 'c'), '-o x');
    await createFolders(join(folder(), 'a', 'b'), '-o x');
    await createFolders(folder(), '-o x');
    expect(statSync(join(folder(), 'a', 'b', 'c')).isDirectory()).toBe(true);
  });

  it('names the file in the way (ENOTDIR), whether it is the folder itself or an ancestor', async () => {
    const blocker = join(folder(), 'afile');
    writeFileSync(blocker, 'x');
    for (const target of [blocker, join(blocker, 'sub'), join(blocker, 'sub', 'deeper')]) {
      await expect(createFolders(target, '--db afile/x.duckdb')).rejects.toThrow(`--db afile/x.duckdb: ${blocker} is a file, not a folder (ENOTDIR)`);
    }
  });

  it.runIf(process.platform === 'linux')('regression: a folder under /proc is refused in one line (recursive mkdir never returns there)', async () => {
    await expect(createFolders('/proc/forbidden', '--db /proc/forbidden/x.duckdb')).rejects.toThrow(
      '--db /proc/forbidden/x.duckdb: cannot create the folder /proc/forbidden (ENOENT: the file system allows no folder there)'
    );
    await expect(createFolders('/proc/forbidden/deeper/still', '--parquet /proc/forbidden/deeper/still')).rejects.toThrow(
      '--parquet /proc/forbidden/deeper/still: cannot create the folder /proc/forbidden (ENOENT: the file system allows no folder there)'
    );
  });

  it.runIf(process.platform === 'linux')('names the errno and its meaning for other refusals (sysfs: EPERM)', async () => {
    await expect(createFolders('/sys/ctxbench-x', '--cache-dir /sys/ctxbench-x')).rejects.toThrow(
      /^--cache-dir \/sys\/ctxbench-x: cannot create the folder \/sys\/ctxbench-x \((EPERM: operation not permitted|EACCES: permission denied|EROFS: read-only file system)\)$/
    );
  });
});

describe('canonicalPath', () => {
  it('resolves links in the part that exists and keeps the rest', async () => {
    mkdirSync(join(folder(), 'real'));
    symlinkSync(join(folder(), 'real'), join(folder(), 'link'));
    const real = await canonicalPath(join(folder(), 'real', 'new', 'x.json'));
    expect(await canonicalPath(join(folder(), 'link', 'new', 'x.json'))).toBe(real);
    expect(await canonicalPath(join(folder(), 'link', '..', 'real', 'new', 'x.json'))).toBe(real);
    expect(real.endsWith(join('real', 'new', 'x.json'))).toBe(true);
  });
});
