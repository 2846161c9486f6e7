/**
 * Spawning the built `bench` as a user runs it (test/global-setup.ts builds dist/ once).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { RunResult } from '../../src/core/run-records.js';
import { ResultStore } from '../../src/store/result-store.js';

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

/**
 * Runs `bench ...args` without blocking this process, so a server the test started in it can answer.
 * The live backends' variables are cleared: only the flags say where the servers are.
 */
export function benchAsync(args: readonly string[], cwd = tempDir('ctxbench-live-')): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', OLLAMA_HOST: '', OPENAI_BASE_URL: '', OPENAI_API_KEY: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr, cwd }));
  });
}

/** The runs stored in `file` (relative to `cwd`). */
export async function storedRuns(cwd: string, file = 'r.duckdb'): Promise<RunResult[]> {
  const store = await ResultStore.openExisting(path.join(cwd, file));
  try {
    return await store.loadRuns();
  } finally {
    await store.close();
  }
}

/** http://127.0.0.1:PORT of a port that was just free: nothing listens there (connection refused). */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Spawns `bench ...args` in `cwd` and sends it `signal` once its stderr matches `when`; resolves when it exits. */
export function signalWhen(args: readonly string[], when: RegExp, signal: NodeJS.Signals, cwd = tempDir()): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (!sent && when.test(stderr)) sent = child.kill(signal);
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr, cwd }));
  });
}
