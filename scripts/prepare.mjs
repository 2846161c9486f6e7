// npm runs `prepare` after `npm ci`, and again whenever npx installs this checkout into its cache,
// which it does on the first `npx bench` (npm finds `bench` among the project's own bins and links the
// project there). A second whole build then cost 12 s of a user's first run; the build runs only when
// its inputs differ from those of the build in dist/ (a hash of them, kept beside it).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/clean-dist.mjs', 'scripts/copy-assets.mjs'];
const STAMP = join(root, 'dist', '.build-inputs');

/** The files under `path` (itself, when a file). */
const files = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name))
    : [path];
const hash = createHash('sha256');
for (const file of INPUTS.flatMap((p) => files(join(root, p))).sort()) hash.update(`${relative(root, file)}\0`).update(readFileSync(file)).update('\0');
const inputs = hash.digest('hex');

if (existsSync(join(root, 'dist', 'cli', 'bin.js')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === inputs) {
  console.log('dist/ is the build of these sources: not built again');
} else {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  writeFileSync(STAMP, inputs);
}
