import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { loadScenario, readStructured } from '../load.js';
import { parseScenario } from '../scenario.js';
import { anthropicMessages } from './anthropic-messages.js';
import { findImporter } from './index.js';
import { importFileAll } from '../load.js';
import { openaiChat } from './openai-chat.js';

// Hand-written format samples (see their SOURCE.md), not recorded data.
const DIR = path.join(REPO_ROOT, 'fixtures/trajectories/openai-chat');
const CHAT = path.join(DIR, 'chat.json');
const LINES = path.join(DIR, 'chat.jsonl');
const CONVERSATIONS = path.join(DIR, 'conversations.jsonl');

describe('OpenAI chat importer', () => {
  let tmp: string | undefined;
  afterEach(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    tmp = undefined;
  });

  it('is the importer loadScenario picks for a request body and for JSONL messages', async () => {
    for (const file of [CHAT, LINES]) {
      const { scenario, format } = await loadScenario(file);
      expect(format).toBe('openai-chat');
      expect(scenario.id).toBe('chat');
      expect(findImporter(await readStructured(file), file)).toBe(openaiChat);
    }
  });

  it('converts every message: developer as system, null content as empty, parts joined, images dropped', async () => {
    const { data } = (await importFileAll(CHAT))[0]!;
    const [system, task, calls, first, second, edit, , user, developer] = data.messages;
    expect(system).toEqual({ role: 'system', content: 'You are a coding agent. Use the tools to inspect and change the repository.' });
    expect(task).toMatchObject({ role: 'user' });
    expect(calls).toEqual({
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_a1', name: 'bash', arguments: '{"command": "pytest -q tests/test_parse.py"}' },
        { id: 'call_a2', name: 'read_file', arguments: '{"path": "src/parse.py"}' },
      ],
    });
    expect(first).toMatchObject({ role: 'tool', toolCallId: 'call_a1', name: undefined });
    expect(second).toEqual({ role: 'tool', toolCallId: 'call_a2', name: 'read_file', content: "def parse(text):\n    parts = text.split(',')\n    return parts[0].strip(), parts[1:]" });
    expect(edit).toMatchObject({ role: 'assistant', content: "`parse('')` still indexes the split result.\nI will return early on empty input." });
    expect(user).toEqual({ role: 'user', content: 'Also keep the behaviour for a single field; here is the failing case:' });
    expect(developer).toEqual({ role: 'system', content: 'Run the tests before you answer.' });
  });

  it('stringifies object arguments and renames a reused call id with its result', async () => {
    const { data, scenario } = (await importFileAll(CHAT))[0]!;
    expect(data.messages[5]).toMatchObject({ toolCalls: [{ id: 'call_a1-2', name: 'edit_file', arguments: expect.stringMatching(/^\{"path":"src\/parse.py"/) }] });
    expect(data.messages[6]).toMatchObject({ role: 'tool', toolCallId: 'call_a1-2' });
    // parseScenario names the tool result after its call.
    expect(scenario.messages[3]).toMatchObject({ role: 'tool', name: 'bash' });
  });

  it('takes the model from the body (else "unknown") and the id from the file name', async () => {
    const [body, lines] = [(await importFileAll(CHAT))[0]!.data, (await importFileAll(LINES))[0]!.data];
    expect(body).toMatchObject({ ctxbench: 1, id: 'chat', title: 'chat', source: { format: 'openai-chat', file: 'chat.json' }, model: { name: 'gpt-4o-mini-2024-07-18' } });
    expect(lines).toMatchObject({ id: 'chat', source: { file: 'chat.jsonl' }, model: { name: 'unknown' } });
    expect(lines.messages).toEqual(body.messages);
  });

  it('gives one scenario per conversation of a JSONL of request bodies, each with its own id', async () => {
    const imported = await importFileAll(CONVERSATIONS);
    expect(imported.map((i) => [i.format, i.scenario.id, i.scenario.file, i.scenario.messages.length])).toEqual([
      ['openai-chat', 'conversations@0', `${CONVERSATIONS}#0`, 4],
      ['openai-chat', 'conversations@1', `${CONVERSATIONS}#1`, 4],
    ]);
    await expect(openaiChat.convert(await readStructured(CONVERSATIONS), 'x.jsonl')).rejects.toThrow('x.jsonl: holds 2 runs');
  });

  it('carries the tool definitions a request body sent (tools: function name, description, parameters)', async () => {
    const body = JSON.parse(await readFile(CHAT, 'utf8')) as Record<string, unknown>;
    const parameters = { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] };
    const tools = [
      { type: 'function', function: { name: 'bash', description: 'Run a shell command.', parameters } },
      { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } },
      // OpenAI's custom tool: a name, a description and a grammar, no JSON Schema.
      { type: 'custom', custom: { name: 'apply_patch', format: { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: /.+/' } } } },
    ];
    const converted = await openaiChat.convert({ ...body, tools }, 'x.json');
    expect(converted.tools).toEqual([
      { name: 'bash', description: 'Run a shell command.', parameters },
      { name: 'read_file', parameters: { type: 'object', properties: {} } },
      { name: 'apply_patch' },
    ]);
    expect(parseScenario(converted, 'x.json').tools).toEqual(converted.tools);
    // No tools sent: none carried (and the scenario's digest stays what it was).
    expect((await openaiChat.convert(body, 'x.json')).tools).toBeUndefined();
    await expect(openaiChat.convert({ ...body, tools: [{ type: 'function', function: { description: 'x' } }] }, 'x.json')).rejects.toThrow('x.json: tools[0].function.name: expected a string');
  });

  it('leaves Anthropic requests and other formats alone', async () => {
    const body = JSON.parse(await readFile(CHAT, 'utf8')) as { messages: unknown[] };
    expect(openaiChat.detect({ ...body, system: 'be brief' }, 'x.json')).toBe(false);
    expect(openaiChat.detect([{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] }], 'x.json')).toBe(false);
    expect(openaiChat.detect([{ role: 'narrator', content: 'x' }], 'x.json')).toBe(false);
    expect(openaiChat.detect({ messages: [] }, 'x.json')).toBe(false);
    // A plain text chat is both; openai-chat takes it (anthropic-messages wants a system or its own blocks).
    const plain = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
    expect([openaiChat.detect(plain, 'x.json'), anthropicMessages.detect(plain, 'x.json')]).toEqual([true, false]);
    expect(findImporter(plain, 'x.json')).toBe(openaiChat);
    const converted = await openaiChat.convert(plain, 'x.json');
    expect(() => parseScenario(converted, 'x.json')).not.toThrow();
  });

  it('names the file and field when the data is not what it expects, and the line of a JSONL syntax error', async () => {
    const body = JSON.parse(await readFile(CHAT, 'utf8')) as { messages: { tool_calls?: { function: { name?: string } }[] }[] };
    delete body.messages[2]!.tool_calls![1]!.function.name;
    await expect(openaiChat.convert(body, 'x.json')).rejects.toThrow('x.json: messages[2].tool_calls[1].function.name: expected a string');
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-jsonl-'));
    const bad = path.join(tmp, 'bad.jsonl');
    await writeFile(bad, '{"role":"user","content":"hi"}\n\n{"role": "assistant",\n');
    await expect(readStructured(bad)).rejects.toThrow(/bad\.jsonl: not valid JSONL: line 3: /);
  });

  // Regression: one such message made the whole chat "no known format", skipped in a folder.
  it('is still this format with one message of an unknown role or content, and names it', async () => {
    const chat = [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'y' }];
    const cases: [unknown, string][] = [
      [{ role: 'function', content: 'y' }, 'x.json: [3].role: expected system, developer, user, assistant or tool'],
      [{ role: 'user', content: 5 }, 'x.json: [3].content: expected a string or a list of parts'],
      [{ role: 'user', content: [{ type: 'video', url: 'y' }] }, 'x.json: [3].content[0].type: expected one of text, image_url, input_audio, file, refusal'],
    ];
    for (const [message, error] of cases) {
      const data = chat.map((m, i) => (i === 3 ? message : m));
      expect(findImporter(data, 'x.json')).toBe(openaiChat);
      await expect(openaiChat.convert(data, 'x.json')).rejects.toThrow(error);
      await expect(openaiChat.convertMany!([{ messages: chat }, { messages: data }], 'x.jsonl')).rejects.toThrow(error.replace('x.json: ', 'x.jsonl: [1].messages'));
    }
    await expect(openaiChat.convertMany!([{ messages: chat }, { messages: chat }, 'crashed'], 'x.jsonl')).rejects.toThrow('x.jsonl: [2]: expected a request body {messages: [...]}');
  });
});
