import { describe, expect, it } from 'vitest';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import { columnsOf } from './columns.js';
import { chartOf } from './curves.js';

describe('chartOf', () => {
  it('marks a run that ended in error at the last step it reached when its failed step has no request or event', () => {
    const masking = sampleRuns()[1]!; // 6 agent steps, the last at 4,300 tokens
    const errored = [
      { ...masking, summary: { ...masking.summary, status: 'error' as const, failedStep: 7, failure: 'backend: connection reset' } },
      { ...masking, runId: 'no-step', summary: { ...masking.summary, status: 'error' as const, failedStep: undefined } },
    ];
    const { columnOf } = columnsOf(errored);
    const chart = chartOf('chart-0', 'swe-auth-001', 'title', errored, columnOf, () => 0);
    expect(chart.markers.filter((m) => m.kind === 'failure')).toEqual([
      { kind: 'failure', x: 6, y: 4300, series: 0 },
      { kind: 'failure', x: 6, y: 4300, series: 1 },
    ]);
  });
});
