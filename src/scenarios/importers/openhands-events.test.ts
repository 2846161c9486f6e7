import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { readStructured } from '../load.js';
import { parseScenario } from '../scenario.js';
import type { ScenarioFile } from '../schema.js';
import { findImporter } from './index.js';
import { importFileAll } from '../load.js';
import { openhandsEvents, truncate } from './openhands-events.js';

const FILE = 'evaluation/benchmarks/multi_swe_bench/examples/output.jsonl';
const FIXTURE = path.join(REPO_ROOT, 'fixtures/trajectories/openhands-event-history-multi-swe-bench', FILE);
const SHARED = path.join(DATA_DIR, 'openhands-event-history-multi-swe-bench', FILE);

interface Event {
  id: number;
  source: string;
  action?: string;
  observation?: string;
  content?: string;
  args?: { content?: string };
  tool_call_metadata?: {
    tool_call_id: string;
    function_name: string;
    model_response: { id: string; usage: { prompt_tokens: number; completion_tokens: number }; choices: { message: { content: string } }[] };
  };
}
interface Run {
  instance_id: string;
  history: Event[];
}

async function convertMany(file: string): Promise<{ raw: Run[]; scenarios: ScenarioFile[] }> {
  const raw = (await readStructured(file)) as Run[];
  return { raw, scenarios: await openhandsEvents.convertMany!(raw, file) };
}

type Message = ScenarioFile['messages'][number];
const calls = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));

