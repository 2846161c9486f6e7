import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/messages.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { openParcel, parcelScenario } from './scenario-parcel.js';
import { holdScenarios } from './scenario-release.js';
import { fullAfter, refusedOpen } from '../../test/helpers/spill.js';

const loaded = (n: number): LoadedScenario => ({ scenario: scenarioOf(sweScenarioMessages(4, 300, 100), `s${n}`), format: 'ctxbench' });
const length = (m: Message): number => m.content.length;
const spillDirs = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('ctxbench-scenarios-'));

describe('holdScenarios', () => {
  it('given the array, clears it before the first run; each scenario with a job is read back as it was, with its counts', () => {
    const given = [0, 1, 2].map(loaded);
    const scenarios: (LoadedScenario | undefined)[] = [...given];
    const held = holdScenarios(scenarios, [{ scenario: 0 }, { scenario: 2 }, { scenario: 2 }], length, { release: true, collect: () => {} });
    expect(scenarios).toEqual([undefined, undefined, undefined]);
    for (const index of [0, 2, 2]) {
      const parcel = held.parcel(index);
      expect(openParcel(parcel.bytes)).toEqual(given[index]);
      expect([...parcel.counts]).toEqual(given[index]!.scenario.messages.map(length));
    }
    expect(() => held.parcel(1)).toThrow(); // no job to run (a resumed batch kept its runs): not kept
    held.close();
  });

  it("lets a scenario go once its last job has come back, not before", () => {
    const held = holdScenarios([0, 1].map(loaded), [{ scenario: 0 }, { scenario: 0 }, { scenario: 1 }], length, { release: true, collect: () => {} });
    held.returned({ scenario: 0 });
    expect(held.parcel(0).counts.length).toBeGreaterThan(0);
    held.returned({ scenario: 1 });
    expect(() => held.parcel(1)).toThrow();
    held.returned({ scenario: 0 });
    expect(() => held.parcel(0)).toThrow();
    held.close();
  });

  it('asks for a full collection each time the given bytes of parcels are spilled, and once they all are', () => {
    const size = parcelScenario(loaded(9), length).bytes.byteLength;
    let collections = 0;
    const held = holdScenarios([0, 1, 2, 3, 4].map(loaded), [0, 1, 2, 3, 4].map((scenario) => ({ scenario })), length, { release: true, collect: () => collections++, every: 2 * size });
    expect(collections).toBe(2 + 1);
    held.close();
  });

  it('leaves no file behind, closed or not yet', () => {
    const before = spillDirs();
    const held = holdScenarios([loaded(0)], [{ scenario: 0 }], length, { release: true, collect: () => {} });
    if (process.platform !== 'win32') expect(spillDirs()).toEqual(before); // unlinked while open
    expect(openParcel(held.parcel(0).bytes).scenario.id).toBe('s0');
    held.close();
    expect(spillDirs()).toEqual(before);
    expect(() => held.parcel(0)).toThrow();
  });

  it('keeps the parcels in memory where the temporary folder cannot take the file, from the first or from a failed write on', () => {
    const given = [0, 1, 2].map(loaded);
    const jobs = [0, 1, 2].map((scenario) => ({ scenario }));
    const none = holdScenarios([...given], jobs, length, { release: true, collect: () => {}, open: refusedOpen });
    given.forEach((scenario, index) => expect(openParcel(none.parcel(index).bytes)).toEqual(scenario));
    none.close();

    const full = fullAfter(1);
    const some = holdScenarios([...given], jobs, length, { release: true, collect: () => {}, open: () => full.file });
    expect(full.writes()).toBe(2); // the first written, the second refused, the third not tried
    given.forEach((scenario, index) => expect(openParcel(some.parcel(index).bytes)).toEqual(scenario));
    some.close();
  });

  it('fails on an error that is not the file system refusing', () => {
    expect(() => holdScenarios([loaded(0)], [{ scenario: 0 }], length, { release: true, collect: () => {}, open: () => { throw new TypeError('a bug'); } })).toThrow('a bug');
  });

  it('without the array, leaves it alone and parcels a scenario at each send', () => {
    const given = [0, 1].map(loaded);
    const scenarios = [...given];
    let collections = 0;
    const held = holdScenarios(scenarios, [{ scenario: 0 }, { scenario: 1 }], length, { release: false, collect: () => collections++ });
    held.returned({ scenario: 0 });
    expect(scenarios).toEqual(given);
    expect(collections).toBe(0);
    expect(openParcel(held.parcel(0).bytes)).toEqual(given[0]);
  });

  it('names the file of a scenario whose messages the counter cannot read, before any run, and leaves no file behind', () => {
    const before = spillDirs();
    const scenario = loaded(0);
    const fails = (): number => {
      throw new Error('not a string');
    };
    expect(() => holdScenarios([scenario], [{ scenario: 0 }], fails, { release: true, collect: () => {} })).toThrow(`${scenario.scenario.file}: cannot count its messages: not a string`);
    expect(spillDirs()).toEqual(before);
  });
});
