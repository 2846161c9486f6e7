/**
 * How `bench` ends: every exit code it uses, declared once with its meaning (`bench --help` and the
 * README's table show them). Only the entry (bin.ts) ends the process or sets its exit code; commands
 * throw, and the entry turns what they threw into a code here.
 */
import type { CtxbenchError } from '../core/errors.js';
import type { GateVerdict } from '../gate/compare.js';

export const EXIT_CODES = {
  ok: 0,
  /** A user-facing error: one line on stderr naming the file, field or flag. */
  userError: 1,
  /** An internal bug: the stack is printed, to be reported. */
  internalBug: 2,
  /** Runs ended with status `error` (a backend failure outlasted the retries, or a strategy threw, hung or returned no valid plan): sysexits' EX_TEMPFAIL. */
  runErrors: 75,
  /** `bench check` found regressions against its baseline (as promptfoo). */
  regressions: 100,
  /** `bench check` could not compare like with like: baseline runs missing, configurations changed. */
  incomparable: 101,
  /** `bench verify` found a property the strategy breaks (its shrunk counterexample printed). */
  propertyBroken: 102,
  /** Interrupted by Ctrl-C (SIGINT), finished runs kept: what shells report for it (128 + 2). */
  interrupted: 130,
  /** Stopped by SIGTERM (a CI cancellation), finished runs kept: 128 + 15. */
  terminated: 143,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** What each exit code means, in the words `bench --help` and the README print. */
export const EXIT_CODE_MEANINGS: Readonly<Record<keyof typeof EXIT_CODES, string>> = {
  ok: 'success',
  userError: 'a user-facing error: one line naming the file, field or flag',
  internalBug: 'an internal bug: please report it (the stack is printed)',
  runErrors: 'some runs ended with status error (a backend failure outlasted the retries, or a strategy failed); --resume runs them again',
  regressions: 'bench check found regressions against the baseline',
  incomparable: 'bench check could not compare like with like (baseline runs missing, configurations changed)',
  propertyBroken: 'bench verify found a property the strategy breaks (the shrunk counterexample is printed)',
  interrupted: 'interrupted by Ctrl-C (SIGINT): finished runs kept, --resume runs the rest',
  terminated: 'stopped by SIGTERM (e.g. a CI cancellation): finished runs kept, --resume runs the rest',
};

/** The "Exit codes:" section of `bench --help`: one line per code, in numeric order. */
export function exitCodesHelp(): string {
  const lines = Object.entries(EXIT_CODES).map(([name, code]) => `  ${String(code).padEnd(5)}${EXIT_CODE_MEANINGS[name as keyof typeof EXIT_CODES]}`);
  return `Exit codes:\n${lines.join('\n')}`;
}

/** The signals a running matrix stops on (the runs in progress finish), with the code each ends with. */
export const STOP_SIGNALS = { SIGINT: EXIT_CODES.interrupted, SIGTERM: EXIT_CODES.terminated } as const;
export type StopSignal = keyof typeof STOP_SIGNALS;

/** Thrown by a command that has printed its outcome and only has to end with `code` (`bench check`'s regressions). */
export class ExitWith extends Error {
  constructor(readonly code: ExitCode) {
    super(`exit ${code}`);
    this.name = 'ExitWith';
  }
}

/** The codes `bench run` and `bench sweep` end with once their runs are saved and printed (their JSON says which). */
export type MatrixExitCode = typeof EXIT_CODES.ok | typeof EXIT_CODES.runErrors | (typeof STOP_SIGNALS)[StopSignal];

/**
 * The code a matrix command ends with after printing its runs, from the error it then throws (none,
 * INTERRUPTED or RUN_ERRORS): an interrupted matrix ends with the code of the signal that stopped it
 * (`stoppedBy`, default SIGINT), runs a backend error ended with runErrors.
 */
export function matrixExitCode(ending: CtxbenchError | undefined, stoppedBy: StopSignal = 'SIGINT'): MatrixExitCode {
  if (ending === undefined) return EXIT_CODES.ok;
  return ending.code === 'INTERRUPTED' ? STOP_SIGNALS[stoppedBy] : EXIT_CODES.runErrors;
}

/** The exit code of a user-facing error: a matrix's end as matrixExitCode says, the others 1. */
export function exitCodeOf(error: CtxbenchError, stoppedBy: StopSignal = 'SIGINT'): ExitCode {
  return error.code === 'INTERRUPTED' || error.code === 'RUN_ERRORS' ? matrixExitCode(error, stoppedBy) : EXIT_CODES.userError;
}

/** The signal an interruptible matrix was stopped by: bin.ts aborts it with the signal's name as the reason. */
export function stopSignalOf(signal: AbortSignal | undefined): StopSignal | undefined {
  const reason: unknown = signal?.reason;
  return typeof reason === 'string' && Object.hasOwn(STOP_SIGNALS, reason) ? (reason as StopSignal) : undefined;
}

/** How `bench check` ends for a verdict: regressions first, then a comparison that was not like with like. */
export function checkExitCode(verdict: GateVerdict): typeof EXIT_CODES.ok | typeof EXIT_CODES.regressions | typeof EXIT_CODES.incomparable {
  if (verdict.regressed) return EXIT_CODES.regressions;
  return verdict.missingFails || verdict.changesFail ? EXIT_CODES.incomparable : EXIT_CODES.ok;
}
