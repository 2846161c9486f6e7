import { describe, expect, it } from 'vitest';
import { packRun } from '../core/packed-run.js';
import type { RunResult } from '../core/run-records.js';
import { createTokenCounter } from '../core/tokens.js';
import { defaultParams } from '../core/params.js';
import { select } from '../strategies/index.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { runSpill } from './run-spill.js';
import { fullAfter, refusedOpen } from '../../test/helpers/spill.js';

const counter = await createTokenCounter('o200k_base');
const scenario = scenarioOf(sweScenarioMessages(24, 600, 200), 's1');
/** Runs of the given strategies in a window where they act (events) and raw overflows. */
const replays = (names: string): Promise<RunResult[]> =>
  Promise.all(
    select([names]).map(async ({ strategy }) => (await recordedReplay({ scenario, strategy, params: defaultParams(strategy.params), counter, model: 'gpt-4o', window: 4000, batchId: 'b' })).run),
  );

const records = (r: RunResult) => ({ steps: r.steps, events: r.events, probes: r.probes, summary: r.summary, config: r.config });

describe('runSpill', () => {
  it('gives runs that read their steps and events back as they were, each time', async () => {
    const runs = await replays('raw,masking,summarization');
    const keep = runSpill();
    expect(runs.filter((run) => run.events.length > 0).length).toBeGreaterThan(1);
    const spilled = runs.map((run) => keep(packRun(run)));
    spilled.forEach((run, i) => {
      expect(records(run)).toEqual(records(runs[i]!));
      expect(run.steps).toEqual(runs[i]!.steps); // again: read back again
    });
  });

  it('keeps the records in memory when the folder cannot take the file, or from a failed write on', async () => {
    const runs = await replays('raw,masking');
    const none = runSpill(refusedOpen);
    runs.forEach((run) => expect(records(none(packRun(run)))).toEqual(records(run)));

    const full = fullAfter(1);
    const some = runSpill(() => full.file);
    const kept = [...runs, ...runs].map((run) => some(packRun(run)));
    expect(full.writes()).toBe(2);
    kept.forEach((run, i) => expect(records(run)).toEqual(records(runs[i % runs.length]!)));
    full.file.close();
  });
});
