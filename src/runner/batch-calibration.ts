/**
 * The token calibration a batch runs with, one per model of its scenarios (as the registry resolves
 * it): fitted on the provider usage the scenarios recorded (src/metrics/calibration.ts); for a model
 * whose scenarios recorded none, the built-in one fitted on the shared trajectories, if any. Given
 * stored calibrations (`--calibration file.json`), those are applied instead of fitting, and checked
 * against whatever usage the scenarios recorded.
 */
import type { CalibrationRecord, CalibrationSource } from '../core/run-records.js';
import type { Encoding, TokenCounter } from '../core/tokens.js';
import {
  BUILT_IN_CALIBRATIONS,
  calibrationKey,
  fitByModel,
  pctErrors,
  storedCalibration,
  usageSamples,
  type FitSummary,
  type StoredCalibration,
} from '../metrics/calibration.js';
import type { Scenario } from '../scenarios/scenario.js';

/** A model's calibration in a batch: what the batch stores (CalibrationRecord), with its key and, when stored, what it was fitted on. */
export interface ModelCalibration extends Omit<CalibrationRecord, 'batchId' | 'encoding'> {
  /** calibrationKey(model, encoding). */
  readonly key: string;
  readonly encoding: Encoding;
  /** Stored: what it was fitted on, as stored. */
  readonly fitted?: FitSummary | undefined;
}

/** Stored calibrations to apply instead of fitting, and the file they came from. */
export interface CalibrationFile {
  readonly path: string;
  readonly calibrations: readonly StoredCalibration[];
}

export interface Calibrated {
  readonly calibrations: ModelCalibration[];
  /** Models a calibration file has nothing for: their scenarios are counted uncalibrated. */
  readonly missing: string[];
}

/**
 * One calibration per model of the scenarios, in the order they first appear: from `file` when given
 * (a model it lacks is `missing`), else fitted on the recorded usage, else built in.
 */
export function calibrate(scenarios: readonly Scenario[], counter: TokenCounter, file?: CalibrationFile): Calibrated {
  const byKey = new Map<string, Scenario[]>();
  for (const s of scenarios) {
    const key = calibrationKey(s.model.name, counter.encoding);
    byKey.set(key, [...(byKey.get(key) ?? []), s]);
  }
  const fitted = file === undefined ? fitByModel(scenarios, counter) : new Map();
  const calibrations: ModelCalibration[] = [];
  const missing: string[] = [];
  for (const [key, own] of byKey) {
    const model = key.slice(0, key.lastIndexOf('|'));
    const fit = fitted.get(key);
    if (fit) {
      calibrations.push({ ...fit, key, model, encoding: counter.encoding, source: 'fitted' });
      continue;
    }
    const stored = storedCalibration(model, counter.encoding, file?.calibrations ?? BUILT_IN_CALIBRATIONS);
    if (stored === undefined) {
      if (file !== undefined) missing.push(model);
      continue;
    }
    calibrations.push(checked(stored, key, own, counter, file === undefined ? 'built-in' : 'file'));
  }
  return { calibrations, missing };
}

/** A stored calibration with its errors on the usage these scenarios recorded (none: no errors). */
function checked(stored: StoredCalibration, key: string, scenarios: readonly Scenario[], counter: TokenCounter, source: CalibrationSource): ModelCalibration {
  const groups = scenarios.map((s) => usageSamples(s, counter)).filter((g) => g.length > 0);
  const samples = groups.flat();
  const errors = samples.length === 0 ? {} : { before: pctErrors(samples), after: pctErrors(samples, stored.factor, stored.overhead) };
  return {
    key,
    model: key.slice(0, key.lastIndexOf('|')),
    encoding: counter.encoding,
    factor: stored.factor,
    overhead: stored.overhead,
    source,
    samples: samples.length,
    scenarios: groups.length,
    ...errors,
    fitted: stored.fitted,
  };
}

/** The calibration as the batch `batchId` stores it. */
export function calibrationRecord(batchId: string, c: ModelCalibration): CalibrationRecord {
  const { key: _key, fitted: _fitted, ...record } = c;
  return { batchId, ...record };
}

/** The calibration as a calibration file keeps it (`bench run --save-calibration`). */
export function storedFrom(c: ModelCalibration): StoredCalibration {
  const fitted: FitSummary | undefined =
    c.source === 'fitted' && c.after
      ? { requests: c.samples, scenarios: c.scenarios, inSample: c.after.meanAbsPctError, outOfSample: c.outOfSample?.meanAbsPctError }
      : c.fitted;
  return { model: c.model, encoding: c.encoding, factor: c.factor, overhead: c.overhead, fitted };
}
