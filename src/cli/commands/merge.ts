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
  const shards = merged.shardBatches;
  if (shards.length > 1) {
    // bench check reads the latest batch alone: shards that did not join fail it as missing runs.
    process.stderr.write(
      `bench: warning: the shards are of ${shards.length} matrices (${shards.join(', ')}): shards of one matrix share one batch when they run with the same flags and the same build of ctxbench; bench report and bench check read the latest batch only\n`,
    );
  }
}
