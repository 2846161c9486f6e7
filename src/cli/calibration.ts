/**
 * Token calibration for `bench run`: a factor per model, fitted on the provider usage the scenarios
 * recorded (src/metrics/calibration.ts); models with no recorded usage use the factor fitted on the
 * shared mini-swe-agent trajectories when there is one, else run uncalibrated.
 */
import type { TokenCounter } from '../core/tokens.js';
import { calibrationKey, fitByModel, FITTED_FACTORS, type Calibration } from '../metrics/calibration.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { CalibrationRow } from '../store/records.js';

export interface ModelCalibration extends Partial<Calibration> {
  readonly key: string;
  readonly model: string;
  readonly factor: number;
  /** "fitted" on these scenarios, or "stored" (fitted earlier on the shared trajectories). */
  readonly source: 'fitted' | 'stored';
}

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

const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}%`;

export function calibrationLine(c: ModelCalibration): string {
  const head = `Token calibration: ${c.model} x${c.factor.toFixed(3)}`;
  if (c.source === 'stored' || !c.before || !c.after) return `${head} (stored factor; these scenarios recorded no usage for it)`;
  return (
    `${head}, fitted on ${c.samples} recorded requests: mean error ${signed(c.before.meanPctError)} -> ${signed(c.after.meanPctError)}, ` +
    `mean absolute ${c.before.meanAbsPctError.toFixed(1)}% -> ${c.after.meanAbsPctError.toFixed(1)}%`
  );
}

export function calibrationRow(batchId: string, c: ModelCalibration): CalibrationRow {
  const [model, encoding] = c.key.split('|') as [string, string];
  return {
    batch_id: batchId,
    model,
    encoding,
    factor: c.factor,
    samples: c.samples ?? 0,
    mape_before: c.before?.meanAbsPctError ?? 0,
    mpe_before: c.before?.meanPctError ?? 0,
    mape_after: c.after?.meanAbsPctError ?? 0,
    mpe_after: c.after?.meanPctError ?? 0,
  };
}
