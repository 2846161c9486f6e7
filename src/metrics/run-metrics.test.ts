import { describe, expect, it } from 'vitest';
import type { RunResult } from '../core/run-records.js';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import {
  BETTER,
  COMPARED_METRICS,
  DEFAULT_TOLERANCES,
  METRIC_FIELDS,
  metricValue,
  NULLABLE_METRICS,
  NUMERIC_METRICS,
  runMetrics,
  toleranceText,
} from './run-metrics.js';

const [run] = sampleRuns() as [RunResult];

describe('the per-run metrics', () => {
  it('keep the baseline file’s fields and the compared metrics in their orders', () => {
    expect(METRIC_FIELDS).toEqual([
      'status', 'steps', 'inputTokens', 'outputTokens', 'overheadTokens', 'cachedInputTokens', 'peakContextPct',
      'probesPassed', 'probesTotal', 'referencePresent', 'referenceTotal', 'rereads', 'rereadInputTokens', 'costUsd',
    ]);
    expect(COMPARED_METRICS).toEqual([
      'status', 'steps', 'inputTokens', 'outputTokens', 'overheadTokens', 'cachedShare', 'peakContextPct',
      'probesPassed', 'referenceRecall', 'rereads', 'rereadInputTokens', 'costUsd',
    ]);
    expect(NUMERIC_METRICS).toEqual(COMPARED_METRICS.slice(1));
  });

  it('keep bench check’s directions and default tolerances', () => {
    expect(BETTER).toEqual({
      steps: 'higher',
      inputTokens: 'lower',
      outputTokens: 'lower',
      overheadTokens: 'lower',
      cachedShare: 'higher',
      peakContextPct: 'lower',
      probesPassed: 'higher',
      referenceRecall: 'higher',
      rereads: 'lower',
      rereadInputTokens: 'lower',
      costUsd: 'lower',
    });
    expect(Object.fromEntries(NUMERIC_METRICS.map((m) => [m, toleranceText(DEFAULT_TOLERANCES[m])]))).toEqual({
      steps: 'abs:0',
      inputTokens: 'rel:2%',
      outputTokens: 'rel:2%',
      overheadTokens: 'rel:2%',
      cachedShare: 'abs:0.01',
      peakContextPct: 'abs:0.02',
      probesPassed: 'abs:0',
      referenceRecall: 'abs:0.005',
      rereads: 'abs:0',
      rereadInputTokens: 'rel:2%',
      costUsd: 'rel:2%',
    });
  });

  it('read a run in file order, null exactly where a run may have no value', () => {
    const m = runMetrics(run);
    expect(Object.keys(m)).toEqual(METRIC_FIELDS);
    expect(m).toMatchObject({ status: 'completed', probesPassed: 2, probesTotal: 2, referencePresent: 10, referenceTotal: 10 });
    expect(m.peakContextPct).toBe(run.summary.peakContextPct);
    const bare = runMetrics({ ...run, summary: { ...run.summary, costUsd: undefined, referenceRecall: undefined, cachedInputTokens: undefined } });
    expect(METRIC_FIELDS.filter((f) => bare[f] === null)).toEqual([...NULLABLE_METRICS]);
  });

  it('derive reference recall from its parts, none without references', () => {
    const m = runMetrics(run);
    expect(metricValue({ ...m, referencePresent: 3, referenceTotal: 4 }, 'referenceRecall')).toBe(0.75);
    expect(metricValue({ ...m, referencePresent: 0, referenceTotal: 0 }, 'referenceRecall')).toBeNull();
    expect(metricValue({ ...m, referencePresent: null, referenceTotal: null }, 'referenceRecall')).toBeNull();
    expect(metricValue(m, 'inputTokens')).toBe(run.summary.inputTokens);
  });

  it('compare the cached share of input, not the cached token count, none when either is unknown', () => {
    const m = runMetrics(run);
    // Fewer input tokens with the same share cached: the count fell, the share did not.
    expect(metricValue({ ...m, cachedInputTokens: 600, inputTokens: 1000 }, 'cachedShare')).toBe(0.6);
    expect(metricValue({ ...m, cachedInputTokens: 300, inputTokens: 500 }, 'cachedShare')).toBe(0.6);
    expect(metricValue({ ...m, cachedInputTokens: null }, 'cachedShare')).toBeNull();
    expect(metricValue({ ...m, cachedInputTokens: 0, inputTokens: 0 }, 'cachedShare')).toBeNull();
  });
});
