import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolderPerTest } from '../../test/helpers/temp-folder.js';
import { isStrategyPath, loadStrategyFile, sourceDigest } from './strategy-file.js';

// A definition written out by hand (no import), so the file loads from any folder.
const KEEP_ALL = `
interface Input { readonly messages: readonly unknown[] }
const strategy = {
  name: 'keep-all',
  summary: 'sends everything',
  params: { keep: { kind: 'integer', default: 3, min: 1, max: 9, doc: 'unused' } },
  thresholds: () => [],
  create: () => ({ beforeRequest: (input: Input) => ({ messages: input.messages }) }),
};
export default strategy;
`;

const tempFolder = tempFolderPerTest('ctxbench-strategy-file-');

describe('loadStrategyFile', () => {
  it('loads a TypeScript file without a build step, with a digest of its source', async () => {
    const dir = tempFolder();
    writeFileSync(path.join(dir, 'keep-all.ts'), KEEP_ALL);
    const { strategy, file } = await loadStrategyFile('./keep-all.ts', dir);
    expect(strategy.name).toBe('keep-all');
    expect(file).toEqual({ path: path.join(dir, 'keep-all.ts'), given: './keep-all.ts', digest: sourceDigest(KEEP_ALL) });
    expect(file.digest).toMatch(/^[0-9a-f]{12}$/);
  });

  it('loads an ES module, by its export named strategy', async () => {
    const dir = tempFolder();
    writeFileSync(path.join(dir, 'named.mjs'), KEEP_ALL.replace(/interface[^\n]*\n/, '').replace(/: Input/, '').replace('export default strategy;', 'export { strategy };'));
    expect((await loadStrategyFile('named.mjs', dir)).strategy.name).toBe('keep-all');
  });

  it.each([
    ['missing.ts', '', 'no such file'],
    ['notes.txt', 'x', 'not a strategy file'],
    // The transform's own header line, then where and what (it named neither before).
    ['syntax.ts', 'export default {', 'cannot load it: Transform failed with 1 error: '],
    ['syntax-at.ts', 'export default {', 'syntax-at.ts:1:16: ERROR: Expected identifier but found end of file'],
    ['empty.ts', 'export const x = 1;', 'exports no strategy'],
    ['no-create.ts', "export default { name: 'n', summary: 's', params: {}, thresholds: () => [] };", 'needs create(params)'],
    ['bad-param.ts', KEEP_ALL.replace('default: 3', 'default: 30'), 'parameter keep'],
  ])('%s fails with one line naming the file', async (name, source, problem) => {
    const dir = tempFolder();
    if (source !== '') writeFileSync(path.join(dir, name), source);
    const error = await loadStrategyFile(`./${name}`, dir).then(() => new Error("loaded"), (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain(`--strategy ./${name}: `);
    expect(error.message).toContain(problem);
    expect(error.message).not.toContain('\n');
  });

  it('tells a path from a built-in name', () => {
    expect(['./a.ts', 'dir/a', 'a.mjs', 'a.js'].map(isStrategyPath)).toEqual([true, true, true, true]);
    expect(['masking', 'all', 'raw'].map(isStrategyPath)).toEqual([false, false, false]);
  });
});
