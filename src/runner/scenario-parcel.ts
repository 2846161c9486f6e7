/**
 * A scenario as the main thread holds it for worker threads once a matrix starts: serialized once
 * (node:v8, the same structured clone postMessage would make of it at each send) beside its token
 * counts, off the heap. Serialized text takes about a byte per character, the scenario's objects two
 * to three times that on the main thread's heap, where they stayed until their runs were in: parcels
 * are what is held, and with the scenarios let go (releaseScenarios) the main thread's memory through
 * the matrix is its scenario files' size, not a multiple of it.
 */
import { deserialize, serialize } from 'node:v8';
import type { Message } from '../core/messages.js';
import type { LoadedScenario } from '../scenarios/load.js';

export interface ScenarioParcel {
  /** v8.serialize of { scenario, format }: only what a replay reads (an imported file's source data stays behind). */
  readonly bytes: Uint8Array;
  /** The matrix counter's count of each message, in order: no worker tokenizes a scenario again. */
  readonly counts: Uint32Array;
}

export function parcelScenario({ scenario, format }: LoadedScenario, countMessage: (message: Message) => number): ScenarioParcel {
  return { bytes: serialize({ scenario, format } satisfies LoadedScenario), counts: Uint32Array.from(scenario.messages, countMessage) };
}

/** The scenario a parcel holds, as a worker thread reads it (new objects, not frozen). */
export function openParcel(bytes: Uint8Array): LoadedScenario {
  return deserialize(bytes) as LoadedScenario;
}
