import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { checkScenarioIds } from '../../runner/job-plan.js';
import { importFiles, loadScenario, loadScenarioFiles, readFound } from '../load.js';
import { parseScenario } from '../scenario.js';
import type { ScenarioFile } from '../schema.js';
import { findImporter } from './index.js';
import { openhandsLitellm } from './openhands-litellm.js';

const FIXTURE_ID = 'astropy__astropy-12907';
const INSTANCE = path.join(REPO_ROOT, 'fixtures/trajectories/openhands-codeact-sonnet35-swebench-verified/llm_completions', FIXTURE_ID);
/** The instance's last call: the whole trajectory. */
const FIXTURE = path.join(INSTANCE, 'litellm_proxy__claude-3-5-sonnet-20241022-1733339462.430701.json');
/** Every call file of the instance, in time order (their names end in the call's time). */
const CALL_FILES = readdirSync(INSTANCE).sort().map((name) => path.join(INSTANCE, name));
/** The prompt tokens each of the ten calls recorded, upstream (fixtures SOURCE.md). */
const RECORDED_PROMPTS = [2154, 13902, 14300, 14571, 18748, 19342, 19614, 20054, 20369, 20737];
const SHARED = path.join(DATA_DIR, 'openhands-codeact-sonnet35-swebench-verified');

interface RawMessage {
  role: string;
  content?: { type: string; text: string }[] | string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}
interface Raw {
  messages: RawMessage[];
  response: { model: string; choices: { message: RawMessage }[]; usage: { prompt_tokens: number; completion_tokens: number } };
}

async function convert(file: string): Promise<{ raw: Raw; scenario: ScenarioFile }> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as Raw;
  return { raw, scenario: await openhandsLitellm.convert(raw, file) };
}

/** The converted calls must be the recorded ones, id for id. */
function expectSameCalls(raw: Raw, scenario: ScenarioFile): void {
  const recorded = [...raw.messages, raw.response.choices[0]!.message].flatMap((m) => m.tool_calls ?? []);
  const converted = scenario.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
  expect(converted).toEqual(recorded.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })));
}

