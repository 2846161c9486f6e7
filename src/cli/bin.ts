#!/usr/bin/env node
/**
 * The `bench` entry: the only place that ends the process, sets its exit code (exit-codes.ts) and
 * handles its signals; it turns what commands throw into output and exit codes.
 */
import { CommanderError } from 'commander';
import { isCtxbenchError } from '../core/errors.js';
import { EXIT_CODES, ExitWith, exitCodeOf } from './exit-codes.js';
import { printable } from './printable.js';
import { buildProgram } from './program.js';

// `bench ... | head` closes the pipe early: the reader has what it wanted, which is no error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode === undefined ? EXIT_CODES.ok : Number(process.exitCode));
});

/** Ctrl-C while a matrix runs: the first stops it once the runs in progress are saved, the second quits now. */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSigint = (): void => {
    if (abort.signal.aborted) process.exit(EXIT_CODES.interrupted);
    abort.abort();
    process.stderr.write('\nbench: interrupted: finishing the runs in progress, then stopping (Ctrl-C again to quit now)\n');
  };
  process.on('SIGINT', onSigint);
  try {
    return await work(abort.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

async function main(): Promise<number> {
  try {
    await buildProgram({ interruptible }).parseAsync(process.argv);
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode; // commander already printed it
    if (error instanceof ExitWith) return error.code; // the command already printed its outcome
    if (isCtxbenchError(error)) {
      process.stderr.write(`bench: ${printable(error.message)}\n`);
      return exitCodeOf(error);
    }
    process.stderr.write(`bench: internal error (please report it): ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT_CODES.internalBug;
  }
}

process.exitCode = await main();
