import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolderPerTest } from '../../test/helpers/temp-folder.js';
import { isTempName, removeStaleTemps, tempPathFor } from './temp-files.js';

const folder = tempFolderPerTest('ctxbench-temps-');

/** The pid of a process that has ended, as a kill -9 leaves it. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('tempPathFor', () => {
  it('is a hidden file beside the target, naming its purpose and this process', () => {
    const temp = tempPathFor(join(folder(), 'all.duckdb'), 'merging');
    expect(dirname(temp)).toBe(folder());
    expect(basename(temp)).toMatch(new RegExp(`^\\.all\\.duckdb\\.merging-${process.pid}-[0-9a-f]{8}$`));
    expect(isTempName(basename(temp))).toBe(true);
    expect(isTempName(`${basename(temp)}.wal`)).toBe(true);
    expect(isTempName('all.duckdb')).toBe(false);
    expect(tempPathFor(join(folder(), 'a.html'))).not.toBe(tempPathFor(join(folder(), 'a.html')));
  });
});

describe('removeStaleTemps', () => {
  it("removes a dead process's temp files (a kill -9 mid-merge or mid-write), and only those", async () => {
    const dead = deadPid();
    const stale = [`.all.duckdb.merging-${dead}-0123abcd`, `.all.duckdb.merging-${dead}-0123abcd.wal`, `.r.html.writing-${dead}-89abcdef`];
    const kept = [
      basename(tempPathFor(join(folder(), 'mine.html'))), // this process: a write in progress
      `.other.html.writing-${process.ppid}-00000000`, // a live process
      'all.duckdb',
      'notes.merging-1-00000000', // not hidden: a user's file
      `.x.writing-${dead}-nothex00`,
    ];
    for (const name of [...stale, ...kept]) writeFileSync(join(folder(), name), 'x');
    expect((await removeStaleTemps(folder())).sort()).toEqual([...stale].sort());
    expect(readdirSync(folder()).sort()).toEqual([...kept].sort());
  });

  it('is quiet about a folder that does not exist', async () => {
    expect(await removeStaleTemps(join(folder(), 'missing'))).toEqual([]);
  });
});
