import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolderPerTest } from '../../test/helpers/temp-folder.js';
import { checkOutput, checkOutputs, replaceAtomically, sameFile, writeOutput, type FileKind } from './output-file.js';

/** A kind for the tests: files that start with "NOTE". */
const NOTE: FileKind = { name: 'a note', matches: (head) => head.toString('utf8').startsWith('NOTE') };

const folder = tempFolderPerTest('ctxbench-output-');

describe('writeOutput', () => {
  it('creates the folders and writes the file, leaving no temp file', async () => {
    const file = join(folder(), 'a', 'b', 'n.txt');
    await writeOutput(file, 'NOTE 1', { label: '-o n.txt', kind: NOTE });
    expect(readFileSync(file, 'utf8')).toBe('NOTE 1');
    expect(readdirSync(join(folder(), 'a', 'b'))).toEqual(['n.txt']);
  });

  it('replaces a file of its kind, and an empty one', async () => {
    const file = join(folder(), 'n.txt');
    writeFileSync(file, 'NOTE old');
    await writeOutput(file, 'NOTE new', { label: '-o n.txt', kind: NOTE });
    expect(readFileSync(file, 'utf8')).toBe('NOTE new');
    const empty = join(folder(), 'summary.md'); // as $GITHUB_STEP_SUMMARY is at the start of a step
    writeFileSync(empty, '');
    await writeOutput(empty, 'NOTE', { label: '--markdown-out summary.md', kind: NOTE });
    expect(readFileSync(empty, 'utf8')).toBe('NOTE');
  });

  it('regression: never replaces a file of another kind (a results database under --report), and writes nothing', async () => {
    const file = join(folder(), 'r.duckdb');
    writeFileSync(file, 'DUCKDB bytes');
    await expect(writeOutput(file, 'NOTE', { label: '--report r.duckdb', kind: NOTE })).rejects.toThrow(
      '--report r.duckdb: not replaced: the file there is not a note (remove it or pass another path)'
    );
    expect(readFileSync(file, 'utf8')).toBe('DUCKDB bytes');
    expect(readdirSync(folder())).toEqual(['r.duckdb']);
  });

  it('regression: never replaces an input of the command, however it is spelled', async () => {
    const input = join(folder(), 'note.txt');
    writeFileSync(input, 'NOTE input');
    symlinkSync(input, join(folder(), 'link.txt'));
    linkSync(input, join(folder(), 'hard.txt'));
    const inputs = [{ label: '--scenario note.txt', file: input }];
    for (const spelling of [input, join(folder(), '.', 'note.txt'), join(folder(), 'link.txt'), join(folder(), 'hard.txt')]) {
      await expect(writeOutput(spelling, 'NOTE out', { label: '-o X', kind: NOTE, inputs })).rejects.toThrow(
        '-o X: the same file as --scenario note.txt; an output never replaces an input (pass another path)'
      );
    }
    expect(readFileSync(input, 'utf8')).toBe('NOTE input');
  });

  it('refuses an input that does not exist yet, by its path (--db and --report naming one new file)', async () => {
    const db = join(folder(), 'new', 'r.duckdb');
    await expect(checkOutput(join(folder(), 'new', '..', 'new', 'r.duckdb'), { label: '--report X', kind: NOTE, inputs: [{ label: '--db X', file: db }] })).rejects.toThrow(
      /^--report X: the same file as --db X;/
    );
  });

  it('refuses a folder, and writes through a symbolic link to its file', async () => {
    mkdirSync(join(folder(), 'out.txt'));
    await expect(writeOutput(join(folder(), 'out.txt'), 'NOTE', { label: '-o out.txt', kind: NOTE })).rejects.toThrow('-o out.txt: a folder, not a file');
    await expect(writeOutput(`${join(folder(), 'new')}/`, 'NOTE', { label: '-o new/', kind: NOTE })).rejects.toThrow('-o new/: a folder, not a file');
    writeFileSync(join(folder(), 'target.txt'), 'NOTE 1');
    symlinkSync(join(folder(), 'target.txt'), join(folder(), 'link.txt'));
    await writeOutput(join(folder(), 'link.txt'), 'NOTE 2', { label: '-o link.txt', kind: NOTE });
    expect(readFileSync(join(folder(), 'target.txt'), 'utf8')).toBe('NOTE 2');
  });

  it.runIf(process.platform === 'linux')('writes into a device in place (/dev/null), never renaming over it', async () => {
    await writeOutput('/dev/null', 'NOTE', { label: '--markdown-out /dev/null', kind: NOTE });
    // Written through, not replaced by a file renamed over it (which root could do).
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('names the flag when the folder cannot be created', async () => {
    writeFileSync(join(folder(), 'afile'), '');
    await expect(writeOutput(join(folder(), 'afile', 'n.txt'), 'NOTE', { label: '-o afile/n.txt', kind: NOTE })).rejects.toThrow(
      `-o afile/n.txt: ${join(folder(), 'afile')} is a file, not a folder (ENOTDIR)`
    );
  });
});

describe('checkOutputs', () => {
  it("refuses two of a command's outputs that are one file, however spelled, naming both flags; distinct ones pass", async () => {
    const spec = (label: string) => ({ label, kind: NOTE });
    const [a, b] = [join(folder(), 'a.txt'), join(folder(), 'b.txt')];
    await checkOutputs([{ file: a, spec: spec(`--json-out ${a}`) }, { file: b, spec: spec(`--markdown-out ${b}`) }]);
    await expect(checkOutputs([{ file: a, spec: spec('--json-out a.txt') }, { file: join(folder(), '.', 'a.txt'), spec: spec('--markdown-out ./a.txt') }])).rejects.toThrow(
      '--markdown-out ./a.txt: the same file as --json-out a.txt; each output needs its own path',
    );
    expect(readdirSync(folder())).toEqual([]); // nothing written
  });
});

describe('replaceAtomically', () => {
  it('removes its temp file when the write fails, and keeps the old file whole', async () => {
    const file = join(folder(), 'n.txt');
    writeFileSync(file, 'NOTE old');
    const failure = replaceAtomically(file, '-o n.txt', async (temp) => {
      writeFileSync(temp, 'NOTE half');
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    await expect(failure).rejects.toThrow('-o n.txt: cannot write (ENOSPC: no space left on device)');
    expect(readdirSync(folder())).toEqual(['n.txt']);
    expect(readFileSync(file, 'utf8')).toBe('NOTE old');
  });

  it('removes the leftovers of a killed write in that folder first', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(folder(), `.n.txt.writing-${dead}-0badc0de`), 'NOTE ha');
    await replaceAtomically(join(folder(), 'n.txt'), '-o n.txt', (temp) => Promise.resolve(writeFileSync(temp, 'NOTE')));
    expect(readdirSync(folder())).toEqual(['n.txt']);
  });
});

describe('sameFile', () => {
  it('compares existing files by device and inode, others by their canonical path', async () => {
    writeFileSync(join(folder(), 'a'), 'x');
    writeFileSync(join(folder(), 'b'), 'x');
    expect(await sameFile(join(folder(), 'a'), join(folder(), 'b'))).toBe(false);
    expect(await sameFile(join(folder(), 'a'), join(folder(), 'sub', '..', 'a'))).toBe(true);
    expect(await sameFile(join(folder(), 'new'), join(folder(), 'a'))).toBe(false);
    expect(await sameFile(join(folder(), 'new'), join(folder(), 'new'))).toBe(true);
  });
});
