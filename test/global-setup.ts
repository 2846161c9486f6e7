import { execFileSync } from 'node:child_process';

/** The end-to-end tests spawn the built CLI, so build it once before any test runs. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
