import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_ROOT } from '../../scripts/bundle-scenarios.js';
import { convertAll, importFile, importFileAll, loadScenarioPaths, skippedNote } from './load.js';
import { miniSweAgent } from './importers/mini-swe-agent.js';
import { openaiChat } from './importers/openai-chat.js';

const MINI = path.join(REPO_ROOT, 'fixtures/trajectories/mini-swe-agent-gemini3pro/trajs/django__django-14155/django__django-14155.traj.json');
const OUTPUT_JSONL = path.join(REPO_ROOT, 'fixtures/trajectories/openhands-event-history-multi-swe-bench/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl');
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

describe('loadScenarioPaths', () => {
  const KNOWN = 'known: ctxbench (scenario file), mini-swe-agent-1, openhands-litellm, swe-agent-traj, openhands-events, tau-bench, anthropic-messages, openai-chat';
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'ctxbench-paths-'));
  });
  afterEach(() => rm(tmp, { recursive: true, force: true }));
  const put = async (name: string, content: string): Promise<string> => {
    await mkdir(path.dirname(path.join(tmp, name)), { recursive: true });
    await writeFile(path.join(tmp, name), content);
    return path.join(tmp, name);
  };

  describe('a folder is walked like a dataset root', () => {
    it('skips the files of no known format and loads the rest (regression: results_summary.json failed the whole folder)', async () => {
      await copyFile(BUNDLED, await put('trajs/one.json', ''));
      await copyFile(MINI, await put('trajs/two/two.traj.json', ''));
      const summary = await put('results_summary.json', '{"resolved": ["x"]}');
      const notes = await put('notes.yaml', 'owner: someone\n');
      await put('README.md', '# not a scenario');
      const { scenarios, skipped } = await loadScenarioPaths([tmp]);
      expect(scenarios.map((s) => [s.format, path.relative(tmp, s.scenario.file)])).toEqual([
        ['ctxbench', 'trajs/one.json'],
        ['mini-swe-agent-1', 'trajs/two/two.traj.json'],
      ]);
      expect(skipped).toEqual([notes, summary]);
    });

    it('tells each file read of those found, the skipped ones included, the last when all are', async () => {
      await copyFile(BUNDLED, await put('a.json', ''));
      await put('b.yaml', 'owner: someone\n');
      await copyFile(MINI, await put('c.traj.json', ''));
      const told: string[] = [];
      await loadScenarioPaths([tmp], (done, total) => told.push(`${done}/${total}`));
      expect(told).toEqual(['1/3', '2/3', '3/3']);
    });

    it('fails in one line when no scenario is found, naming the files it skipped and the known formats', async () => {
      const files = await Promise.all(['a.json', 'b.json', 'c.json', 'd.json'].map((f) => put(`junk/${f}`, '{"hello": "world"}')));
      await expect(loadScenarioPaths([path.join(tmp, 'junk')])).rejects.toThrow(
        `${path.join(tmp, 'junk')}: no scenario found: 4 file(s) of no known format (${files.slice(0, 3).join(', ')} and 1 more; ${KNOWN})`,
      );
    });

    it('still fails on a file that looks like a scenario but is broken: not valid JSON, or an invalid ctxbench scenario', async () => {
      await copyFile(BUNDLED, await put('ok.json', ''));
      const truncated = await put('truncated.json', '{"ctxbench": 1,');
      await expect(loadScenarioPaths([tmp])).rejects.toThrow(`${truncated}: not valid JSON`);
      await rm(truncated);
      const invalid = await put('invalid.json', '{"ctxbench": 2}');
      await expect(loadScenarioPaths([tmp])).rejects.toThrow(`${invalid}: ctxbench: `);
    });

    // Regression: valid YAML of another tool with custom tags (an mkdocs.yml) failed the walk as "not valid YAML".
    it('skips a YAML file with custom tags that is no scenario; a scenario with one is still refused', async () => {
      await copyFile(BUNDLED, await put('ok.json', ''));
      const mkdocs = await put('mkdocs.yml', 'site_name: x\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n');
      expect((await loadScenarioPaths([tmp])).skipped).toEqual([mkdocs]);
      const tagged = await put('tagged.yaml', 'ctxbench: 1\nid: !!js/function x\n');
      await expect(loadScenarioPaths([tmp])).rejects.toThrow(`${tagged}: not valid YAML: tag: `);
    });

    it('fails on a file of several runs with one broken (regression: skipped as of no known format, exit 0)', async () => {
      const lines = (await readFile(OUTPUT_JSONL, 'utf8')).trimEnd();
      const output = await put('output.jsonl', `${lines}\n{"instance_id":"crashed__x-1","history":[],"error":"container failed"}\n`);
      await expect(loadScenarioPaths([tmp])).rejects.toThrow(`${output}: [2].history: empty, nothing to replay (error: container failed)`);
    });
  });

  it('reads a file saved with a byte order mark, JSON or YAML, as without it', async () => {
    const text = await readFile(BUNDLED, 'utf8');
    const json = await put('bom.json', `\uFEFF${text}`);
    const { scenarios } = await loadScenarioPaths([json]);
    expect(scenarios.map((s) => s.scenario.id)).toEqual(['django__django-13344']);
    const yaml = await put('bom.yaml', `\uFEFFctxbench: 1\nid: y\nmodel: { name: gpt-4o }\nmessages:\n  - { role: user, content: hi }\n  - { role: assistant, content: ok }\n`);
    expect((await loadScenarioPaths([yaml])).scenarios.map((s) => s.scenario.id)).toEqual(['y']);
  });

  it('a glob skips what it matches of no known format, whatever the extension', async () => {
    await copyFile(BUNDLED, await put('a/one.json', ''));
    const readme = await put('a/README.md', '# about');
    const { scenarios, skipped } = await loadScenarioPaths([path.join(tmp, 'a/*')]);
    expect(scenarios.map((s) => s.scenario.file)).toEqual([path.join(tmp, 'a/one.json')]);
    expect(skipped).toEqual([readme]);
  });

  it('a file named on its own must be of a known format, whatever folder or glob also leads to it', async () => {
    await copyFile(BUNDLED, await put('one.json', ''));
    const other = await put('other.json', '{"hello": "world"}');
    await expect(loadScenarioPaths([tmp, other])).rejects.toThrow(`${other}: not a format ctxbench knows (${KNOWN})`);
  });

  describe.skipIf(!existsSync(DATA_DIR))('the recorded datasets in ../shared/data, each folder as it is published', () => {
    it('mini-swe-agent: every trajectory, skipping results_summary.json and the logs/<id>/report.json files', async () => {
      const root = path.join(DATA_DIR, 'mini-swe-agent-gemini3pro');
      const { scenarios, skipped } = await loadScenarioPaths([root]);
      expect(scenarios).toHaveLength(18);
      expect(new Set(scenarios.map((s) => s.format))).toEqual(new Set(['mini-swe-agent-1']));
      expect(skipped.map((f) => path.relative(root, f))).toEqual([...scenarios.map((s) => `logs/${s.scenario.id}/report.json`), 'results_summary.json'].sort());
    });

    it('OpenHands: every instance, skipping labels.derived.json and metadata.json', async () => {
      const root = path.join(DATA_DIR, 'openhands-codeact-sonnet35-swebench-verified');
      const { scenarios, skipped } = await loadScenarioPaths([root]);
      expect(scenarios).toHaveLength(25);
      expect(new Set(scenarios.map((s) => s.format))).toEqual(new Set(['openhands-litellm']));
      expect(skipped.map((f) => path.relative(root, f))).toEqual(['labels.derived.json', 'metadata.json']);
    });
  });
});

describe('skippedNote', () => {
  it('counts the skipped files and names the first three', () => {
    expect(skippedNote(['a.json'])).toBe('skipped 1 file(s) of no known format: a.json');
    expect(skippedNote(['a.json', 'b.json', 'c.json'])).toBe('skipped 3 file(s) of no known format: a.json, b.json, c.json');
    expect(skippedNote(['a.json', 'b.json', 'c.json', 'd.json', 'e.json'])).toBe('skipped 5 file(s) of no known format: a.json, b.json, c.json and 2 more');
  });
});
