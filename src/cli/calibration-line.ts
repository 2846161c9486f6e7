/**
 * The line `bench run` prints per model's token calibration before the runs: the calibration, where it
 * came from, and how far the counts are from the recorded provider usage before and after it, in
 * sample and out of sample.
 */
import { calibrationModelText, type FitSummary } from '../metrics/calibration.js';
import type { ModelCalibration } from '../runner/batch-calibration.js';

const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}%`;
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "fitted on 735 requests of 18 scenarios, 2.6% out of sample": what a stored calibration was fitted on. */
function fittedOn(f: FitSummary | undefined): string {
  if (f === undefined) return '';
  const error = f.outOfSample === undefined ? `${f.inSample.toFixed(1)}% in sample` : `${f.outOfSample.toFixed(1)}% out of sample`;
  return `, fitted on ${plural(f.requests, 'request')} of ${plural(f.scenarios, 'scenario')}, ${error}`;
}

/**
 * "Token calibration: gemini-3-pro-preview x1.170, fitted on 175 recorded requests of 4 scenarios: mean
 * error -14.0% -> +0.6%, mean absolute 14.0% -> 2.3% in sample, 2.6% out of sample".
 */
export function calibrationLine(c: ModelCalibration, file?: string): string {
  const head = `Token calibration: ${c.model} ${calibrationModelText(c)}`;
  const errors =
    c.before && c.after
      ? `mean error ${signed(c.before.meanPctError)} -> ${signed(c.after.meanPctError)}, mean absolute ${c.before.meanAbsPctError.toFixed(1)}% -> ${c.after.meanAbsPctError.toFixed(1)}%`
      : undefined;
  const requests = `${plural(c.samples, 'recorded request')} of ${plural(c.scenarios, 'scenario')}`;
  if (c.source === 'fitted') {
    const outOfSample = c.outOfSample ? `${c.outOfSample.meanAbsPctError.toFixed(1)}% out of sample` : 'none out of sample (one scenario)';
    return `${head}, fitted on ${requests}: ${errors!} in sample, ${outOfSample}`;
  }
  const origin = `${c.source === 'file' ? `from ${file ?? 'the calibration file'}` : 'built in'}${fittedOn(c.fitted)}`;
  return errors ? `${head} (${origin}): on these ${requests}, ${errors}` : `${head} (${origin}; these scenarios recorded no usage to check it on)`;
}