describe('OpenHands litellm importer, trimmed real completion log', () => {
  it('is the importer loadScenario picks for the file', async () => {
    const { scenario, format } = await loadScenario(FIXTURE);
    expect(format).toBe('openhands-litellm');
    expect(scenario.id).toBe(FIXTURE_ID);
    const raw: unknown = JSON.parse(await readFile(FIXTURE, 'utf8'));
    expect(findImporter(raw, FIXTURE)).toBe(openhandsLitellm);
    expect(openhandsLitellm.detect({ messages: [] }, FIXTURE)).toBe(false);
  });

  it('appends the response as the final assistant turn, with the only recorded usage', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    expect(scenario.messages).toHaveLength(raw.messages.length + 1);
    const final = raw.response.choices[0]!.message;
    expect(scenario.messages.at(-1)).toEqual({
      role: 'assistant',
      content: final.content,
      toolCalls: [{ id: 'toolu_01BCE8FnacjDqjWzRKLtnhwu', name: 'finish', arguments: '{}' }],
      usage: { promptTokens: 20737, completionTokens: 446, cachedTokens: 19610 },
    });
    const withUsage = scenario.messages.filter((m) => m.role === 'assistant' && m.usage);
    expect(withUsage).toHaveLength(1);
  });

  it('flattens content parts, drops cache_control, and keeps tool call ids and names', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    expect(scenario.messages[0]).toEqual({ role: 'system', content: (raw.messages[0]!.content as { text: string }[])[0]!.text });
    const tool = raw.messages.findIndex((m) => m.role === 'tool' && 'cache_control' in m);
    expect(scenario.messages[tool]).toEqual({
      role: 'tool',
      toolCallId: raw.messages[tool]!.tool_call_id,
      name: 'str_replace_editor',
      content: (raw.messages[tool]!.content as { text: string }[])[0]!.text,
    });
    expectSameCalls(raw, scenario);
    expect(() => parseScenario(scenario, FIXTURE)).not.toThrow();
  });

  it('reads absent content as empty and keeps the "please continue" nudge as a user message', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    const empty = raw.messages.findIndex((m) => m.role === 'assistant' && m.content === undefined);
    expect(scenario.messages[empty]).toMatchObject({ role: 'assistant', content: '' });
    expect(scenario.messages.at(-2)).toMatchObject({ role: 'user', content: expect.stringMatching(/^Please continue working on the task/) });
  });

  it('takes the id from the instance folder, the model from the response and the outcome from labels.derived.json', async () => {
    const { scenario } = await convert(FIXTURE);
    expect(scenario).toMatchObject({
      ctxbench: 1,
      id: FIXTURE_ID,
      title: FIXTURE_ID,
      model: { name: 'litellm_proxy/claude-3-5-sonnet-20241022' },
      source: { format: 'openhands-litellm', agent: 'OpenHands', file: path.basename(FIXTURE) },
      outcome: 'resolved',
    });
  });

  it('carries the tool definitions litellm sent with every call (kwargs.tools)', async () => {
    const { raw, scenario } = await convert(FIXTURE);
    const sent = (raw as unknown as { kwargs: { tools: { function: { name: string; description?: string; parameters?: object } }[] } }).kwargs.tools;
    expect(scenario.tools?.map((t) => t.name)).toEqual(['execute_bash', 'finish', 'str_replace_editor']);
    expect(scenario.tools).toEqual(sent.map(({ function: f }) => ({ name: f.name, description: f.description, ...(f.parameters ? { parameters: f.parameters } : {}) })));
    expect(parseScenario(scenario, FIXTURE).tools).toEqual(scenario.tools);
  });

  it('names the file and field when the data is not what it expects', async () => {
    const raw = JSON.parse(await readFile(FIXTURE, 'utf8')) as Raw;
    delete raw.messages[3]!.tool_call_id;
    await expect(openhandsLitellm.convert(raw, 'x.json')).rejects.toThrow('x.json: messages[3].tool_call_id: expected a string');
  });
});

