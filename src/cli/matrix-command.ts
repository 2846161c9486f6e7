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
  /** The config file the settings came from, if one was read. */
  readonly config?: ConfigUsed | undefined;
}

/** A config file read, and the settings taken from it (those no flag on the command line gave). */
export interface ConfigUsed {
  readonly file: string;
  readonly settings: readonly string[];
}
