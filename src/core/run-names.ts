/**
 * How runs are named: the id a run is stored under and the key that matches it across shards,
 * resumed batches and baselines.
 */

/** `label` is the strategy or preset, with a sweep's setting in brackets (see runLabel). */
export function runId(batchId: string, label: string, scenarioId: string): string {
  return `${batchId}/${label}/${scenarioId}`;
}

/** What a run is named in its id and job key: the strategy or preset, and a sweep's setting in brackets. */
export function runLabel(name: string, variant: string | undefined): string {
  return variant === undefined ? name : `${name}[${variant}]`;
}
