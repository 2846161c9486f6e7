import { describe, expect, it } from 'vitest';
import { gateVerdict, type Comparison } from '../../gate/compare.js';
import { EXIT_CODES } from '../exit-codes.js';
import { CHECK_DOCUMENT, checkDocument, type CheckInputs } from './check.js';

const comparison: Comparison = {
  regressions: [],
  improvements: [{ key: 'masking|s1', metric: 'peakContextPct', baseline: 0.8, candidate: 0.7, delta: -0.1, kind: 'improvement' }],
  missingFromCandidate: [],
  newInCandidate: ['raw|s3'],
  changed: [{ key: 'masking|s2', changes: ['masking.softThreshold 0.7 -> 0.5'] }],
  compared: 2,
  baselineRuns: 3,
  configurationKnown: true,
};

const inputs: CheckInputs = {
  baselineFile: 'b.json',
  baseline: { format: 2, created: '2026-01-01T00:00:00.000Z', version: '0.1.0', command: 'bench run', runs: {} },
  database: 'r.duckdb',
  batchId: 'batch-1',
  candidateRuns: 4,
  tolerancesFile: undefined,
};

const update = 'bench baseline --db r.duckdb -o b.json';
const documentFor = (acceptChanges: boolean) => checkDocument(comparison, { verdict: gateVerdict(comparison, { acceptChanges }), update }, inputs);

describe('checkDocument', () => {
  it('a changed configuration: exit 101, named with its changes, not compared; the findings with their unit', () => {
    const doc = CHECK_DOCUMENT.parse(documentFor(false));
    expect(doc).toMatchObject({ exitCode: EXIT_CODES.incomparable, passed: false, fails: { regressions: false, missingRuns: false, changedConfigurations: true }, tolerances: null });
    expect(doc.configurationChanged).toEqual([{ key: 'masking|s2', changes: ['masking.softThreshold 0.7 -> 0.5'] }]);
    expect(doc.improvements).toEqual([{ key: 'masking|s1', metric: 'peakContextPct', unit: 'fraction', baseline: 0.8, candidate: 0.7, delta: -0.1 }]);
    expect(doc.newInCandidate).toEqual(['raw|s3']);
    expect(doc.verdict).toMatch(/^FAIL: 1 run with a changed configuration \(if intended: pass --accept-changes; then make this batch the baseline: bench baseline --db r\.duckdb -o b\.json\)/);
  });

  it('accepted with --accept-changes: exit 0, passed, and the Accepted line the text ends with', () => {
    const doc = CHECK_DOCUMENT.parse(documentFor(true));
    expect(doc).toMatchObject({ exitCode: EXIT_CODES.ok, passed: true, fails: { changedConfigurations: false } });
    expect(doc.verdict).toBe(`Accepted: 1 run with a changed configuration, not compared; make this batch the baseline: ${update}`);
  });
});
