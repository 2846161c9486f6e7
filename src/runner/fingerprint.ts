/**
 * A matrix's fingerprint: a hash of everything that decides its results (each scenario's id and
 * content, each strategy entry with its parameters, and the run settings), and of nothing that varies
 * between machines (file paths, load order, time). Shards of one matrix compute the same one, which
 * gives them a common batch id, and `--resume` finds the batch to continue by it.
 */
import { createHash } from 'node:crypto';
import { stableJson } from '../core/stable-json.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { scenarioDigest } from '../scenarios/digest.js';
import { entryLabel } from './job-plan.js';
import type { MatrixEntry } from './matrix-entry.js';
import type { ParamValue, Params } from '../core/params.js';

export interface MatrixDefinition {
  readonly scenarios: readonly LoadedScenario[];
  readonly entries: readonly MatrixEntry[];
  /** The other settings that shape results: window override, backend and its options, encoding, ... */
  readonly settings: Readonly<Record<string, ParamValue | Params | undefined>>;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const byKey = <T>(key: (item: T) => string) => (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

export function matrixFingerprint({ scenarios, entries, settings }: MatrixDefinition): string {
  const scenarioDigests = scenarios
    .map(({ scenario, format }) => ({ id: scenario.id, format, digest: scenarioDigest(scenario) }))
    .sort(byKey((s) => s.id));
  const strategies = entries
    // An outside strategy's digest: a batch of an edited file is another matrix, which --resume runs again.
    .map((entry) => ({ label: entryLabel(entry), strategy: entry.strategy.name, params: entry.params, digest: entry.file?.digest }))
    .sort(byKey((e) => e.label));
  return sha256(stableJson({ scenarios: scenarioDigests, strategies, settings }));
}

/** The batch id every shard of a matrix computes alike. */
export const sharedBatchId = (fingerprint: string): string => `matrix-${fingerprint.slice(0, 16)}`;
