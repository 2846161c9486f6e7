import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { loadScenario } from '../load.js';
import { parseScenario } from '../scenario.js';
import type { ScenarioFile } from '../schema.js';
import { anthropicMessages } from './anthropic-messages.js';
import { findImporter } from './index.js';
import { importFileAll } from '../load.js';
import { openaiChat } from './openai-chat.js';

// A hand-written format sample (see its SOURCE.md), not recorded data.
const FIXTURE = path.join(REPO_ROOT, 'fixtures/trajectories/anthropic-messages/messages.json');

interface Body {
  system?: unknown;
  messages: { role: string; content: string | Record<string, unknown>[] }[];
}

async function convert(): Promise<{ raw: Body; scenario: ScenarioFile }> {
  const raw = JSON.parse(await readFile(FIXTURE, 'utf8')) as Body;
  return { raw, scenario: await anthropicMessages.convert(raw, FIXTURE) };
}

describe('Anthropic messages importer', () => {
  it('carries the tool definitions a request sent (tools: name, description, input_schema)', async () => {
    const { raw } = await convert();
    const input_schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const tools = [{ name: 'read_file', description: 'Read a file.', input_schema }, { type: 'bash_20250124', name: 'bash' }];
    const converted = await anthropicMessages.convert({ ...raw, tools }, 'x.json');
    expect(converted.tools).toEqual([{ name: 'read_file', description: 'Read a file.', parameters: input_schema }, { name: 'bash' }]);
    expect((await anthropicMessages.convert(raw, 'x.json')).tools).toBeUndefined();
  });

  it('is the importer loadScenario picks for the file, and openai-chat does not claim it', async () => {
    const { scenario, format } = await loadScenario(FIXTURE);
    expect(format).toBe('anthropic-messages');
    expect(scenario.id).toBe('messages');
    const raw: unknown = JSON.parse(await readFile(FIXTURE, 'utf8'));
    expect(findImporter(raw, FIXTURE)).toBe(anthropicMessages);
    expect(openaiChat.detect(raw, FIXTURE)).toBe(false);
  });

  it('turns the system blocks into a system message and tool_use blocks into calls', async () => {
    const { scenario } = await convert();
    expect(scenario.messages.slice(0, 3)).toEqual([
      { role: 'system', content: 'You are a coding agent. Use the tools to inspect and change the repository.' },
      { role: 'user', content: 'The test `test_parse_empty` fails in src/parse.py. Fix it.' },
      {
        role: 'assistant',
        content: 'Let me run the test and read the parser.',
        toolCalls: [
          { id: 'toolu_01', name: 'bash', arguments: '{"command":"pytest -q tests/test_parse.py"}' },
          { id: 'toolu_02', name: 'read_file', arguments: '{"path":"src/parse.py"}' },
        ],
      },
    ]);
  });

  it('splits a user message into its tool results, in block order, then a user message for its text', async () => {
    const { scenario } = await convert();
    expect(scenario.messages.slice(3, 6)).toEqual([
      { role: 'tool', toolCallId: 'toolu_01', content: 'F.\nFAILED tests/test_parse.py::test_parse_empty - IndexError: list index out of range\n1 failed, 1 passed' },
      { role: 'tool', toolCallId: 'toolu_02', content: "def parse(text):\n    parts = text.split(',')\n    return parts[0].strip(), parts[1:]" },
      { role: 'user', content: 'Keep the behaviour for a single field.' },
    ]);
  });

  it('drops thinking blocks, keeps an error result as its text, adds no user turn for results alone', async () => {
    const { scenario } = await convert();
    expect(scenario.messages.slice(6).map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(scenario.messages[6]).toMatchObject({ content: 'I will return early on empty input.', toolCalls: [{ id: 'toolu_03', name: 'edit_file' }] });
    expect(scenario.messages[7]).toEqual({ role: 'tool', toolCallId: 'toolu_03', content: 'error: old text not found in src/parse.py' });
    expect(scenario.messages.at(-1)).toEqual({ role: 'assistant', content: 'The file uses double quotes; I will stop here and report.', toolCalls: [] });
    expect(() => parseScenario(scenario, FIXTURE)).not.toThrow();
  });

  it('fills model, id and source; reads a bare list of messages and a list of bodies', async () => {
    const { raw, scenario } = await convert();
    expect(scenario).toMatchObject({ ctxbench: 1, id: 'messages', title: 'messages', source: { format: 'anthropic-messages', file: 'messages.json' }, model: { name: 'claude-sonnet-4-20250514' } });
    const bare = await anthropicMessages.convert(raw.messages, 'log.jsonl');
    expect(bare).toMatchObject({ id: 'log', model: { name: 'unknown' } });
    expect(bare.messages).toEqual(scenario.messages.slice(1));
    const many = await anthropicMessages.convertMany!([raw, { ...raw, system: 'Be brief.' }], 'runs.jsonl');
    expect(many.map((s) => [s.id, s.messages[0]])).toEqual([
      ['runs@0', scenario.messages[0]],
      ['runs@1', { role: 'system', content: 'Be brief.' }],
    ]);
    expect((await importFileAll(FIXTURE)).map((i) => i.scenario.id)).toEqual(['messages']);
  });

  it('names the file and field when the data is not what it expects', async () => {
    const { raw } = await convert();
    delete (raw.messages[2]!.content as Record<string, unknown>[])[1]!.tool_use_id;
    await expect(anthropicMessages.convert(raw, 'x.json')).rejects.toThrow('x.json: messages[2].content[1].tool_use_id: expected a string');
    expect(anthropicMessages.detect({ system: 'x', messages: [{ role: 'system', content: 'x' }] }, 'x.json')).toBe(false);
  });
});