describe('OpenHands events importer, trimmed real output.jsonl', () => {
  it('is the importer chosen for the file, and gives one scenario per line', async () => {
    const raw = await readStructured(FIXTURE);
    expect(findImporter(raw, FIXTURE)).toBe(openhandsEvents);
    const imported = await importFileAll(FIXTURE);
    expect(imported.map((i) => [i.format, i.scenario.id, i.scenario.file])).toEqual([
      ['openhands-events', 'ponylang__ponyc-4595', `${FIXTURE}#0`],
      ['openhands-events', 'ponylang__ponyc-4588', `${FIXTURE}#1`],
    ]);
    expect(openhandsEvents.detect({ history: [] }, FIXTURE)).toBe(false);
  });

  it('rebuilds the chat: system and task from their actions, each call from its model response, each result from its observation', async () => {
    const { raw, scenarios } = await convertMany(FIXTURE);
    const [events, scenario] = [raw[0]!.history, scenarios[0]!];
    const response = (i: number) => events[i]!.tool_call_metadata!.model_response;
    expect(scenario.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(scenario.messages[0]).toEqual({ role: 'system', content: events[0]!.args!.content });
    expect(scenario.messages[1]).toEqual({ role: 'user', content: events[1]!.args!.content });
    expect(scenario.messages[2]).toEqual({
      role: 'assistant',
      content: response(4).choices[0]!.message.content,
      toolCalls: [{ id: 'toolu_01', name: 'execute_bash', arguments: '{"command": "ls -l /workspace/ponylang__ponyc__0.1"}' }],
      usage: { promptTokens: 5920, completionTokens: response(4).usage.completion_tokens },
    });
    expect(scenario.messages[5]).toEqual({ role: 'tool', toolCallId: 'toolu_22', name: 'think', content: 'Your thought has been logged.' });
    expect(() => parseScenario(scenario, FIXTURE)).not.toThrow();
  });

  it('adds the command footer OpenHands shows the model to a command\'s output', async () => {
    const { raw, scenarios } = await convertMany(FIXTURE);
    expect(scenarios[0]!.messages[3]).toEqual({
      role: 'tool',
      toolCallId: 'toolu_01',
      name: 'execute_bash',
      content: `${raw[0]!.history[5]!.content}\n[The command completed with exit code 0.]\n[Current working directory: /workspace/ponylang__ponyc__0.1]\n[Command finished with exit code 0]`,
    });
  });

  it('skips the recall events, keeps an error without a call as user text, and ends on the unanswered finish call', async () => {
    const { raw, scenarios } = await convertMany(FIXTURE);
    const [done, stopped] = scenarios;
    expect(done!.messages.some((m) => m.content === 'Added workspace context')).toBe(false);
    expect(done!.messages.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'toolu_23', name: 'finish' }] });
    const error = raw[1]!.history.find((e) => e.observation === 'error')!;
    expect(stopped!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(stopped!.messages[4]).toEqual({ role: 'user', content: `${error.content}\n[Error occurred in processing last action]` });
    expect(stopped!.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'toolu_49', content: expect.stringMatching(/\[Command finished with exit code 100\]$/) });
  });

  it('fills id, model and source, with the run\'s error as a note and no outcome', async () => {
    const { scenarios } = await convertMany(FIXTURE);
    expect(scenarios[1]).toMatchObject({
      ctxbench: 1,
      id: 'ponylang__ponyc-4588',
      title: 'ponylang__ponyc-4588',
      source: { format: 'openhands-events', agent: 'OpenHands CodeActAgent', file: 'output.jsonl', notes: expect.stringMatching(/^error: RuntimeError: Agent reached maximum iteration/) },
      model: { name: 'meta-llama/llama-4-maverick' },
    });
    expect(scenarios[0]!.source!.notes).toBeUndefined();
    expect(scenarios[1]!.outcome).toBeUndefined();
  });

  it('converts one run: a single line, or a bare event list (id from the file name); names the count otherwise', async () => {
    const { raw, scenarios } = await convertMany(FIXTURE);
    expect(await openhandsEvents.convert(raw[0], FIXTURE)).toEqual(scenarios[0]);
    expect(await openhandsEvents.convert(raw.slice(0, 1), FIXTURE)).toEqual(scenarios[0]);
    const bare = await openhandsEvents.convert(raw[0]!.history, 'trajectory.json');
    expect(bare).toMatchObject({ id: 'trajectory', model: { name: 'meta-llama/llama-4-maverick' }, messages: scenarios[0]!.messages });
    await expect(openhandsEvents.convert(raw, 'x.jsonl')).rejects.toThrow('x.jsonl: holds 2 runs; load it with importFileAll');
  });

  it('groups the calls of one model response into one assistant turn, sent once all are answered', async () => {
    const { raw } = await convertMany(FIXTURE);
    const [system, task, , , action, observation] = raw[0]!.history;
    const response = structuredClone(action!.tool_call_metadata!.model_response) as unknown as {
      choices: { message: { tool_calls: { id: string; function: { name: string; arguments: string } }[] } }[];
    };
    const first = response.choices[0]!.message.tool_calls[0]!;
    response.choices[0]!.message.tool_calls.push({ ...first, id: 'toolu_01b' });
    const second = (of: Event, id: string): Event => ({ ...of, tool_call_metadata: { ...of.tool_call_metadata!, tool_call_id: id, model_response: response as never } });
    // Both actions, then the results in the opposite order.
    const history = [system, task, second(action!, 'toolu_01'), second(action!, 'toolu_01b'), second(observation!, 'toolu_01b'), second(observation!, 'toolu_01')];
    const { messages } = await openhandsEvents.convert({ history }, 'x.jsonl');
    expect(messages.map((m) => [m.role, m.role === 'tool' ? m.toolCallId : undefined])).toEqual([
      ['system', undefined],
      ['user', undefined],
      ['assistant', undefined],
      ['tool', 'toolu_01'],
      ['tool', 'toolu_01b'],
    ]);
    expect(calls(messages).map((c) => c.id)).toEqual(['toolu_01', 'toolu_01b']);
  });

  // Regression: the turn with the unanswered call was moved to the end of the history, after later turns.
  it('keeps a response with an unanswered parallel call where it was, with only its answered call', async () => {
    const { raw } = await convertMany(FIXTURE);
    const [system, task, , , action, observation] = raw[0]!.history;
    type Response = { id: string; choices: { message: { content: string; tool_calls: { id: string; function: { name: string; arguments: string } }[] } }[] };
    const first = structuredClone(action!.tool_call_metadata!.model_response) as unknown as Response;
    first.choices[0]!.message.tool_calls.push({ ...first.choices[0]!.message.tool_calls[0]!, id: 'toolu_lost' });
    const next = structuredClone(first);
    next.id = 'response-2';
    next.choices[0]!.message = { content: 'next', tool_calls: [{ ...first.choices[0]!.message.tool_calls[0]!, id: 'toolu_02' }] };
    const as = (of: Event, id: string, response: Response): Event => ({ ...of, tool_call_metadata: { ...of.tool_call_metadata!, tool_call_id: id, model_response: response as never } });
    const history = [system, task, as(action!, 'toolu_01', first), as(action!, 'toolu_lost', first), as(observation!, 'toolu_01', first), as(action!, 'toolu_02', next), as(observation!, 'toolu_02', next)];
    const { messages } = await openhandsEvents.convert({ history }, 'x.jsonl');
    expect(messages.map((m) => [m.role, m.role === 'tool' ? m.toolCallId : m.role === 'assistant' ? m.toolCalls?.map((c) => c.id).join() : undefined])).toEqual([
      ['system', undefined],
      ['user', undefined],
      ['assistant', 'toolu_01'],
      ['tool', 'toolu_01'],
      ['assistant', 'toolu_02'],
      ['tool', 'toolu_02'],
    ]);
    expect(() => parseScenario({ ctxbench: 1, id: 'x', model: { name: 'm' }, messages }, 'x.jsonl')).not.toThrow();
  });

  it('truncates an observation over max_message_chars as OpenHands does, keeping head and tail', () => {
    expect(truncate('abcdefghij', 10)).toBe('abcdefghij');
    expect(truncate('abcdefghijk', 4)).toBe('ab\n[... Observation truncated due to length ...]\njk');
    expect(truncate('abcdefghijk', undefined)).toBe('abcdefghijk');
    // Characters, not UTF-16 units: an emoji counts once.
    expect(truncate('😀😀😀😀😀', 4)).toBe('😀😀\n[... Observation truncated due to length ...]\n😀😀');
  });

  it('names the file and field when the data is not what it expects', async () => {
    const { raw } = await convertMany(FIXTURE);
    delete raw[1]!.history[1]!.args!.content;
    await expect(openhandsEvents.convertMany!(raw, 'x.jsonl')).rejects.toThrow('x.jsonl: [1].history[1].args.content: expected a string');
  });

  // Regression: one line with no history made the whole file "no known format", skipped in a folder.
  it('is still this format with a broken line, and names that line: an instance that crashed, a line that is no run', async () => {
    const { raw } = await convertMany(FIXTURE);
    const crashed = [...raw, { instance_id: 'crashed__x-1', history: [], error: 'container failed' }];
    expect(findImporter(crashed, 'x.jsonl')).toBe(openhandsEvents);
    await expect(openhandsEvents.convertMany!(crashed, 'x.jsonl')).rejects.toThrow(
      'x.jsonl: [2].history: empty, nothing to replay (error: container failed); leave the line out to load the others',
    );
    await expect(openhandsEvents.convertMany!([...raw, 7], 'x.jsonl')).rejects.toThrow('x.jsonl: [2]: expected an output.jsonl line {instance_id, history}');
    const stray = [...raw[0]!.history, { id: 99 }];
    await expect(openhandsEvents.convert(stray, 'x.json')).rejects.toThrow(`x.json: [${stray.length - 1}]: expected an event {source, action or observation}`);
    // Mostly not runs: another format's file, not a broken one of this.
    expect(openhandsEvents.detect([raw[0], { history: [] }, { history: [] }], 'x.jsonl')).toBe(false);
  });
});

