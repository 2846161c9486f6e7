/**
 * `bench merge a.duckdb b.duckdb ... -o all.duckdb`: one results database from several (CI shards).
 */
import path from 'node:path';
import { mergeDatabases } from '../../store/merge.js';

export interface MergeOptions {
  readonly output: string;
}

export async function mergeCommand(inputs: readonly string[], options: MergeOptions): Promise<void> {
  const merged = await mergeDatabases(inputs, options.output);
  const target = path.resolve(options.output);
  const added = merged.sources.filter((file) => path.resolve(file) !== target).length;
  const kept = added < merged.sources.length ? ' (its runs kept)' : '';
  process.stdout.write(`Merged ${added} file(s) into ${target}${kept}: ${merged.runs} runs in ${merged.batches} batch(es)\n`);
  // bench check reads the latest batch alone, and a batch's runs are compared as one matrix's.
  for (const problem of merged.disagreements) process.stderr.write(`bench: warning: ${problem}; bench report and bench check read one batch as one matrix\n`);
}
