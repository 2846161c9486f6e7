/**
 * tau-bench results (`historical_trajectories/<model>-<domain>.json`, or the results file of a run):
 * ONE JSON list of runs `{task_id, trial, reward, info, traj}`, each `traj` an OpenAI chat with
 * `tool_calls` ids whose user turns come from the LLM-simulated customer. One scenario per run.
 */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile } from '../schema.js';
import { isRecord } from './json.js';
import { readOpenAiMessage, uniqueCallIds } from './openai.js';
import { fileStem, mostly, onlyRun, runId } from './runs.js';
import type { Importer } from './types.js';

const FORMAT = 'tau-bench';
/** The domains tau-bench names its files after ("gpt-4o-airline.json"); what is left is the model. */
const DOMAIN = /-(airline|retail)$/;

export const tauBench: Importer = {
  format: FORMAT,
  description: 'tau-bench results (a JSON list of runs {task_id, trial, reward, traj}): one scenario per run; reward 1 = resolved',
  detect: (data) => runsOf(data) !== undefined,
  convert: async (data, file) => {
    const runs = requireRuns(data, file);
    return convertRun(onlyRun(runs, file), Array.isArray(data) ? '[0].' : '', file);
  },
  convertMany: async (data, file) => {
    const runs = requireRuns(data, file);
    return runs.map((run, i) => convertRun(run, Array.isArray(data) ? `[${i}].` : '', file));
  },
};

function isRun(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && Array.isArray(value.traj) && 'task_id' in value && 'reward' in value;
}

/** The list of runs (most of them whole; convertRun names what a broken one lacks), or one run on its own. */
function runsOf(data: unknown): unknown[] | undefined {
  if (isRun(data)) return [data];
  return mostly(data, isRun) ? data : undefined;
}

function requireRuns(data: unknown, file: string): unknown[] {
  const runs = runsOf(data);
  if (!runs) throw scenarioInvalid(file, 'expected a list of tau-bench runs ({task_id, reward, traj})');
  return runs;
}

function convertRun(run: unknown, where: string, file: string): ScenarioFile {
  // Only a list can hold a run that is not an object: `where` is then "[i].".
  if (!isRecord(run)) throw scenarioInvalid(file, `${where.slice(0, -1)}: expected a tau-bench run {task_id, reward, traj}`);
  const { traj } = run;
  if (!Array.isArray(traj)) throw scenarioInvalid(file, `${where}traj: expected a list of messages`);
  for (const field of ['task_id', 'reward']) if (!(field in run)) throw scenarioInvalid(file, `${where}${field}: missing`);
  const stem = fileStem(file);
  const key = `task-${String(run.task_id)}${run.trial === undefined ? '' : `.trial-${String(run.trial)}`}`;
  const info = isRecord(run.info) ? run.info : {};
  const task = isRecord(info.task) ? info.task : {};
  const domain = DOMAIN.exec(stem)?.[1];
  return {
    ctxbench: 1,
    id: runId(file, key),
    title: `tau-bench${domain ? ` ${domain}` : ''} task ${String(run.task_id)}${run.trial === undefined ? '' : `, trial ${String(run.trial)}`}`,
    description: typeof task.instruction === 'string' ? `Simulated customer's instruction: ${task.instruction}` : undefined,
    source: { format: FORMAT, agent: 'tau-bench tool-calling agent', file: path.basename(file) },
    // The file does not name the model; tau-bench names the file after it.
    model: { name: stem.replace(DOMAIN, '') },
    outcome: outcomeOf(run.reward),
    messages: uniqueCallIds(traj.map((m, i) => readOpenAiMessage(m, file, `${where}traj[${i}]`))),
  };
}

/**
 * tau-bench's reward is 1 when the final database state and outputs match the task's ground truth,
 * else 0: read as resolved / unresolved like the SWE-bench formats. Any other value is kept as "reward=<r>".
 */
function outcomeOf(reward: unknown): string | undefined {
  if (typeof reward !== 'number') return undefined;
  if (reward === 1) return 'resolved';
  if (reward === 0) return 'unresolved';
  return `reward=${reward}`;
}
