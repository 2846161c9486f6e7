import { describe, expect, it } from 'vitest';
import { BUILT_IN_CALIBRATIONS } from './calibration.js';
import { calibrationFileText, parseCalibrationFile } from './calibration-file.js';

const text = (calibrations: unknown[], version: unknown = 1): string => JSON.stringify({ ctxbenchCalibration: version, calibrations });

describe('calibration files', () => {
  it('round-trips what --save-calibration writes', () => {
    const written = calibrationFileText(BUILT_IN_CALIBRATIONS);
    expect(written.startsWith('{\n  "ctxbenchCalibration": 1,\n  "calibrations": [')).toBe(true);
    expect(parseCalibrationFile(written, 'c.json')).toEqual(BUILT_IN_CALIBRATIONS);
    expect(parseCalibrationFile(`\uFEFF${written}`, 'c.json')).toEqual(BUILT_IN_CALIBRATIONS); // saved with a byte order mark
  });

  it('takes a hand-written factor alone: no overhead is 0, what it was fitted on is optional', () => {
    expect(parseCalibrationFile(text([{ model: 'gpt-4o', encoding: 'o200k_base', factor: 1.02 }]), 'c.json')).toEqual([{ model: 'gpt-4o', encoding: 'o200k_base', factor: 1.02, overhead: 0 }]);
  });

  it('refuses what is not a calibration file in one line naming the file and the field', () => {
    const parse = (t: string) => () => parseCalibrationFile(t, 'c.json');
    expect(parse('[')).toThrow(/^c\.json: not valid JSON: /);
    expect(parse(text([], 2))).toThrow(/^c\.json: ctxbenchCalibration: /);
    expect(parse(JSON.stringify({ calibrations: [] }))).toThrow(/^c\.json: ctxbenchCalibration: /);
    expect(parse(text([{ model: 'gpt-4o', encoding: 'p50k', factor: 1 }]))).toThrow(/^c\.json: calibrations\[0\]\.encoding: /);
    expect(parse(text([{ model: 'gpt-4o', encoding: 'o200k_base', factor: 1, overhead: -3 }]))).toThrow(/^c\.json: calibrations\[0\]\.overhead: /);
    expect(parse(text([{ model: 'gpt-4o', encoding: 'o200k_base', factor: 1, extra: true }]))).toThrow(/^c\.json: calibrations\[0\]: /);
    expect(parse(text([{ model: 'gpt-4o', encoding: 'o200k_base', factor: 1 }, { model: 'openrouter/openai/gpt-4o', encoding: 'o200k_base', factor: 2 }]))).toThrow(
      'c.json: calibrations[1]: gpt-4o with o200k_base again (also calibrations[0]): one calibration per model and encoding',
    );
  });
});
