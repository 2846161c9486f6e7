/**
 * The line `bench run` prints per token calibration factor before the runs: the factor, and how much
 * it improved the local counts on the requests it was fitted on.
 */
import type { ModelCalibration } from '../runner/batch-calibration.js';

const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}%`;

/** "Token calibration: gemini-3-pro-preview x1.170, fitted on 175 recorded requests: mean error ...". */
export function calibrationLine(c: ModelCalibration): string {
  const head = `Token calibration: ${c.model} x${c.factor.toFixed(3)}`;
  if (c.source === 'stored' || !c.before || !c.after) return `${head} (stored factor; these scenarios recorded no usage for it)`;
  return (
    `${head}, fitted on ${c.samples} recorded requests: mean error ${signed(c.before.meanPctError)} -> ${signed(c.after.meanPctError)}, ` +
    `mean absolute ${c.before.meanAbsPctError.toFixed(1)}% -> ${c.after.meanAbsPctError.toFixed(1)}%`
  );
}
