/** Ids and run counts for formats whose files carry no id of their own or hold several runs. */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';

/** `text` as a scenario id: every run of characters an id cannot hold (see schema.ts) becomes one '-'. */
export function safeId(text: string): string {
  return text.replace(/[^A-Za-z0-9._:@+-]+/g, '-') || 'scenario';
}

/** The file's name without `extension` (or without its last extension), as an id: "gpt-4o-airline.json" -> "gpt-4o-airline". */
export function fileStem(file: string, extension = path.extname(file)): string {
  return safeId(path.basename(file, extension));
}

/** The id of run `key` of a file that holds several: `<file-stem>@<key>` ("gpt-4o-airline@task-3.trial-0", "chats@7"). */
export function runId(file: string, key: string | number): string {
  return safeId(`${fileStem(file)}@${key}`);
}

/** What `convert` of a multi-run format does: the one run of the file, or an error naming the count. */
export function onlyRun<T>(runs: readonly T[], file: string): T {
  if (runs.length !== 1) {
    throw scenarioInvalid(file, `holds ${runs.length} runs; load it with importFileAll (scenarios/load.ts), one scenario per run`);
  }
  return runs[0]!;
}
