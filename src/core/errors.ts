/**
 * User-facing errors: one class per condition, a stable code, and a one-line message that names the
 * file, field or flag and says what to do. Only the CLI entry turns them into output and exit codes;
 * anything else that escapes is a bug and is reported as one.
 */

export type ErrorCode =
  | 'SCENARIO_INVALID'
  | 'SCENARIO_NOT_FOUND'
  | 'FORMAT_UNKNOWN'
  | 'STRATEGY_UNKNOWN'
  | 'STRATEGY_INVALID'
  | 'PARAM_INVALID'
  | 'OPTION_INVALID'
  | 'STORE_ERROR'
  | 'STORE_LOCKED'
  /** An output path that cannot be created, or whose write would replace an input or a file of another kind. */
  | 'OUTPUT_INVALID'
  | 'BASELINE_INVALID'
  /** A --calibration file that is not a ctxbench calibration. */
  | 'CALIBRATION_INVALID'
  | 'BACKEND_UNREACHABLE'
  | 'WORKER_FAILED'
  | 'INTERRUPTED'
  /** Runs of a matrix ended with status `error`: they are saved, and --resume runs them again. */
  | 'RUN_ERRORS'
  /** Messages an agent handed an adapter that no model accepts (a tool result without its call...). */
  | 'MESSAGES_INVALID'
  /** The tokenizer's rank table cannot be read: an install that lost a file of gpt-tokenizer. */
  | 'TOKENIZER_MISSING'
  /** A strategy an adapter runs ended the run instead of sending (max restarts reached, ...): the agent stops. */
  | 'STRATEGY_STOPPED';

export class CtxbenchError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CtxbenchError';
  }
}

export const scenarioInvalid = (file: string, problem: string): CtxbenchError =>
  new CtxbenchError('SCENARIO_INVALID', `${file}: ${problem}`);

export function isCtxbenchError(error: unknown): error is CtxbenchError {
  return error instanceof CtxbenchError;
}

/**
 * What an error says, as one line: its message's first line that is not blank, with the next one when
 * the first only announces it ("Transform failed with 1 error:", then the file, line and problem).
 */
export function errorLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  if (lines.length === 0) return 'no message';
  return lines[0]!.endsWith(':') && lines.length > 1 ? `${lines[0]} ${lines[1]}` : lines[0]!;
}
