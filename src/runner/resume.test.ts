import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planBatch } from './resume.js';
import type { RunStatus } from '../core/run-records.js';

const STATUSES: RunStatus[] = ['completed', 'overflow', 'invalid_context', 'stopped', 'error'];
const jobs = ['b/raw/s1', 'b/raw/s2', 'b/masking/s1', 'b/masking/s2'].map((runId) => ({ runId }));

describe('planBatch', () => {
  it('runs everything in a new batch', () => {
    expect(planBatch(jobs, new Map())).toEqual({ toRun: jobs, kept: [], redo: [] });
  });

  it('keeps finished runs whatever their outcome, and redoes backend failures', () => {
    const existing = new Map<string, RunStatus>([
      ['b/raw/s1', 'overflow'],
      ['b/masking/s1', 'error'],
      ['b/masking/s2', 'completed'],
      ['b/other/s9', 'completed'], // another shard's run: not this plan's business
    ]);
    expect(planBatch(jobs, existing)).toEqual({
      toRun: [{ runId: 'b/raw/s2' }, { runId: 'b/masking/s1' }],
      kept: ['b/raw/s1', 'b/masking/s2'],
      redo: ['b/masking/s1'],
    });
  });

  it('accounts for every job exactly once: run or kept', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.constantFrom(...STATUSES), { nil: undefined }), { minLength: jobs.length, maxLength: jobs.length }), (statuses) => {
        const existing = new Map(jobs.flatMap((job, i) => (statuses[i] === undefined ? [] : [[job.runId, statuses[i]!] as const])));
        const plan = planBatch(jobs, existing);
        expect([...plan.toRun.map((j) => j.runId), ...plan.kept].sort()).toEqual(jobs.map((j) => j.runId).sort());
        expect(plan.redo.every((id) => plan.toRun.some((j) => j.runId === id) && existing.get(id) === 'error')).toBe(true);
      }),
    );
  });
});
