import { describe, expect, it } from 'vitest';
import { CtxbenchError, type ErrorCode } from '../core/errors.js';
import { checkExitCode, EXIT_CODE_MEANINGS, EXIT_CODES, exitCodeOf, exitCodesHelp, matrixExitCode, STOP_SIGNALS, stopSignalOf } from './exit-codes.js';

const error = (code: ErrorCode) => new CtxbenchError(code, 'what happened');

describe('exit codes', () => {
  it('are distinct, and each has its meaning', () => {
    const codes = Object.values(EXIT_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(EXIT_CODE_MEANINGS)).toEqual(Object.keys(EXIT_CODES));
  });

  it('a signal stops a matrix with 128 + its number, as shells report it', () => {
    expect(STOP_SIGNALS).toEqual({ SIGINT: 128 + 2, SIGTERM: 128 + 15 });
  });
});

describe('exitCodeOf', () => {
  it('an interrupted matrix: the code of the signal that stopped it (Ctrl-C when unknown)', () => {
    expect(exitCodeOf(error('INTERRUPTED'))).toBe(EXIT_CODES.interrupted);
    expect(exitCodeOf(error('INTERRUPTED'), 'SIGINT')).toBe(130);
    expect(exitCodeOf(error('INTERRUPTED'), 'SIGTERM')).toBe(143);
  });

  it('runs a backend error ended: their own code, whatever signal came before', () => {
    expect(exitCodeOf(error('RUN_ERRORS'))).toBe(EXIT_CODES.runErrors);
    expect(exitCodeOf(error('RUN_ERRORS'), 'SIGTERM')).toBe(75);
  });

  it.each<ErrorCode>(['BACKEND_UNREACHABLE', 'OPTION_INVALID', 'SCENARIO_INVALID', 'WORKER_FAILED'])('%s: a user-facing error, 1', (code) => {
    expect(exitCodeOf(error(code))).toBe(EXIT_CODES.userError);
  });
});

describe('matrixExitCode: the code bench run --json says it ends with', () => {
  it('is what the entry makes of the error the command throws after printing', () => {
    expect(matrixExitCode(undefined)).toBe(EXIT_CODES.ok);
    for (const code of ['INTERRUPTED', 'RUN_ERRORS'] as const) {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) expect(matrixExitCode(error(code), signal)).toBe(exitCodeOf(error(code), signal));
    }
  });
});

describe('stopSignalOf', () => {
  it('reads the signal a matrix was aborted with from the reason; anything else is no stop signal', () => {
    const aborted = (reason?: unknown): AbortSignal => {
      const controller = new AbortController();
      controller.abort(reason);
      return controller.signal;
    };
    expect(stopSignalOf(aborted('SIGTERM'))).toBe('SIGTERM');
    expect(stopSignalOf(aborted('SIGINT'))).toBe('SIGINT');
    expect(stopSignalOf(aborted())).toBeUndefined();
    expect(stopSignalOf(aborted('toString'))).toBeUndefined();
    expect(stopSignalOf(new AbortController().signal)).toBeUndefined();
    expect(stopSignalOf(undefined)).toBeUndefined();
  });
});

describe('checkExitCode', () => {
  const verdict = (regressed: boolean, missingFails: boolean, changesFail: boolean) => ({ regressed, missingFails, changesFail });
  it('regressions first, then a comparison that was not like with like, else 0', () => {
    expect(checkExitCode(verdict(false, false, false))).toBe(EXIT_CODES.ok);
    expect(checkExitCode(verdict(true, true, true))).toBe(EXIT_CODES.regressions);
    expect(checkExitCode(verdict(false, true, false))).toBe(EXIT_CODES.incomparable);
    expect(checkExitCode(verdict(false, false, true))).toBe(EXIT_CODES.incomparable);
  });
});

describe('exitCodesHelp', () => {
  it('lists every code with its meaning, in numeric order', () => {
    const lines = exitCodesHelp().split('\n');
    expect(lines[0]).toBe('Exit codes:');
    expect(lines.slice(1).map((l) => Number(l.trim().split(' ')[0]))).toEqual(Object.values(EXIT_CODES).toSorted((a, b) => a - b));
    expect(lines[4]).toBe(`  75   ${EXIT_CODE_MEANINGS.runErrors}`);
  });
});
