import type { ScenarioFile } from '../schema.js';

/**
 * Converts one recorded-trajectory format into the ctxbench scenario format. Adding a format is one
 * file and one line in the registry (importers/index.ts); `bench scenarios import` picks it up.
 */
export interface Importer {
  /** The format's name, as `bench scenarios import` prints it (e.g. "mini-swe-agent-1"). */
  readonly format: string;
  readonly description: string;
  /** True when parsed file data looks like this format. Must not throw. */
  detect(data: unknown, file: string): boolean;
  /**
   * Builds the scenario file data. May read sidecar files next to `file` (outcome labels). Throws a
   * CtxbenchError (scenarioInvalid) naming the file and field when the data is not what it expects.
   */
  convert(data: unknown, file: string): Promise<ScenarioFile>;
  /**
   * For formats whose one file can hold several recorded runs (tau-bench's list of 200, OpenHands
   * output.jsonl, a JSONL of chats): one scenario per run, in file order, each with its own id. Such
   * an importer's `convert` takes a file with exactly one run and names the count otherwise.
   * importers/many.ts (`importFileAll`) is the loader that uses it.
   */
  convertMany?(data: unknown, file: string): Promise<ScenarioFile[]>;
  /**
   * For formats that log one file per LLM call (OpenHands' llm_completions/<instance>/): joins the call
   * files of one recorded run into one scenario. load.ts (`importFiles`) is the loader that uses it.
   */
  readonly calls?: CallLog;
}

/** How the call files of one recorded run become one scenario. */
export interface CallLog {
  /** The group a call file belongs to: files with the same key are joined (OpenHands: the instance folder). */
  runOf(data: unknown, file: string): string;
  /** Joins one group's call files, given one at a time, in any order. */
  join(): CallJoiner;
}

export interface CallJoiner {
  add(data: unknown, file: string): Promise<void>;
  /**
   * The group's runs, one scenario each (a folder can hold the calls of several conversations): the
   * conversation of a run's last call, each call's recorded usage at the turn it produced.
   */
  scenarios(): ScenarioFile[];
}
