import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { parseScenario } from '../scenario.js';
import type { ScenarioFile } from '../schema.js';
import { findImporter } from './index.js';
import { importFileAll } from '../load.js';
import { tauBench } from './tau-bench.js';

const FILE = 'historical_trajectories/gpt-4o-airline.json';
const FIXTURE = path.join(REPO_ROOT, 'fixtures/trajectories/tau-bench-gpt4o-airline', FILE);
const SHARED = path.join(DATA_DIR, 'tau-bench-gpt4o-airline');

interface RawMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}
interface Run {
  task_id: number;
  trial: number;
  reward: number;
  info: { task: { instruction: string } };
  traj: RawMessage[];
}

async function convertMany(file: string): Promise<{ raw: Run[]; scenarios: ScenarioFile[] }> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as Run[];
  return { raw, scenarios: await tauBench.convertMany!(raw, file) };
}

type Message = ScenarioFile['messages'][number];
const calls = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));

/** The converted messages are the recorded ones, call ids aside (renamed where a run reuses one). */
function expectSameMessages(run: Run, scenario: ScenarioFile): void {
  expect(scenario.messages).toHaveLength(run.traj.length);
  scenario.messages.forEach((m, i) => {
    const r = run.traj[i]!;
    expect(m.role).toBe(r.role);
    expect(m.content).toBe(r.content ?? '');
    if (m.role === 'assistant') {
      expect(m.toolCalls?.map((c) => [c.id.replace(/-\d+$/, ''), c.name, c.arguments])).toEqual(
        (r.tool_calls ?? []).map((c) => [c.id, c.function.name, c.function.arguments]),
      );
    }
    if (m.role === 'tool') expect([m.toolCallId.replace(/-\d+$/, ''), m.name]).toEqual([r.tool_call_id, r.name]);
  });
}

