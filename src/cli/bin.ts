#!/usr/bin/env node
/**
 * The `bench` entry: the only place that ends the process, sets its exit code (exit-codes.ts) and
 * handles its signals; it turns what commands throw into output and exit codes.
 */
import { setFlagsFromString } from 'node:v8';
import { CommanderError } from 'commander';
import { isCtxbenchError } from '../core/errors.js';
import { EXIT_CODES, ExitWith, exitCodeOf, STOP_SIGNALS, type StopSignal } from './exit-codes.js';
import { printable } from './printable.js';
import { buildProgram } from './program.js';

/**
 * V8 lets a heap grow to up to 4x what its last full collection kept before collecting again, and a
 * matrix's garbage (each step's contexts and records, each save's rows) then holds the memory; 3x costs
 * no time (full collections are a small part of the GC time, scavenges most of it), 2x does. The flag
 * is the process's: it holds for the worker threads too. Measured on 20 x 400 generated steps,
 * `-s all -j 2`, 3 runs each: peak RSS 562-584 MiB by default, 469-495 at 3x; fastest 13.8 s and
 * 13.6 s (2x: 10 MiB less than 3x, 4% more time).
 */
setFlagsFromString('--heap-growing-percent=200');

/**
 * TurboFan inlines up to 920 bytes of bytecode into each function it optimizes, a budget made for
 * long-running servers. A matrix runs many strategies' code on three threads (the main thread and two
 * workers), each compiling its own: with `-s all` the compiles were the largest part of the extra CPU
 * (1,408 of them against raw's 282, the replay's request loop compiled 15 times at 46 ms), and each
 * new strategy's shapes deoptimize and recompile the shared code. A budget of 200 compiles smaller
 * code faster. Measured, whole commands alternating with the default: `-s all -j 2` on 20 x 400
 * generated steps 9.4 to 9.8 s against 10.3 to 10.5 (CPU -9%), `-s raw -j 2` 3.0 against 3.1 s, the
 * bundled suite through every strategy 1.8 against 2.0 s, one 10,000-step scenario through raw,
 * masking and summarization 7.3 and 7.9 s against 7.8 and 8.1.
 */
setFlagsFromString('--max-inlined-bytecode-size-cumulative=200');

/** Ends the process: bench's own exits (a closed pipe, a second Ctrl-C) go through here. */
const exit = process.exit.bind(process);
/** Set once the command has returned. */
let finished = false;

/**
 * Code that calls process.exit before the command has finished (a strategy file's, at import or in a
 * hook on this thread) would end bench with its code (0: success) and nothing printed after it: it
 * ends with one line and exit code 1 instead (vitest does the same). The runs saved before stay. On a
 * worker thread process.exit ends only that thread, which the matrix reports as the worker's failure.
 */
process.exit = ((code?: number | string | null) => {
  if (finished) return exit(code);
  process.stderr.write(`bench: process.exit(${code ?? ''}) was called before the command finished (by a strategy file?)\n`);
  return exit(EXIT_CODES.userError);
}) as typeof process.exit;

// `bench ... | head` closes the pipe early: the reader has what it wanted, which is no error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  exit(process.exitCode === undefined ? EXIT_CODES.ok : Number(process.exitCode));
});

/** The signal that stopped the matrix, for its exit code. */
let stoppedBy: StopSignal | undefined;

/**
 * Ctrl-C (SIGINT) or SIGTERM (a CI cancellation) while a matrix runs: the first stops it once the runs
 * in progress are saved, a second quits now with that signal's code.
 */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSignal = (signal: StopSignal): void => {
    if (abort.signal.aborted) exit(STOP_SIGNALS[signal]);
    stoppedBy = signal;
    abort.abort(signal); // the reason: which code the matrix's JSON says it ends with (exit-codes.ts stopSignalOf)
    const again = signal === 'SIGINT' ? 'Ctrl-C again' : 'send it again';
    process.stderr.write(`\nbench: ${signal === 'SIGINT' ? 'interrupted' : signal}: finishing the runs in progress, then stopping (${again} to quit now)\n`);
  };
  const signals = Object.keys(STOP_SIGNALS) as StopSignal[];
  signals.forEach((signal) => process.on(signal, onSignal));
  try {
    return await work(abort.signal);
  } finally {
    signals.forEach((signal) => process.off(signal, onSignal));
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
      return exitCodeOf(error, stoppedBy);
    }
    process.stderr.write(`bench: internal error (please report it): ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT_CODES.internalBug;
  }
}

process.exitCode = await main();
finished = true;
