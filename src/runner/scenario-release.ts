/**
 * What the main thread of a worker matrix holds of its scenarios. It only forwards a scenario (to a
 * worker, the first time that worker takes one of its jobs), yet it loaded every scenario before the
 * first run: on 100 generated scenarios of 400 steps, 244 MB of its heap, held until their runs were
 * in. Given the array (releaseScenarios), it parcels each scenario before the first run
 * (scenario-parcel.ts), writes the parcel to a spill file (spill-file.ts: the page cache, not this
 * process's memory) and clears its entry; a worker's parcel is read back when it is sent. The heap the
 * scenarios held comes back at a full collection, which the main thread, allocating little, would not
 * run soon: one is asked for each time COLLECT_BYTES of parcels have been spilled, and once at the end.
 * Where the temporary folder cannot take the file, the parcels stay in memory: more memory, same run.
 */
import { scenarioInvalid } from '../core/errors.js';
import type { Message } from '../core/messages.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { collectGarbage } from './collect-garbage.js';
import { parcelScenario, type ScenarioParcel } from './scenario-parcel.js';
import { openSpillFile, spillStore, type SpillFile } from './spill-file.js';

/**
 * Bytes of parcels (about 10 scenarios of 400 generated steps) spilled per full collection: the heap
 * holds at most about this much of scenarios already spilled.
 */
export const COLLECT_BYTES = 16_000_000;

export interface HeldScenarios {
  /** The parcel of scenario `index`, for a worker that does not hold it yet. */
  parcel(index: number): ScenarioParcel;
  /** Once per job whose run has come back: a scenario whose jobs all have is let go. */
  returned(job: { readonly scenario: number }): void;
  /** The matrix is over: what is still held is let go. */
  close(): void;
}

export interface HoldOptions {
  /** The caller gave the array up: parcel every scenario now, spill it and clear its entry. */
  readonly release: boolean;
  readonly collect?: (() => void) | undefined;
  readonly every?: number | undefined;
  /** Opens the spill file (default openSpillFile; a test gives one that fails). */
  readonly open?: ((prefix: string) => SpillFile) | undefined;
}

/**
 * The scenarios of `jobs` as the main thread holds them. Without `release` the caller keeps its
 * scenarios, and each send parcels one anew (the structured clone a send makes anyway).
 */
export function holdScenarios(
  scenarios: (LoadedScenario | undefined)[],
  jobs: readonly { readonly scenario: number }[],
  countMessage: (message: Message) => number,
  { release, collect = collectGarbage, every = COLLECT_BYTES, open = openSpillFile }: HoldOptions,
): HeldScenarios {
  if (!release) return { parcel: (index) => parcelScenario(scenarios[index]!, countMessage), returned: () => {}, close: () => {} };
  const left = new Map<number, number>();
  for (const job of jobs) left.set(job.scenario, (left.get(job.scenario) ?? 0) + 1);
  // Where the temporary folder cannot take the file, the parcels stay in memory (spillStore).
  const store = spillStore('ctxbench-scenarios-', open);
  let spilled = 0; // bytes since the last collection
  let held: ({ readonly bytes: () => Uint8Array; readonly counts: Uint32Array } | undefined)[];
  try {
    // A scenario with no job here (a resumed batch's kept runs) is let go without a parcel.
    held = scenarios.map((loaded, index) => {
      scenarios[index] = undefined;
      if (loaded === undefined || !left.has(index)) return undefined;
      const { bytes, counts } = parcelled(loaded, countMessage);
      spilled += bytes.byteLength;
      if (spilled >= every) {
        spilled = 0;
        collect();
      }
      return { bytes: store.put(bytes), counts };
    });
  } catch (error) {
    store.close();
    throw error;
  }
  collect();
  return {
    parcel(index) {
      const { bytes, counts } = held[index]!;
      return { bytes: bytes(), counts };
    },
    returned(job) {
      const remaining = left.get(job.scenario)! - 1;
      left.set(job.scenario, remaining);
      if (remaining === 0) held[job.scenario] = undefined;
    },
    close: () => store.close(),
  };
}

/** A scenario's parcel; a message the counter cannot read fails the matrix before it starts, naming the file. */
function parcelled(loaded: LoadedScenario, countMessage: (message: Message) => number): ScenarioParcel {
  try {
    return parcelScenario(loaded, countMessage);
  } catch (error) {
    throw scenarioInvalid(loaded.scenario.file, `cannot count its messages: ${error instanceof Error ? error.message : String(error)}`);
  }
}