// The full recorded set lives outside the repo; CI has it, a bare checkout may not.
describe.skipIf(!existsSync(SHARED))('OpenHands events importer, the whole output.jsonl in ../shared/data', () => {
  it('imports all 3 runs, each valid', async () => {
    const imported = await importFileAll(SHARED);
    expect(imported.map((i) => [i.format, i.scenario.id])).toEqual([
      ['openhands-events', 'ponylang__ponyc-4595'],
      ['openhands-events', 'ponylang__ponyc-4593'],
      ['openhands-events', 'ponylang__ponyc-4588'],
    ]);
  });

  it('makes one call per action with a model response and one result per observation of a call, with the recorded usage', async () => {
    const { raw, scenarios } = await convertMany(SHARED);
    raw.forEach((run, i) => {
      const scenario = scenarios[i]!;
      const actions = run.history.filter((e) => e.action !== undefined && e.tool_call_metadata);
      const results = run.history.filter((e) => e.observation !== undefined && e.tool_call_metadata);
      expect(calls(scenario.messages).map((c) => c.id)).toEqual(actions.map((e) => e.tool_call_metadata!.tool_call_id));
      expect(scenario.messages.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && m.toolCallId)).toEqual(
        results.map((e) => e.tool_call_metadata!.tool_call_id),
      );
      const turns = scenario.messages.filter((m) => m.role === 'assistant');
      expect(turns.map((m) => m.role === 'assistant' && m.usage?.promptTokens)).toEqual(actions.map((e) => e.tool_call_metadata!.model_response.usage.prompt_tokens));
      expect(() => parseScenario(scenario, SHARED)).not.toThrow();
    });
    // The run that hit max iterations ends on a result; the others on finish.
    expect(scenarios.map((s) => s.messages.at(-1)!.role)).toEqual(['assistant', 'assistant', 'tool']);
    const errors = scenarios.map((s) => s.messages.filter((m) => m.role === 'user' && m.content.endsWith('[Error occurred in processing last action]')).length);
    expect(errors).toEqual([0, 1, 1]);
  });

  it('the trimmed fixture converts exactly as upstream for every event it kept', async () => {
    const { scenarios } = await convertMany(FIXTURE);
    const { scenarios: full } = await convertMany(SHARED);
    expect(full[0]!.messages.slice(0, 4)).toEqual(scenarios[0]!.messages.slice(0, 4));
    expect(full[0]!.messages.slice(-3)).toEqual(scenarios[0]!.messages.slice(-3));
  });
});
