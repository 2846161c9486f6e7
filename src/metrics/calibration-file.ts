/**
 * Calibration files: stored token calibrations that `bench run --calibration FILE` applies instead of
 * fitting, and `bench run --save-calibration FILE` writes (README "Token calibration"):
 *
 *   { "ctxbenchCalibration": 1,
 *     "calibrations": [ { "model": "claude-3-5-sonnet", "encoding": "o200k_base", "factor": 1.2341,
 *       "overhead": 510, "fitted": { "requests": 25, "scenarios": 25, "inSample": 1.8, "outOfSample": 2.2 } } ] }
 */
import { z } from 'zod';
import { CtxbenchError } from '../core/errors.js';
import { withoutByteOrderMark } from '../core/text-file.js';
import type { FileKind } from '../core/output-file.js';
import { ENCODINGS } from '../core/tokens.js';
import { describeIssue } from '../core/zod-issue.js';
import { calibrationKey, type StoredCalibration } from './calibration.js';

/** The format's version, the value of its `ctxbenchCalibration` field. */
export const CALIBRATION_FILE_FORMAT = 1;

/** A file calibrationFileText wrote: a JSON object whose first field is `ctxbenchCalibration`. */
export const CALIBRATION_FILE: FileKind = {
  name: 'a calibration file',
  matches: (head) => /^\{\s*"ctxbenchCalibration"\s*:/.test(head.toString('utf8')),
};

const percent = z.number().nonnegative();

const calibrationSchema = z.strictObject({
  /** A model name; routing prefixes and dated snapshots resolve as the registry resolves them. */
  model: z.string().min(1),
  encoding: z.enum(ENCODINGS),
  factor: z.number().positive().finite(),
  overhead: z.number().nonnegative().finite().default(0),
  fitted: z
    .strictObject({
      requests: z.number().int().nonnegative(),
      scenarios: z.number().int().nonnegative(),
      inSample: percent,
      outOfSample: percent.optional(),
    })
    .optional(),
});

const fileSchema = z.strictObject({
  ctxbenchCalibration: z.literal(CALIBRATION_FILE_FORMAT),
  calibrations: z.array(calibrationSchema),
});

const invalid = (file: string, problem: string): CtxbenchError => new CtxbenchError('CALIBRATION_INVALID', `${file}: ${problem}`);

/** The calibrations of a file's text; a one-line error naming the file and the field otherwise. */
export function parseCalibrationFile(text: string, file: string): StoredCalibration[] {
  let data: unknown;
  try {
    data = JSON.parse(withoutByteOrderMark(text));
  } catch (error) {
    throw invalid(file, `not valid JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) throw invalid(file, describeIssue(parsed.error));
  const seen = new Map<string, number>();
  parsed.data.calibrations.forEach((c, i) => {
    const key = calibrationKey(c.model, c.encoding);
    const first = seen.get(key);
    if (first !== undefined) throw invalid(file, `calibrations[${i}]: ${key.replace('|', ' with ')} again (also calibrations[${first}]): one calibration per model and encoding`);
    seen.set(key, i);
  });
  return parsed.data.calibrations;
}

/** The text of a calibration file holding `calibrations` (pretty-printed JSON). */
export function calibrationFileText(calibrations: readonly StoredCalibration[]): string {
  return `${JSON.stringify({ ctxbenchCalibration: CALIBRATION_FILE_FORMAT, calibrations }, null, 2)}\n`;
}
