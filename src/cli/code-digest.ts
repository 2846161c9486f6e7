/**
 * Which build of ctxbench is running, as a digest of its code: the folder this module's layer sits in
 * (dist/ when installed, src/ under tsx and vitest), its code and templates, tests left out. A batch's
 * fingerprint holds it, so `--resume` and the shards of one matrix never join runs of one build to
 * those of another (a changed strategy would pass the gate on the old build's numbers). A git sha
 * would miss an uncommitted change, and an installed package has none.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files that are code: not tests, type declarations or source maps. */
const isCode = (name: string): boolean => /\.(m?js|ts|hbs|css)$/.test(name) && !/\.test\.|\.d\.ts$/.test(name);

/** A digest (16 hex digits) of the code files under `root`, in path order. */
export function codeDigest(root: string): string {
  const files = readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && isCode(entry.name))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name)) // parentPath from Node 20.12
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${path.relative(root, file).split(path.sep).join('/')}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The running build's code root: the folder above cli/ (dist/ or src/). */
export const CODE_ROOT = fileURLToPath(new URL('../', import.meta.url));
