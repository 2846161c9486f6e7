import { describe, expect, it } from 'vitest';
import type { RunResult } from '../core/run-records.js';
import { sampleRuns } from '../../test/helpers/report-fixtures.js';
import { columnStyle, scenarioGroupsOf } from './columns.js';
import { RECORDED_COLOR } from './curves.js';

/** One run per [scenario id, file]. */
const runsFrom = (files: readonly (readonly [string, string])[]): RunResult[] => {
  const template = sampleRuns()[0]!;
  return files.map(([scenarioId, scenarioFile]) => ({ ...template, config: { ...template.config, scenarioId, scenarioFile } }));
};
const groupsOf = (files: readonly (readonly [string, string])[]): string[] => {
  const runs = runsFrom(files);
  return runs.map(scenarioGroupsOf(runs));
};

describe('scenarioGroupsOf', () => {
  it('keeps the bundled suite: one group per agent, and synthetic', () => {
    expect(
      groupsOf([
        ['a-1', 'scenarios/mini-swe-agent-gemini3pro/a-1.json'],
        ['b-2', 'scenarios/openhands-codeact-sonnet35/b-2.json'],
        ['s-3', 'scenarios/synthetic/s-3.json'],
      ]),
    ).toEqual(['mini-swe-agent-gemini3pro', 'openhands-codeact-sonnet35', 'synthetic']);
    // With a scenario from elsewhere (another disk, the working folder): each the folder it came from.
    expect(groupsOf([['s-3', '/work/scenarios/synthetic/s-3.json'], ['h', '/tmp/run-x/hostile.json']])).toEqual(['synthetic', 'run-x']);
    expect(groupsOf([['s-3', 'scenarios/synthetic/s-3.json'], ['h', 'hostile.json']])).toEqual(['synthetic', '.']);
    // The suite and a file that share only /tmp (a clone there): the folders' own names, not /tmp's children.
    expect(
      groupsOf([
        ['a-1', '/tmp/ci/repo/scenarios/mini-swe-agent-gemini3pro/a-1.json'],
        ['s-3', '/tmp/ci/repo/scenarios/synthetic/s-3.json'],
        ['h', '/tmp/ctxbench-report-x/hostile.json'],
      ]),
    ).toEqual(['mini-swe-agent-gemini3pro', 'synthetic', 'ctxbench-report-x']);
  });

  it('groups a dataset of one folder per task by the folder its tasks are in, not by task; two such folders of one name by their parents', () => {
    const root = '/data/trajectories';
    expect(
      groupsOf([
        ['django-1', `${root}/mini-swe-agent/trajs/django-1/django-1.traj.json`],
        ['django-2', `${root}/mini-swe-agent/trajs/django-2/django-2.traj.json`],
        ['astropy-3', `${root}/openhands/llm_completions/astropy-3/litellm_proxy__claude-1733339462.43.json`],
        ['astropy-4', `${root}/openhands/llm_completions/astropy-4/litellm_proxy__claude-1733343863.36.json`],
        ['flask-5', `${root}/mini-swe-agent-2/trajs/flask-5/flask-5.traj.json`],
        ['airline@0', `${root}/tau-bench/historical_trajectories/gpt-4o-airline.json#0`],
      ]),
    ).toEqual(['mini-swe-agent/trajs', 'mini-swe-agent/trajs', 'llm_completions', 'llm_completions', 'mini-swe-agent-2/trajs', 'historical_trajectories']);
    expect(groupsOf([['d-1', 'trajs/d-1/d-1.traj.json'], ['d-2', 'trajs/d-2/d-2.traj.json']])).toEqual(['trajs', 'trajs']);
    // The suite and a folder of logs under one home folder: never merged into the home folder's children.
    expect(groupsOf([['s-3', '/home/u/ctxbench/scenarios/synthetic/s-3.json'], ['x', '/home/u/logs/extra/x.json']])).toEqual(['synthetic', 'extra']);
  });
});

describe('columnStyle', () => {
  it('gives no configuration a colour near the recorded usage grey, nor two the same style within 80', () => {
    const rgb = (hex: string): number[] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const distance = (a: string, b: string): number => Math.hypot(...rgb(a).map((v, i) => v - rgb(b)[i]!));
    const styles = Array.from({ length: 80 }, (_, n) => columnStyle(n));
    for (const { color } of styles.slice(0, 16)) expect(distance(color, RECORDED_COLOR), color).toBeGreaterThan(60);
    expect(new Set(styles.map((s) => `${s.color}|${s.dash.join(',')}`)).size).toBe(80);
  });
});
