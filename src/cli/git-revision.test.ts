import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitRevision } from './git-revision.js';

const root = mkdtempSync(join(tmpdir(), 'ctxbench-git-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('gitRevision', () => {
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'node_modules', 'ctxbench'), { recursive: true });
  git(repo, 'init', '-q');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', 'a.txt');
  git(repo, 'commit', '-q', '-m', 'first');
  const sha = git(repo, 'rev-parse', '--short=12', 'HEAD');

  it('names the commit of a clean checkout', () => {
    expect(gitRevision(repo)).toBe(sha);
  });

  it('says -dirty when a tracked file changed, not for an untracked one', () => {
    writeFileSync(join(repo, 'untracked.txt'), 'x\n');
    expect(gitRevision(repo)).toBe(sha);
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    expect(gitRevision(repo)).toBe(`${sha}-dirty`);
  });

  it('is undefined for a package installed inside another repository, or outside any', () => {
    expect(gitRevision(join(repo, 'node_modules', 'ctxbench'))).toBeUndefined();
    const plain = join(root, 'plain');
    mkdirSync(plain);
    expect(gitRevision(plain)).toBeUndefined();
  });
});
