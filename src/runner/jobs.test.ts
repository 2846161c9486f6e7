import { describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import { parseScenario } from '../scenarios/scenario.js';
import { select } from '../strategies/index.js';
import { defaultParams } from '../core/params.js';
import { sweScenarioMessages } from '../../test/helpers/history.js';
import { matrixJobs } from './jobs.js';

const loaded = (id: string, steps: number, file = `${id}.json`) => ({
  scenario: parseScenario({ ctxbench: 1, id, model: { name: 'gpt-4o' }, messages: sweScenarioMessages(steps, 40) }, file),
  format: 'ctxbench',
});
const entries = select(['raw'], ['goose']).map((s) => ({ strategy: s.strategy, preset: s.preset?.name, params: defaultParams(s.strategy.params) }));

describe('matrixJobs', () => {
  it('makes one job per scenario and entry, keyed like its run id, weighted by agent steps', () => {
    const jobs = matrixJobs([loaded('s1', 2), loaded('s2', 5)], entries);
    expect(jobs.map((j) => [j.key, j.label, j.weight])).toEqual([
      ['raw/s1', 'raw', 3],
      ['goose/s1', 'goose', 3],
      ['raw/s2', 'raw', 6],
      ['goose/s2', 'goose', 6],
    ]);
  });

  it('refuses two scenarios with one id, naming both files', () => {
    const run = () => matrixJobs([loaded('s1', 2, 'a/s1.json'), loaded('s1', 3, 'b/s1.yaml')], entries);
    expect(run).toThrow(CtxbenchError);
    expect(run).toThrow('b/s1.yaml: scenario id s1 is also the id of a scenario in a/s1.json; ids name the runs, so they must be unique');
  });
});
