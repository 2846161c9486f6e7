import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createScheduler } from './schedule.js';

/** Jobs in matrix order: `entries` per scenario. */
const matrix = (scenarios: number, entries: number) =>
  Array.from({ length: scenarios * entries }, (_, index) => ({ index, scenario: Math.floor(index / entries) }));

describe('createScheduler', () => {
  it('hands every job out exactly once, whatever order the workers ask in', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 6 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 80 }), (scenarios, entries, askers) => {
        const jobs = matrix(scenarios, entries);
        const scheduler = createScheduler(jobs);
        const handed: number[] = [];
        for (let i = 0; handed.length < jobs.length; i++) handed.push(scheduler.next(askers[i % askers.length]!)!.index);
        expect(handed.sort((a, b) => a - b)).toEqual(jobs.map((j) => j.index));
        expect(scheduler.next(0)).toBeUndefined();
      }),
    );
  });

  it('keeps a worker on its scenario, gives each worker a scenario of its own, then shares the busiest', () => {
    const scheduler = createScheduler(matrix(2, 3));
    const take = (worker: number) => scheduler.next(worker)!.index;
    expect([take(0), take(1)]).toEqual([0, 3]); // scenario 0 to worker 0, scenario 1 to worker 1
    expect([take(0), take(0)]).toEqual([1, 2]); // worker 0 stays on scenario 0 until it is done
    expect(take(0)).toBe(4); // then helps with scenario 1
    expect(take(1)).toBe(5);
    expect(scheduler.next(0)).toBeUndefined();
  });

  it('helps the scenario with the most jobs left when every scenario has a worker', () => {
    const jobs = [...matrix(2, 2), { index: 4, scenario: 1 }, { index: 5, scenario: 1 }];
    const scheduler = createScheduler(jobs);
    scheduler.next(0); // scenario 0
    scheduler.next(1); // scenario 1
    scheduler.next(0); // scenario 0, now empty
    expect(scheduler.next(0)?.scenario).toBe(1);
  });
});
