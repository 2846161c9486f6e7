import { execFileSync } from 'node:child_process';

/**
 * The end-to-end tests spawn the built CLI: build it once, before any test file runs, so parallel
 * test files never rebuild dist/ under each other.
 */
export default function setup(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
