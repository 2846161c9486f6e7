/**
 * How `bench` ends: every exit code it uses, declared once. Only the entry (bin.ts) ends the process
 * or sets its exit code; commands throw, and the entry turns what they threw into a code here.
 */
import type { CtxbenchError } from '../core/errors.js';

export const EXIT_CODES = {
  ok: 0,
  /** A user-facing error: one line on stderr naming the file, field or flag. */
  userError: 1,
  /** An internal bug: the stack is printed, to be reported. */
  internalBug: 2,
  /** `bench check` found regressions against its baseline (as promptfoo). */
  regressions: 100,
  /** `bench check` could not compare like with like: baseline runs missing, configurations changed. */
  incomparable: 101,
  /** Interrupted by Ctrl-C, finished runs kept: what shells report for SIGINT (128 + 2). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Thrown by a command that has printed its outcome and only has to end with `code` (`bench check`'s regressions). */
export class ExitWith extends Error {
  constructor(readonly code: ExitCode) {
    super(`exit ${code}`);
    this.name = 'ExitWith';
  }
}

/** The exit code of a user-facing error: 130 for an interrupted run, 1 for the others. */
export const exitCodeOf = (error: CtxbenchError): ExitCode => (error.code === 'INTERRUPTED' ? EXIT_CODES.interrupted : EXIT_CODES.userError);
