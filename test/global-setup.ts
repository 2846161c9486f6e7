import { execFileSync } from 'node:child_process';

/**
 * The end-to-end tests spawn the built CLI: build it once, before any test file runs, so parallel
 * test files never rebuild dist/ under each other. scripts/prepare.mjs builds unless dist/ is the
 * build of the current sources (as after `npm ci`, whose `prepare` built it).
 */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/prepare.mjs'], { stdio: 'inherit' });
}
