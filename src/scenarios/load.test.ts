import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/bundle-scenarios.js';
import { convertAll, importFile, importFileAll } from './load.js';
import { miniSweAgent } from './importers/mini-swe-agent.js';
import { openaiChat } from './importers/openai-chat.js';

const MINI = path.join(REPO_ROOT, 'fixtures/trajectories/mini-swe-agent-gemini3pro/trajs/django__django-14155/django__django-14155.traj.json');
const BUNDLED = path.join(REPO_ROOT, 'scenarios/mini-swe-agent-gemini3pro/django__django-13344.json');
const chat = (question: string) => ({
  messages: [
    { role: 'user', content: question },
    { role: 'assistant', content: 'ok' },
  ],
});

describe('importFileAll', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-many-'));
  });
  afterEach(() => rm(tmp, { recursive: true, force: true }));

  it('gives the one scenario importFile gives for a single-run file, native or imported, under the same file name', async () => {
    for (const file of [MINI, BUNDLED]) {
      const [only, ...rest] = await importFileAll(file);
      expect(rest).toHaveLength(0);
      expect(only).toEqual(await importFile(file));
      expect(only!.scenario.file).toBe(file);
    }
  });

  it('uses convert for importers without convertMany', async () => {
    const raw: unknown = JSON.parse(await readFile(MINI, 'utf8'));
    expect(await convertAll(miniSweAgent, raw, MINI)).toEqual([await miniSweAgent.convert(raw, MINI)]);
    expect(await convertAll(openaiChat, [chat('a'), chat('b')], 'x.jsonl')).toHaveLength(2);
  });

  it('reads a JSONL of ctxbench scenarios, one per line, each named <file>#<line>', async () => {
    const scenario = JSON.parse(await readFile(BUNDLED, 'utf8')) as { id: string };
    const file = path.join(tmp, 'bundle.jsonl');
    await writeFile(file, `${JSON.stringify(scenario)}\n${JSON.stringify({ ...scenario, id: 'second' })}\n`);
    const all = await importFileAll(file);
    expect(all.map((i) => [i.format, i.scenario.id, i.scenario.file])).toEqual([
      ['ctxbench', scenario.id, `${file}#0`],
      ['ctxbench', 'second', `${file}#1`],
    ]);
  });

  it('rejects two runs with one id, and names the run whose scenario is invalid', async () => {
    const scenario = JSON.parse(await readFile(BUNDLED, 'utf8')) as { id: string };
    const twice = path.join(tmp, 'twice.jsonl');
    await writeFile(twice, `${JSON.stringify(scenario)}\n${JSON.stringify(scenario)}\n`);
    await expect(importFileAll(twice)).rejects.toThrow(`${twice}: runs 0 and 1 have the same id ${scenario.id}`);

    const broken = path.join(tmp, 'chats.jsonl');
    await writeFile(broken, `${JSON.stringify(chat('a'))}\n${JSON.stringify({ messages: [{ role: 'user', content: 'no answer' }] })}\n`);
    await expect(importFileAll(broken)).rejects.toThrow(`${broken}#1: messages: a scenario needs at least a prompt and one assistant turn`);
  });

  it('names a file no importer knows', async () => {
    const file = path.join(tmp, 'other.json');
    await writeFile(file, '{"hello": "world"}');
    await expect(importFileAll(file)).rejects.toThrow(/other\.json: not a format ctxbench knows \(known: ctxbench \(scenario file\), mini-swe-agent-1, openhands-litellm, swe-agent-traj, openhands-events, tau-bench, anthropic-messages, openai-chat\)/);
  });
});
