import { existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { loadScenario } from '../load.js';
import { parseScenario } from '../scenario.js';
import type { ScenarioFile } from '../schema.js';
import { findImporter } from './index.js';
import { miniSweAgent } from './mini-swe-agent.js';
import { safeId } from './runs.js';

const FIXTURE_DIR = path.join(REPO_ROOT, 'fixtures/trajectories/mini-swe-agent-gemini3pro');
const FIXTURE_ID = 'django__django-14155';
const FIXTURE = path.join(FIXTURE_DIR, `trajs/${FIXTURE_ID}/${FIXTURE_ID}.traj.json`);
const SHARED = path.join(DATA_DIR, 'mini-swe-agent-gemini3pro');
const FORMAT_ERROR = 'Please always provide EXACTLY ONE action';
const SUBMIT = 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT';

interface Raw {
  instance_id: string;
  info: { submission: string };
  messages: { role: string; content: string; extra?: { response: { usage: Usage } } }[];
}
interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

async function convert(file: string): Promise<{ raw: Raw; scenario: ScenarioFile }> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as Raw;
  return { raw, scenario: await miniSweAgent.convert(raw, file) };
}

type Message = ScenarioFile['messages'][number];
const assistants = (scenario: ScenarioFile) => scenario.messages.filter((m) => m.role === 'assistant');
/** The bash command of the message's only call. */
const command = (m: Message | undefined): string | undefined => {
  const call = m?.role === 'assistant' ? m.toolCalls?.[0] : undefined;
  return call && (JSON.parse(call.arguments as string) as { command: string }).command;
};

describe('mini-swe-agent importer, trimmed real trajectory', () => {
  let tmp: string | undefined;
  afterEach(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    tmp = undefined;
  });

  it('is the importer loadScenario picks for the file', async () => {
    const { scenario, format } = await loadScenario(FIXTURE);
    expect(format).toBe('mini-swe-agent-1');
    expect(scenario.id).toBe(FIXTURE_ID);
    const raw: unknown = JSON.parse(await readFile(FIXTURE, 'utf8'));
    expect(findImporter(raw, FIXTURE)).toBe(miniSweAgent);
    expect(miniSweAgent.detect({ ...(raw as object), trajectory_format: 'mini-swe-agent-2' }, FIXTURE)).toBe(false);
  });

  it('turns the single bash block into a call and the next user message into its result', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    const [, , first, result] = scenario.messages;
    expect(first).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_0000', name: 'bash' }] });
    expect(raw.messages[2]!.content).toContain(`\`\`\`bash\n${command(first)}\n\`\`\``);
    expect(first!.content).toMatch(/^THOUGHT:/);
    expect(first!.content).not.toContain('```bash');
    expect(result).toEqual({ role: 'tool', toolCallId: 'call_0000', name: 'bash', content: raw.messages[3]!.content });
  });

  it('keeps a format error (two bash blocks) as a plain assistant turn followed by a user message', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    // Assistant turn 2 (messages[6]) wrote two bash blocks.
    expect(scenario.messages[6]).toMatchObject({ role: 'assistant', content: raw.messages[6]!.content, toolCalls: [] });
    expect(scenario.messages[7]).toEqual({ role: 'user', content: raw.messages[7]!.content });
    expect(raw.messages[7]!.content).toMatch(new RegExp(`^${FORMAT_ERROR}`));
  });

  it('drops the submission message and ends on the submit call, which still passes pairing', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    expect(raw.messages.at(-1)!.content).toBe(raw.info.submission);
    expect(scenario.messages).toHaveLength(raw.messages.length - 1);
    expect(command(scenario.messages.at(-1))).toMatch(new RegExp(`^${SUBMIT}`));
    expect(() => parseScenario(scenario, FIXTURE)).not.toThrow();
  });

  // Regression: only a command starting with `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` dropped it; others kept a diff the model never saw.
  it('drops the submission whatever command submitted it: after a cd, or the legacy echo', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    const submit = raw.messages.at(-2)!.content;
    for (const changed of [submit.replace(SUBMIT, `cd /testbed && ${SUBMIT}`), submit.replace(SUBMIT, 'echo MINI_SWE_AGENT_FINAL_OUTPUT')]) {
      expect(changed).not.toBe(submit);
      const messages = raw.messages.map((m, i) => (i === raw.messages.length - 2 ? { ...m, content: changed } : m));
      expect((await miniSweAgent.convert({ ...raw, messages }, FIXTURE)).messages).toHaveLength(scenario.messages.length);
    }
    // A last message that is not the submission stays.
    const messages = raw.messages.map((m, i) => (i === raw.messages.length - 1 ? { ...m, content: 'the tests fail' } : m));
    expect((await miniSweAgent.convert({ ...raw, messages }, FIXTURE)).messages).toHaveLength(raw.messages.length);
  });

  it('keeps every step\'s provider usage as recorded', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    const recorded = raw.messages.filter((m) => m.role === 'assistant').map((m) => m.extra!.response.usage);
    expect(assistants(scenario).map((m) => m.role === 'assistant' && m.usage)).toEqual(
      recorded.map((u) => ({
        promptTokens: u.prompt_tokens,
        completionTokens: u.completion_tokens,
        cachedTokens: u.prompt_tokens_details.cached_tokens,
        reasoningTokens: u.completion_tokens_details.reasoning_tokens,
      })),
    );
  });

  // Regression: the instance id was taken as the id as it was, and the scenario refused for its characters.
  it('makes an id of an instance id with characters an id cannot hold, keeping it as the title', async () => {
    const { raw } = await convert(FIXTURE);
    const scenario = await miniSweAgent.convert({ ...raw, instance_id: 'owner/repo#12708' }, FIXTURE);
    expect([scenario.id, scenario.title]).toEqual(['owner-repo-12708', 'owner/repo#12708']);
    expect(() => parseScenario(scenario, FIXTURE)).not.toThrow();
  });

  it('fills id, model, source and the outcome from results_summary.json', async () => {
    const { scenario } = await convert(FIXTURE);
    expect(scenario).toMatchObject({
      ctxbench: 1,
      id: FIXTURE_ID,
      title: FIXTURE_ID,
      model: { name: 'google/gemini-3-pro-preview' },
      source: { format: 'mini-swe-agent-1', agent: 'mini-swe-agent 1.15.0', file: `${FIXTURE_ID}.traj.json`, license: 'MIT' },
      outcome: 'unresolved',
    });
  });

  it('falls back to logs/<id>/report.json, and leaves the outcome out with no sidecar', async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-mini-'));
    const copy = path.join(tmp, `trajs/${FIXTURE_ID}/${FIXTURE_ID}.traj.json`);
    await mkdir(path.dirname(copy), { recursive: true });
    await copyFile(FIXTURE, copy);
    expect((await convert(copy)).scenario.outcome).toBeUndefined();

    const report = path.join(tmp, `logs/${FIXTURE_ID}/report.json`);
    await mkdir(path.dirname(report), { recursive: true });
    await copyFile(path.join(FIXTURE_DIR, `logs/${FIXTURE_ID}/report.json`), report);
    expect((await convert(copy)).scenario.outcome).toBe('unresolved');
  });

  it.each([
    ['a NUL byte', 'django\u0000evil'],
    ['a path out of logs/', '../../../../etc/passwd'],
    ['a name too long for a folder', 'x'.repeat(5000)],
  ])('regression: an instance_id with %s names no sidecar folder (it crashed the import)', async (_what, id) => {
    const raw = JSON.parse(await readFile(FIXTURE, 'utf8')) as Raw;
    raw.instance_id = id;
    const scenario = await miniSweAgent.convert(raw, path.join(FIXTURE_DIR, `trajs/${FIXTURE_ID}/x.traj.json`));
    expect([scenario.id, scenario.title]).toEqual([safeId(id), id]);
    expect(scenario.outcome).toBeUndefined();
  });

  it('names the file and field when the data is not what it expects', async () => {
    const raw = JSON.parse(await readFile(FIXTURE, 'utf8')) as Raw;
    raw.messages[3]!.content = 42 as unknown as string;
    await expect(miniSweAgent.convert(raw, 'x.traj.json')).rejects.toThrow('x.traj.json: messages[3].content: expected a string');
  });
});

