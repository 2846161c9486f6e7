#!/usr/bin/env node
/**
 * The `bench` entry: the only place that turns errors into output and exit codes.
 * 0 = success, 1 = a user-facing error (one line on stderr), 2 = an internal bug (with its stack),
 * 100 = `bench check` found a regression against its baseline (set as process.exitCode by the command),
 * 130 = interrupted (finished runs kept).
 */
import { CommanderError } from 'commander';
import { isCtxbenchError } from '../core/errors.js';
import { buildProgram } from './program.js';

// `bench ... | head` closes the pipe early: the reader has what it wanted, which is no error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
});

async function main(): Promise<number> {
  try {
    await buildProgram().parseAsync(process.argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode; // commander already printed it
    if (isCtxbenchError(error)) {
      process.stderr.write(`bench: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`bench: internal error (please report it): ${(error as Error)?.stack ?? String(error)}\n`);
    return 2;
  }
}

process.exitCode = await main();
