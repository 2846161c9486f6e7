/**
 * The token calibration a batch runs with: a factor per model, fitted on the provider usage the
 * scenarios recorded (src/metrics/calibration.ts); models with no recorded usage use the factor fitted
 * on the shared mini-swe-agent trajectories when there is one, else run uncalibrated.
 */
import type { CalibrationRecord, PctErrors } from '../core/run-records.js';
import type { TokenCounter } from '../core/tokens.js';
import { calibrationKey, fitByModel, FITTED_FACTORS, type Calibration } from '../metrics/calibration.js';
import type { Scenario } from '../scenarios/scenario.js';

export interface ModelCalibration extends Partial<Calibration> {
  readonly key: string;
  readonly model: string;
  readonly factor: number;
  /** "fitted" on these scenarios, or "stored" (fitted earlier on the shared trajectories). */
  readonly source: 'fitted' | 'stored';
}

/** One factor per model of the scenarios that has one: fitted on their recorded usage, else stored. */
export function calibrate(scenarios: readonly Scenario[], counter: TokenCounter): ModelCalibration[] {
  const fitted = fitByModel(scenarios, counter);
  const out = new Map<string, ModelCalibration>();
  for (const [key, fit] of fitted) out.set(key, { ...fit, key, model: key.split('|')[0]!, source: 'fitted' });
  for (const s of scenarios) {
    const key = calibrationKey(s.model.name, counter.encoding);
    const stored = FITTED_FACTORS[key];
    if (!out.has(key) && stored !== undefined) out.set(key, { key, model: key.split('|')[0]!, factor: stored, source: 'stored' });
  }
  return [...out.values()];
}

/** A stored factor was not fitted on these scenarios: no errors to record. */
const NO_ERRORS: PctErrors = { meanAbsPctError: 0, meanPctError: 0 };

/** The calibration as the batch `batchId` stores it. */
export function calibrationRecord(batchId: string, c: ModelCalibration): CalibrationRecord {
  const [model, encoding] = c.key.split('|') as [string, string];
  return { batchId, model, encoding, factor: c.factor, samples: c.samples ?? 0, before: c.before ?? NO_ERRORS, after: c.after ?? NO_ERRORS };
}
