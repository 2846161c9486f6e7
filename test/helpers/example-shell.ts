/**
 * A shell in which examples run as a user types them: `bench` and `npx bench` are the built CLI,
 * `duckdb` the DuckDB stand-in (duckdb-cli.ts); each command runs in a process group of its own, so
 * a server can be stopped with Ctrl-C and anything left running can be ended whole.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { BIN, ROOT } from './cli.js';

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ExampleShell {
  /** Runs `command` with /bin/sh in `cwd`. */
  run(command: string, cwd: string): Promise<Ran>;
  /** Runs a command that serves until Ctrl-C: Ctrl-C once its output matches `ready`. */
  serve(command: string, cwd: string, ready: RegExp): Promise<Ran>;
  /** Ends whatever is still running (a test that failed half-way). */
  stopAll(): void;
}

/** A shell whose programs live in `root`/bin, with `env` on top of this process's environment. */
export function exampleShell(root: string, env: Readonly<Record<string, string>>): ExampleShell {
  const bin = path.join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const node = process.execPath;
  shim(bin, 'bench', `exec "${node}" "${BIN}" "$@"`);
  shim(bin, 'npx', `if [ "$1" = bench ]; then shift; exec "${node}" "${BIN}" "$@"; fi\necho "npx $1: only npx bench runs here" >&2\nexit 127`);
  shim(bin, 'duckdb', `exec "${path.join(ROOT, 'node_modules/.bin/tsx')}" "${path.join(ROOT, 'test/helpers/duckdb-cli.ts')}" "$@"`);
  const fullEnv = { ...process.env, ...env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, NO_COLOR: '1' };
  const running = new Set<ChildProcess>();

  const start = (command: string, cwd: string): { child: ChildProcess; done: Promise<Ran> } => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: fullEnv, detached: true });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const done = new Promise<Ran>((resolve) =>
      child.on('close', (code, signal) => {
        running.delete(child);
        resolve({ code: code ?? (signal ? 128 + constants.signals[signal] : null), stdout, stderr });
      }),
    );
    return { child, done };
  };

  return {
    run: (command, cwd) => start(command, cwd).done,
    serve: (command, cwd, ready) => {
      // exec: the server itself is the shell's process, and gets the Ctrl-C.
      const { child, done } = start(`exec ${command}`, cwd);
      let out = '';
      const onData = (c: Buffer): void => {
        out += c.toString();
        if (!ready.test(out)) return;
        child.stdout!.off('data', onData); // once: a second Ctrl-C would not let it stop cleanly
        signalGroup(child, 'SIGINT');
      };
      child.stdout!.on('data', onData);
      return done;
    },
    stopAll: () => running.forEach((child) => signalGroup(child, 'SIGKILL')),
  };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

function shim(bin: string, name: string, body: string): void {
  writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
  chmodSync(path.join(bin, name), 0o755);
}
