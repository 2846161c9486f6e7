/**
 * Spawning the built `bench` as a user runs it (test/global-setup.ts builds dist/ once).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'dist/cli/bin.js');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly cwd: string;
}

export const tempDir = (prefix = 'ctxbench-e2e-'): string => mkdtempSync(path.join(tmpdir(), prefix));

/** Runs `bench ...args` in `cwd` (a fresh temp dir by default) with colours off. */
export function bench(args: readonly string[], cwd = tempDir()): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, cwd };
}

/** A user-facing error: exit 1, exactly one line on stderr naming the problem, no stack. */
export function expectOneLineError(r: Pick<CliResult, 'code' | 'stderr'>, pattern: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}
