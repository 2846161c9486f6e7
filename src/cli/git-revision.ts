/**
 * The ctxbench commit a batch ran from, for the report's header: only when the package itself is a
 * git checkout (an npm install inside someone's repository must not report their commit).
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';

/** `abc123def456`, `abc123def456-dirty` when tracked files changed, or undefined outside a checkout. */
export function gitRevision(dir: string): string | undefined {
  const git = (...args: string[]): string | undefined => {
    const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };
  const top = git('rev-parse', '--show-toplevel');
  if (top === undefined || realpathSync(top) !== realpathSync(dir)) return undefined;
  const sha = git('rev-parse', '--short=12', 'HEAD');
  if (sha === undefined) return undefined;
  return git('status', '--porcelain', '--untracked-files=no') ? `${sha}-dirty` : sha;
}
