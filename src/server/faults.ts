/**
 * The fault schedule: each chat request takes the first listed fault that still has requests left
 * and applies to its route.
 */
import { FAULT_KINDS, type Fault, type Route } from './types.js';

export const FAULT_DEFAULTS = { times: 1, retryAfterSeconds: 1, delayMs: 1000 } as const;

export interface FaultSchedule {
  /** The fault for the next chat request on `route`, counted as used; undefined for a normal answer. */
  take(route: Route): Fault | undefined;
}

export function faultSchedule(faults: readonly Fault[]): FaultSchedule {
  faults.forEach(checkFault);
  const left = faults.map((f) => f.times ?? FAULT_DEFAULTS.times);
  return {
    take(route) {
      const i = faults.findIndex((f, j) => left[j]! > 0 && (f.path === undefined || f.path === route));
      if (i < 0) return undefined;
      left[i]! -= 1;
      return faults[i];
    },
  };
}

function checkFault(fault: Fault): void {
  const { kind, times = 1 } = fault;
  if (!FAULT_KINDS.includes(kind)) throw new Error(`unknown fault kind '${String(kind)}' (known: ${FAULT_KINDS.join(', ')})`);
  if (!(times === Infinity || (Number.isInteger(times) && times >= 1))) throw new Error(`fault ${kind}: times must be a whole number >= 1 or Infinity, got ${times}`);
}
