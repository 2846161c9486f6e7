import { describe, expect, it } from 'vitest';
import type { LoadedScenario } from '../scenarios/load.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { scenarioRelease } from './scenario-release.js';

const loaded = (n: number): LoadedScenario => ({ scenario: scenarioOf(sweScenarioMessages(4, 300, 100), `s${n}`), format: 'ctxbench' });
const chars = (s: LoadedScenario): number => s.scenario.messages.reduce((sum, m) => sum + m.content.length, 0);

describe('scenarioRelease', () => {
  it("clears a scenario once its last job has come back, not before, and one without jobs at once", () => {
    const scenarios = [0, 1, 2].map(loaded);
    const [first, , third] = scenarios;
    const jobs = [{ scenario: 0 }, { scenario: 0 }, { scenario: 2 }];
    const returned = scenarioRelease(scenarios, jobs, () => {});
    expect(scenarios).toEqual([first, undefined, third]); // scenario 1: no job to run (a resumed batch kept its runs)
    returned(jobs[0]!);
    expect(scenarios[0]).toBe(first);
    returned(jobs[2]!);
    expect(scenarios).toEqual([first, undefined, undefined]);
    returned(jobs[1]!);
    expect(scenarios).toEqual([undefined, undefined, undefined]);
  });

  it('asks for a full collection each time the scenarios let go since the last hold the given characters', () => {
    const scenarios = [0, 1, 2, 3, 4].map(loaded);
    const size = chars(scenarios[0]!);
    let collections = 0;
    const returned = scenarioRelease(scenarios, [0, 1, 2, 3, 4].map((scenario) => ({ scenario })), () => collections++, 2 * size);
    returned({ scenario: 0 });
    expect(collections).toBe(0);
    returned({ scenario: 1 });
    expect(collections).toBe(1);
    returned({ scenario: 2 });
    returned({ scenario: 3 });
    expect(collections).toBe(2);
    returned({ scenario: 4 });
    expect(collections).toBe(2);
  });
});