describe('tau-bench importer, trimmed real results file', () => {
  it('is the importer chosen for the file, and gives one scenario per run', async () => {
    const raw: unknown = JSON.parse(await readFile(FIXTURE, 'utf8'));
    expect(findImporter(raw, FIXTURE)).toBe(tauBench);
    const imported = await importFileAll(FIXTURE);
    expect(imported.map((i) => [i.format, i.scenario.id, i.scenario.file])).toEqual([
      ['tau-bench', 'gpt-4o-airline@task-0.trial-0', `${FIXTURE}#0`],
      ['tau-bench', 'gpt-4o-airline@task-38.trial-2', `${FIXTURE}#1`],
      ['tau-bench', 'gpt-4o-airline@task-12.trial-3', `${FIXTURE}#2`],
    ]);
    expect(tauBench.detect([{ task_id: 0, traj: [] }], FIXTURE)).toBe(false);
    expect(tauBench.detect([], FIXTURE)).toBe(false);
  });

  it('keeps every message, with the simulated customer as user turns and the run ending where it ended', async () => {
    const { raw, scenarios } = await convertMany(FIXTURE);
    raw.forEach((run, i) => expectSameMessages(run, scenarios[i]!));
    expect(scenarios[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Thank you so much for your help! ###STOP###' });
    expect(scenarios[1]!.messages.at(-1)).toMatchObject({ role: 'tool', name: 'transfer_to_human_agents' });
    for (const scenario of scenarios) expect(() => parseScenario(scenario, FIXTURE)).not.toThrow();
  });

  it('renames a call id the run reuses, and its result with it', async () => {
    const { scenarios } = await convertMany(FIXTURE);
    const ids = calls(scenarios[0]!.messages).map((c) => c.id);
    expect(ids.slice(0, 4)).toEqual([
      'call_oIHazX6yQrB8hUwl4cRilFKj',
      'call_HGn16KZh9oNCruxsMJ4gYXan',
      'call_HGn16KZh9oNCruxsMJ4gYXan-2',
      'call_oIHazX6yQrB8hUwl4cRilFKj-2',
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(scenarios[0]!.messages[13]).toMatchObject({ role: 'tool', toolCallId: 'call_HGn16KZh9oNCruxsMJ4gYXan-2', name: 'search_onestop_flight' });
  });

  it('reads reward 1 as resolved and 0 as unresolved, the model from the file name, the task as description', async () => {
    const { raw, scenarios } = await convertMany(FIXTURE);
    expect(scenarios.map((s) => s.outcome)).toEqual(['unresolved', 'resolved', 'resolved']);
    expect(scenarios[1]).toMatchObject({
      ctxbench: 1,
      title: 'tau-bench airline task 38, trial 2',
      description: `Simulated customer's instruction: ${raw[1]!.info.task.instruction}`,
      source: { format: 'tau-bench', agent: 'tau-bench tool-calling agent', file: 'gpt-4o-airline.json' },
      model: { name: 'gpt-4o' },
    });
    const partial = await tauBench.convert({ ...raw[0]!, reward: 0.5 }, 'x.json');
    expect(partial.outcome).toBe('reward=0.5');
  });

  it('converts a file with one run, and names the run count when there are several', async () => {
    const { raw } = await convertMany(FIXTURE);
    const [one] = await tauBench.convertMany!([raw[2]], 'x-retail.json');
    expect(await tauBench.convert([raw[2]], 'x-retail.json')).toEqual(one);
    expect(await tauBench.convert(raw[2], 'x-retail.json')).toMatchObject({ id: 'x-retail@task-12.trial-3', model: { name: 'x' } });
    await expect(tauBench.convert(raw, 'x.json')).rejects.toThrow('x.json: holds 3 runs; load it with importFileAll');
  });

  it('names the file, run and field when the data is not what it expects', async () => {
    const { raw } = await convertMany(FIXTURE);
    delete raw[1]!.traj[9]!.tool_call_id;
    await expect(tauBench.convertMany!(raw, 'x.json')).rejects.toThrow('x.json: [1].traj[9].tool_call_id: expected a string');
  });

  // Regression: one run without its reward made the whole list "no known format", skipped in a folder.
  it('is still this format with a broken run among whole ones, and names that run and field', async () => {
    const { raw } = await convertMany(FIXTURE);
    const broken = (change: (run: Record<string, unknown>) => unknown): unknown[] => raw.map((run, i) => (i === 1 ? change({ ...run }) : run));
    const cases: [unknown[], string][] = [
      [broken(({ reward: _, ...run }) => run), 'x.json: [1].reward: missing'],
      [broken(({ task_id: _, ...run }) => run), 'x.json: [1].task_id: missing'],
      [broken((run) => ({ ...run, traj: null })), 'x.json: [1].traj: expected a list of messages'],
      [broken(() => 'crashed'), 'x.json: [1]: expected a tau-bench run {task_id, reward, traj}'],
    ];
    for (const [data, error] of cases) {
      expect(findImporter(data, 'x.json')).toBe(tauBench);
      await expect(tauBench.convertMany!(data, 'x.json')).rejects.toThrow(error);
    }
    expect(tauBench.detect([raw[0], {}, {}], 'x.json')).toBe(false);
  });
});

const results = path.join(SHARED, FILE);
const stats = path.join(SHARED, 'trajectories_stats.derived.csv');

// The full recorded set lives outside the repo; CI has it, a bare checkout may not.
describe.skipIf(!existsSync(results))('tau-bench importer, the whole file in ../shared/data', () => {
  it('imports all 200 runs, each valid, with unique ids', async () => {
    const imported = await importFileAll(results);
    expect(imported).toHaveLength(200);
    expect(new Set(imported.map((i) => i.scenario.id)).size).toBe(200);
    expect(imported.every((i) => i.format === 'tau-bench')).toBe(true);
  });

  it('keeps every message of every run, and counts what trajectories_stats.derived.csv counts', async () => {
    const { raw, scenarios } = await convertMany(results);
    const rows = (await readFile(stats, 'utf8')).trim().split('\n').slice(1).map((line) => line.split(','));
    expect(rows).toHaveLength(200);
    rows.forEach(([index, taskId, trial, messages, assistants, toolResults, , reward]) => {
      const run = raw[Number(index)]!;
      const scenario = scenarios[Number(index)]!;
      expect([run.task_id, run.trial, run.reward]).toEqual([Number(taskId), Number(trial), Number(reward)]);
      expectSameMessages(run, scenario);
      expect(scenario.messages).toHaveLength(Number(messages));
      expect(scenario.messages.filter((m) => m.role === 'assistant')).toHaveLength(Number(assistants));
      expect(scenario.messages.filter((m) => m.role === 'tool')).toHaveLength(Number(toolResults));
      expect(() => parseScenario(scenario, results)).not.toThrow();
    });
  });

  it('labels 84 runs resolved and 116 unresolved, and renames reused call ids in 49 runs', async () => {
    const { scenarios } = await convertMany(results);
    expect(scenarios.filter((s) => s.outcome === 'resolved')).toHaveLength(84);
    expect(scenarios.filter((s) => s.outcome === 'unresolved')).toHaveLength(116);
    expect(scenarios.filter((s) => calls(s.messages).some((c) => /-\d+$/.test(c.id)))).toHaveLength(49);
  });
});
