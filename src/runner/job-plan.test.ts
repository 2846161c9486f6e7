import { describe, expect, it } from 'vitest';
import { CtxbenchError } from '../core/errors.js';
import { parseScenario } from '../scenarios/scenario.js';
import { select } from '../strategies/index.js';
import { defaultParams } from '../core/params.js';
import { sweScenarioMessages } from '../../test/helpers/history.js';
import { planJobs } from './job-plan.js';

const loaded = (id: string, steps: number, file = `${id}.json`, model: { name: string; contextWindow?: number } = { name: 'gpt-4o' }) => ({
  scenario: parseScenario({ ctxbench: 1, id, model, messages: sweScenarioMessages(steps, 40) }, file),
  format: 'ctxbench',
});
const entries = select(['raw'], ['goose']).map((s) => ({ strategy: s.strategy, preset: s.preset?.name, params: defaultParams(s.strategy.params) }));
const settings = { encoding: 'o200k_base' } as const;

describe('planJobs', () => {
  it('makes one job per scenario and entry in matrix order, keyed like its run id, weighted by agent steps', () => {
    const { jobs, warnings } = planJobs([loaded('s1', 2), loaded('s2', 5)], entries, settings);
    expect(jobs.map((j) => [j.index, j.key, j.label, j.scenario, j.entry, j.scenarioId, j.weight])).toEqual([
      [0, 'raw/s1', 'raw', 0, 0, 's1', 3],
      [1, 'goose/s1', 'goose', 0, 1, 's1', 3],
      [2, 'raw/s2', 'raw', 1, 0, 's2', 6],
      [3, 'goose/s2', 'goose', 1, 1, 's2', 6],
    ]);
    expect(warnings).toEqual([]);
  });

  it('names a sweep setting in the label and key', () => {
    const swept = entries.slice(0, 1).map((e) => ({ ...e, variant: 'softThreshold=0.6' }));
    expect(planJobs([loaded('s1', 2)], swept, settings).jobs.map((j) => j.key)).toEqual(['raw[softThreshold=0.6]/s1']);
  });

  it('gives each job its window and its model calibration', () => {
    const scenarios = [loaded('s1', 2), loaded('s2', 2, 's2.json', { name: 'claude-3-5-sonnet', contextWindow: 5000 })];
    const calibration = { factor: 1.25, overhead: 300 };
    const own = planJobs(scenarios, entries, { ...settings, calibration: new Map([['gpt-4o|o200k_base', calibration]]) }).jobs;
    expect(own.map((j) => [j.model, j.window, j.calibration])).toEqual([
      ['gpt-4o', 128000, calibration],
      ['gpt-4o', 128000, calibration],
      ['claude-3-5-sonnet', 5000, undefined],
      ['claude-3-5-sonnet', 5000, undefined],
    ]);
    expect(planJobs(scenarios, entries, { ...settings, windowOverride: 4096 }).jobs.map((j) => j.window)).toEqual([4096, 4096, 4096, 4096]);
  });

  it('gives each job its scenario content digest: the same wherever the file is, another for other content', () => {
    const digests = (scenarios: ReturnType<typeof loaded>[]) => planJobs(scenarios, entries, settings).jobs.map((j) => j.scenarioDigest);
    const [a, b] = digests([loaded('s1', 2, 'here/s1.json'), loaded('s2', 2)]).filter((_, i) => i % 2 === 0);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(digests([loaded('s1', 2, 'elsewhere/s1.yaml')])).toEqual([a, a]);
    expect(digests([loaded('s1', 3)])[0]).not.toBe(a);
    expect(b).not.toBe(a);
  });

  it('warns once per model whose window is a guess', () => {
    const guess = { name: 'no-such-model' };
    const { warnings } = planJobs([loaded('s1', 2, 'a.json', guess), loaded('s2', 2, 'b.json', guess)], entries, settings);
    expect(warnings).toEqual([expect.stringMatching(/^a\.json: unknown model "no-such-model": using the smallest known window \(\d+ tokens\); set model.contextWindow or --window$/)]);
  });

  it('refuses two scenarios with one id, naming both files', () => {
    const run = () => planJobs([loaded('s1', 2, 'a/s1.json'), loaded('s1', 3, 'b/s1.yaml')], entries, settings);
    expect(run).toThrow(CtxbenchError);
    expect(run).toThrow('b/s1.yaml: scenario id s1 is also the id of a scenario in a/s1.json; ids name the runs, so they must be unique');
  });
});