// The full recorded set lives outside the repo; CI has it, a bare checkout may not.
const trajectories = existsSync(SHARED)
  ? readdirSync(path.join(SHARED, 'trajs')).map((id) => path.join(SHARED, 'trajs', id, `${id}.traj.json`))
  : [];

describe.skipIf(trajectories.length === 0)('mini-swe-agent importer, every trajectory in ../shared/data', () => {
  it('has all 18 files', () => expect(trajectories).toHaveLength(18));

  it.each(trajectories.map((file) => [path.basename(file), file]))('%s imports and validates', async (_, file) => {
    const { raw, scenario } = await convert(file);
    expect(() => parseScenario(scenario, file)).not.toThrow();
    const turns = assistants(scenario);
    expect(turns).toHaveLength(raw.messages.filter((m) => m.role === 'assistant').length);
    expect(turns.filter((m) => m.role === 'assistant' && m.usage?.promptTokens !== undefined)).toHaveLength(turns.length);
    // Submission dropped: one message fewer, ending on the submit call.
    expect(scenario.messages).toHaveLength(raw.messages.length - 1);
    expect(command(scenario.messages.at(-1))).toMatch(new RegExp(`^${SUBMIT}`));
    expect((await convert(file)).scenario).toEqual(scenario);
  });

  it('labels outcomes as results_summary.json does', async () => {
    const summary = JSON.parse(await readFile(path.join(SHARED, 'results_summary.json'), 'utf8')) as {
      instances: { instance_id: string; resolved: boolean }[];
    };
    const resolved = new Map(summary.instances.map((i) => [i.instance_id, i.resolved ? 'resolved' : 'unresolved']));
    for (const file of trajectories) {
      const { scenario } = await convert(file);
      expect(scenario.outcome).toBe(resolved.get(scenario.id));
    }
  });

  it('keeps every format-error feedback as a user message after a turn without calls', async () => {
    let found = 0;
    for (const file of trajectories) {
      const { scenario } = await convert(file);
      scenario.messages.forEach((m, i) => {
        if (!m.content?.startsWith(FORMAT_ERROR)) return;
        found++;
        expect(m.role).toBe('user');
        expect(scenario.messages[i - 1]).toMatchObject({ role: 'assistant', toolCalls: [] });
      });
    }
    expect(found).toBe(40);
  });
});
