/**
 * A matrix's main thread letting go of each scenario once its last run has finished. On worker threads
 * the main thread only forwards a scenario (to a worker, the first time it takes one of its jobs), yet
 * it loaded every scenario before the first run and held them all to the end: on 100 generated
 * scenarios of 400 steps, 244 MB of its heap through the matrix. The memory comes back at a full
 * collection, which the main thread, allocating little meanwhile, would not run: one is asked for each
 * time the scenarios let go since the last hold COLLECT_CHARS characters of messages.
 */
import type { LoadedScenario } from '../scenarios/load.js';
import { collectGarbage } from './collect-garbage.js';

/**
 * Characters of released messages (about 12 scenarios of 400 generated steps) per full collection.
 * Measured on 100 x 400 steps, `-s all -j 2`: peak RSS 850 to 993 MiB holding every scenario, 719 to
 * 759 with this (700 to 719 collecting every 10 scenarios let go, 750 every 25), for about 3% more
 * CPU (each collection compacts the main thread's heap: README "Performance").
 */
export const COLLECT_CHARS = 16_000_000;

/**
 * Clears `scenarios[i]` once every job of scenario i has finished (`finished(job)`, once per job);
 * a scenario with no job among `jobs` (a resumed batch's kept runs) is cleared at once.
 */
export function scenarioRelease(
  scenarios: (LoadedScenario | undefined)[],
  jobs: readonly { readonly scenario: number }[],
  collect: () => void = collectGarbage,
  every = COLLECT_CHARS,
): (job: { readonly scenario: number }) => void {
  const left = new Map<number, number>();
  for (const job of jobs) left.set(job.scenario, (left.get(job.scenario) ?? 0) + 1);
  let released = 0; // characters let go since the last collection
  const release = (index: number): void => {
    const held = scenarios[index];
    if (held === undefined) return;
    scenarios[index] = undefined;
    for (const message of held.scenario.messages) released += message.content.length;
    if (released >= every) {
      released = 0;
      collect();
    }
  };
  scenarios.forEach((_, index) => !left.has(index) && release(index));
  return (job) => {
    const remaining = left.get(job.scenario)! - 1;
    left.set(job.scenario, remaining);
    if (remaining === 0) release(job.scenario);
  };
}
