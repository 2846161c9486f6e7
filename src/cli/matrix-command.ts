/**
 * What the entry (bin.ts) hands the commands that run matrices (`bench run`, `bench sweep`): the
 * command line to record, and the handling of Ctrl-C and SIGTERM, which the entry alone owns (it alone
 * ends the process).
 */

export interface MatrixCommandContext {
  /** The arguments after `bench`, recorded with the batch. */
  readonly argv: readonly string[];
  /**
   * Runs `work` with a signal the first Ctrl-C or SIGTERM aborts, with the signal's name (SIGINT,
   * SIGTERM) as its reason (the runs in progress finish, then it stops); a second one quits at once.
   * Before and after `work`, they end the process as usual.
   */
  readonly interruptible: <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>;
}