describe('OpenHands litellm importer, an instance folder of call files (importFiles)', () => {
  let tmp: string | undefined;
  afterEach(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    tmp = undefined;
  });

  it('regression: the call files of one instance are one scenario, not ten with the same id', async () => {
    expect(CALL_FILES).toHaveLength(10);
    const loaded = await loadScenarioFiles(CALL_FILES);
    expect(loaded.map((l) => [l.scenario.id, l.format, l.scenario.file])).toEqual([[FIXTURE_ID, 'openhands-litellm', INSTANCE]]);
    expect(() => checkScenarioIds(loaded)).not.toThrow();
    // Each file alone is still a scenario (of its call), as `bench scenarios validate` reads it.
    expect((await loadScenario(CALL_FILES[0]!)).scenario.messages).toHaveLength(3);
  });

  it("is the last call's conversation with every call's recorded prompt tokens at the turn it produced", async () => {
    const { data, scenario } = (await importFiles(CALL_FILES))[0]!;
    const last = (await convert(FIXTURE)).scenario;
    expect(scenario.messages).toHaveLength(last.messages.length);
    const usage = scenario.messages.flatMap((m, i) => (m.role === 'assistant' && m.usage ? [[i, m.usage.promptTokens]] : []));
    // Call k (from 1) sent 2k messages (system, task, k - 1 assistant/tool pairs), so its answer is message 2k.
    expect(usage).toEqual(RECORDED_PROMPTS.map((tokens, i) => [2 * (i + 1), tokens]));
    expect(data.messages.map((m) => ({ ...m, usage: undefined }))).toEqual(last.messages.map((m) => ({ ...m, usage: undefined })));
    expect(scenario.messages[2]).toMatchObject({ usage: { promptTokens: 2154, completionTokens: 118, cachedTokens: 1348 } });
    expect(data).toMatchObject({ id: FIXTURE_ID, model: { name: 'litellm_proxy/claude-3-5-sonnet-20241022' }, outcome: 'resolved', tools: last.tools });
    expect(data.source?.notes).toBe('10 call files joined: the recorded usage of 10 requests at the steps they were made');
  });

  it('gives the same scenario whatever order the files come in', async () => {
    const forward = await importFiles(CALL_FILES);
    const backward = await importFiles([...CALL_FILES].reverse());
    expect(backward[0]!.data).toEqual(forward[0]!.data);
  });

  /** Copies of the last `count` call files into `folder` under tmp, and the raw call `from` with `change` made, `hours` earlier. */
  async function callFolder(folder: string, count: number, from: number, change: (raw: Raw) => void): Promise<{ files: string[]; early: string }> {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-calls-'));
    await mkdir(path.join(tmp, folder));
    const files = [];
    for (const file of CALL_FILES.slice(-count)) {
      const copy = path.join(tmp, folder, path.basename(file));
      await writeFile(copy, await readFile(file, 'utf8'));
      files.push(copy);
    }
    const raw = JSON.parse(await readFile(CALL_FILES[from]!, 'utf8')) as Raw & { timestamp: number };
    change(raw);
    raw.timestamp -= 3600;
    const early = path.join(tmp, folder, 'litellm_proxy__claude-3-5-sonnet-20241022-1733335803.0.json');
    await writeFile(early, JSON.stringify(raw));
    return { files, early };
  }

  it("leaves out a call of the same task that is not a prefix of the last one (a restarted instance's earlier attempt), and says so", async () => {
    const { files, early } = await callFolder(FIXTURE_ID, 3, 3, (aborted) => {
      aborted.response.choices[0]!.message.content = 'An earlier attempt, answered otherwise.';
    });
    const loaded = await importFiles([early, ...files]);
    expect(loaded).toHaveLength(1);
    const { data } = loaded[0]!;
    expect(data.id).toBe(FIXTURE_ID);
    expect(data.messages.flatMap((m) => (m.role === 'assistant' && m.usage ? [m.usage.promptTokens] : []))).toEqual(RECORDED_PROMPTS.slice(-3));
    expect(data.source?.notes).toBe('4 call files joined: the recorded usage of 3 requests at the steps they were made; 1 left out (not a prefix of the last call: another attempt)');
  });

  // Regression: two instances' call files flattened into one folder were joined into one scenario, the other dropped.
  it('gives one scenario per task when a folder holds the calls of several, each with its own calls, in time order', async () => {
    const { files, early } = await callFolder('calls', 2, 3, (other) => {
      other.messages[1]!.content = [{ type: 'text', text: 'Another instance, with another task text.' }];
    });
    const loaded = await importFiles([...files, early]);
    const folder = path.dirname(early);
    expect(loaded.map((l) => [l.scenario.id, l.scenario.file, l.scenario.messages.length])).toEqual([
      ['calls@0', `${folder}#0`, 9],
      ['calls@1', `${folder}#1`, 21],
    ]);
    expect(loaded.map((l) => l.data.source?.notes)).toEqual([
      '1 call files joined: the recorded usage of 1 requests at the steps they were made',
      '2 call files joined: the recorded usage of 2 requests at the steps they were made',
    ]);
    // validate reads them as run does: two runs, not two files.
    const units = await readFound([...files, early].sort().map((file) => ({ file, named: false })));
    expect(units.map((u) => (u.kind === 'imported' ? u.imported.map((i) => i.scenario.id) : u.kind))).toEqual([['calls@0', 'calls@1']]);
  });

  // Regression: a reused id was kept, and the scenario refused as a duplicate_tool_call_id.
  it('renames a call id the run reuses, and its result with it, in the joined run too', async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-reused-'));
    const folder = path.join(tmp, FIXTURE_ID);
    await mkdir(folder);
    const files = [];
    for (const file of CALL_FILES.slice(-2)) {
      const raw = JSON.parse(await readFile(file, 'utf8')) as Raw;
      // The second call of the run reuses the first's id.
      const [first, second] = raw.messages.flatMap((m) => m.tool_calls ?? []);
      const reused = second!.id;
      for (const m of raw.messages) {
        for (const call of m.tool_calls ?? []) if (call.id === reused) call.id = first!.id;
        if (m.tool_call_id === reused) m.tool_call_id = first!.id;
      }
      files.push(path.join(folder, path.basename(file)));
      await writeFile(files.at(-1)!, JSON.stringify(raw));
    }
    const { data } = (await importFiles(files))[0]!;
    const ids = data.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(ids[1]).toBe(`${ids[0]}-2`);
    expect(data.messages.find((m) => m.role === 'tool' && m.toolCallId === ids[1])).toBeDefined();
    expect(data.source?.notes).toBe('2 call files joined: the recorded usage of 2 requests at the steps they were made');
  });

  // Regression: the folder name was taken as the id as it was, and the scenario refused for its space.
  it('makes an id of a folder name with characters an id cannot hold, keeping it as the title', async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-named-'));
    await mkdir(path.join(tmp, 'my run 1'));
    const copy = path.join(tmp, 'my run 1', path.basename(FIXTURE));
    await writeFile(copy, await readFile(FIXTURE, 'utf8'));
    const { scenario } = await loadScenario(copy);
    expect([scenario.id, scenario.title]).toEqual(['my-run-1', 'my run 1']);
  });

  it('keeps other files as they are, in order, around the joined run', async () => {
    const chat = path.join(REPO_ROOT, 'fixtures/trajectories/openai-chat/chat.json');
    const loaded = await importFiles([chat, ...CALL_FILES.slice(0, 2), chat.replace('chat.json', 'conversations.jsonl')]);
    expect(loaded.map((l) => l.scenario.id)).toEqual(['chat', FIXTURE_ID, 'conversations@0', 'conversations@1']);
  });
});

