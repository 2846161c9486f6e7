import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { loadScenario } from '../load.js';
import { parseScenario } from '../scenario.js';
import type { ScenarioFile } from '../schema.js';
import { findImporter } from './index.js';
import { sweAgentTraj } from './swe-agent-traj.js';

const TEXT_ACTIONS =
  'tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj';
const FUNCTION_CALLING =
  'trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj';
const FIXTURES = path.join(REPO_ROOT, 'fixtures/trajectories/swe-agent-format-samples');
const SHARED = path.join(DATA_DIR, 'swe-agent-format-samples');

interface HistoryItem {
  role: string;
  content: string;
  thought?: string;
  action?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_ids?: string[];
  is_demo?: boolean;
}
interface Raw {
  history: HistoryItem[];
  info: { exit_status: string; submission: string };
}

async function convert(file: string): Promise<{ raw: Raw; scenario: ScenarioFile }> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as Raw;
  return { raw, scenario: await sweAgentTraj.convert(raw, file) };
}

type Message = ScenarioFile['messages'][number];
const calls = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
const command = (m: Message | undefined): string | undefined => {
  const call = m?.role === 'assistant' ? m.toolCalls?.[0] : undefined;
  return call && (JSON.parse(call.arguments as string) as { command: string }).command;
};

describe('SWE-agent importer, old text-action run (trimmed real .traj)', () => {
  const file = path.join(FIXTURES, TEXT_ACTIONS);

  it('is the importer loadScenario picks for the file', async () => {
    const { scenario, format } = await loadScenario(file);
    expect(format).toBe('swe-agent-traj');
    expect(scenario.id).toBe('pydicom__pydicom-1458');
    const raw: unknown = JSON.parse(await readFile(file, 'utf8'));
    expect(findImporter(raw, file)).toBe(sweAgentTraj);
    expect(sweAgentTraj.detect({ history: [], info: {} }, file)).toBe(false);
  });

  it('turns each action into a bash call (content: the thought) and the next user message into its result', async () => {
    const { raw, scenario } = await convert(file);
    expect(scenario.messages).toHaveLength(raw.history.length);
    const [, demo, task, first, result] = scenario.messages;
    expect(raw.history[1]!.is_demo).toBe(true);
    expect(demo).toEqual({ role: 'user', content: raw.history[1]!.content });
    expect(task).toEqual({ role: 'user', content: raw.history[2]!.content });
    expect(first).toMatchObject({ role: 'assistant', content: raw.history[3]!.thought!.trim(), toolCalls: [{ id: 'call_0000', name: 'bash' }] });
    expect(command(first)).toBe('create reproduce_bug.py');
    expect(result).toEqual({ role: 'tool', toolCallId: 'call_0000', name: 'bash', content: raw.history[4]!.content });
    // A multi-line edit command stays whole.
    expect(command(scenario.messages[5])).toBe(raw.history[5]!.action!.trim());
    expect(command(scenario.messages[5])).toMatch(/^edit 1:1\n[\s\S]*\nend_of_edit$/);
  });

  it('ends on the submit call, which passes pairing, and takes the model from the run folder', async () => {
    const { scenario } = await convert(file);
    expect(command(scenario.messages.at(-1))).toBe('submit');
    expect(calls(scenario.messages)).toHaveLength(12);
    expect(() => parseScenario(scenario, file)).not.toThrow();
    expect(scenario).toMatchObject({
      ctxbench: 1,
      id: 'pydicom__pydicom-1458',
      title: 'pydicom__pydicom-1458',
      source: { format: 'swe-agent-traj', agent: 'SWE-agent', file: 'pydicom__pydicom-1458.traj', notes: 'exit_status: submitted' },
      model: { name: 'gpt4' },
    });
    expect(scenario.outcome).toBeUndefined();
  });

  it('keeps an action that no user message answers as plain text', async () => {
    const { raw } = await convert(file);
    const history = [...raw.history.slice(0, 4), raw.history[3]!, ...raw.history.slice(4)];
    const { messages } = await sweAgentTraj.convert({ ...raw, history }, file);
    expect(messages[3]).toEqual({ role: 'assistant', content: raw.history[3]!.content, toolCalls: [] });
    expect(messages[4]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_0001' }] });
  });
});

describe('SWE-agent importer, function-calling demonstration (trimmed real .traj)', () => {
  const file = path.join(FIXTURES, FUNCTION_CALLING);

  it('is the importer loadScenario picks for the file', async () => {
    const { scenario, format } = await loadScenario(file);
    expect(format).toBe('swe-agent-traj');
    expect(scenario.id).toBe('marshmallow-code__marshmallow-1867');
  });

  it('keeps tool_calls and answers each with tool_call_ids[0], renaming ids the run reuses', async () => {
    const { raw, scenario } = await convert(file);
    const recorded = raw.history.flatMap((m) => m.tool_calls ?? []);
    expect(calls(scenario.messages).map((c) => [c.id.replace(/-\d+$/, ''), c.name, c.arguments])).toEqual(
      recorded.map((c) => [c.id, c.function.name, c.function.arguments]),
    );
    const reused = 'call_5iDdbOYybq7L19vqXmR0DPaU';
    expect(calls(scenario.messages).filter((c) => c.id.startsWith(reused)).map((c) => c.id)).toEqual([reused, `${reused}-2`, `${reused}-3`, `${reused}-4`]);
    expect(scenario.messages[14]).toMatchObject({ role: 'assistant', toolCalls: [{ id: `${reused}-2` }] });
    expect(scenario.messages[15]).toEqual({ role: 'tool', toolCallId: `${reused}-2`, content: raw.history[15]!.content });
    expect(() => parseScenario(scenario, file)).not.toThrow();
  });

  it('drops the result of submit (the patch the model never saw) and takes the model from replay_config', async () => {
    const { raw, scenario } = await convert(file);
    expect(raw.history.at(-1)!.content.trim().startsWith(raw.info.submission.trim())).toBe(true);
    expect(scenario.messages).toHaveLength(raw.history.length - 1);
    expect(scenario.messages.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_submit', name: 'submit' }] });
    expect(scenario.model).toEqual({ name: 'replay' });
    const asText = await sweAgentTraj.convert({ ...raw, replay_config: JSON.stringify({ agent: { model: { name: 'gpt-4o' } } }) }, file);
    expect(asText.model).toEqual({ name: 'gpt-4o' });
  });

  it('names the file and field when the data is not what it expects', async () => {
    const raw = JSON.parse(await readFile(file, 'utf8')) as Raw;
    delete raw.history[3]!.tool_call_ids;
    await expect(sweAgentTraj.convert(raw, 'x.traj')).rejects.toThrow('x.traj: history[3].tool_call_ids[0]: expected a string');
  });
});

// The full recorded set lives outside the repo; CI has it, a bare checkout may not.
describe.skipIf(!existsSync(SHARED))('SWE-agent importer, every .traj in ../shared/data', () => {
  it.each([TEXT_ACTIONS, FUNCTION_CALLING].map((f) => [path.basename(f), path.join(SHARED, f)]))('%s imports and validates', async (_, file) => {
    const { raw, scenario } = await convert(file);
    expect(findImporter(raw, file)).toBe(sweAgentTraj);
    expect(() => parseScenario(scenario, file)).not.toThrow();
    // One assistant turn per recorded one, every one a call (text actions included).
    const turns = scenario.messages.filter((m) => m.role === 'assistant');
    expect(turns).toHaveLength(raw.history.filter((m) => m.role === 'assistant').length);
    expect(turns.every((m) => m.role === 'assistant' && m.toolCalls?.length === 1)).toBe(true);
    expect((await convert(file)).scenario).toEqual(scenario);
  });

  it('the trimmed fixtures convert exactly as the upstream files (only trajectory[] was cut)', async () => {
    for (const f of [TEXT_ACTIONS, FUNCTION_CALLING]) {
      expect((await convert(path.join(FIXTURES, f))).scenario).toEqual((await convert(path.join(SHARED, f))).scenario);
    }
  });
});
