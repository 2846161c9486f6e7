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
  process.stdout.write(`Merged ${merged.sources.length} file(s) into ${path.resolve(options.output)}: ${merged.runs} runs in ${merged.batches} batch(es)\n`);
}