// The full recorded set lives outside the repo; CI has it, a bare checkout may not.
const logs = existsSync(SHARED)
  ? readdirSync(path.join(SHARED, 'llm_completions')).flatMap((id) =>
      readdirSync(path.join(SHARED, 'llm_completions', id)).map((name) => path.join(SHARED, 'llm_completions', id, name)),
    )
  : [];

describe.skipIf(logs.length === 0)('OpenHands litellm importer, every log in ../shared/data', () => {
  it('has all 25 files', () => expect(logs).toHaveLength(25));

  it.each(logs.map((file) => [path.basename(path.dirname(file)), file]))('%s imports and validates', async (_, file) => {
    const { raw, scenario } = await convert(file);
    expect(() => parseScenario(scenario, file)).not.toThrow();
    expect(scenario.messages).toHaveLength(raw.messages.length + 1);
    expectSameCalls(raw, scenario);
    const last = scenario.messages.at(-1)!;
    expect(last.role === 'assistant' && last.usage?.promptTokens).toBe(raw.response.usage.prompt_tokens);
    expect(scenario.tools?.map((t) => t.name)).toEqual(['execute_bash', 'finish', 'str_replace_editor']);
    expect((await convert(file)).scenario).toEqual(scenario);
  });

  it('labels outcomes as labels.derived.json does', async () => {
    const labels = JSON.parse(await readFile(path.join(SHARED, 'labels.derived.json'), 'utf8')) as Record<string, string>;
    for (const file of logs) {
      const { scenario } = await convert(file);
      expect(scenario.outcome).toBe(labels[scenario.id]);
      expect(scenario.outcome).toMatch(/^(resolved|unresolved|empty_patch)$/);
    }
  });
});
