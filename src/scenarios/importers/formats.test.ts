import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, REPO_ROOT } from '../../../scripts/bundle-scenarios.js';
import { readStructured } from '../load.js';
import { IMPORTERS, findImporter } from './index.js';
import { importFileAll } from '../load.js';

/**
 * Detection across every format: each file is claimed by its own importer, no two formats with a shape
 * of their own claim the same file, and the generic chat formats, which do accept some of those files,
 * come after them in IMPORTERS.
 */
const FIXTURES = path.join(REPO_ROOT, 'fixtures/trajectories');

interface Folder {
  readonly folder: string;
  readonly format: string;
  /** Every format whose detect accepts the folder's files, in IMPORTERS order. */
  readonly claimedBy: readonly string[];
  readonly isTrajectory: (file: string) => boolean;
  /** Files in ../shared/data (CI has them; a bare checkout may not). */
  readonly shared?: number;
}

const FOLDERS: readonly Folder[] = [
  // Both are OpenAI chats too: openai-chat would take them if it came first.
  { folder: 'mini-swe-agent-gemini3pro', format: 'mini-swe-agent-1', claimedBy: ['mini-swe-agent-1', 'openai-chat'], isTrajectory: (f) => f.endsWith('.traj.json'), shared: 18 },
  {
    folder: 'openhands-codeact-sonnet35-swebench-verified',
    format: 'openhands-litellm',
    claimedBy: ['openhands-litellm', 'openai-chat'],
    isTrajectory: (f) => f.includes(`${path.sep}llm_completions${path.sep}`),
    shared: 25,
  },
  { folder: 'swe-agent-format-samples', format: 'swe-agent-traj', claimedBy: ['swe-agent-traj'], isTrajectory: (f) => f.endsWith('.traj'), shared: 2 },
  { folder: 'openhands-event-history-multi-swe-bench', format: 'openhands-events', claimedBy: ['openhands-events'], isTrajectory: (f) => f.endsWith('.jsonl'), shared: 1 },
  { folder: 'tau-bench-gpt4o-airline', format: 'tau-bench', claimedBy: ['tau-bench'], isTrajectory: (f) => f.includes(`${path.sep}historical_trajectories${path.sep}`), shared: 1 },
  // Hand-written format samples: no shared data.
  { folder: 'anthropic-messages', format: 'anthropic-messages', claimedBy: ['anthropic-messages'], isTrajectory: (f) => f.endsWith('.json') },
  { folder: 'openai-chat', format: 'openai-chat', claimedBy: ['openai-chat'], isTrajectory: (f) => /\.jsonl?$/.test(f) },
];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}

const files = (root: string, folder: Folder): string[] => walk(path.join(root, folder.folder)).filter(folder.isTrajectory).sort();
const cases = (root: string) => FOLDERS.flatMap((folder) => (existsSync(path.join(root, folder.folder)) ? files(root, folder) : []).map((file) => [path.relative(root, file), file, folder] as const));

describe('format detection', () => {
  it('tries every format with a shape of its own before the generic chat formats', () => {
    expect(IMPORTERS.map((i) => i.format)).toEqual(['mini-swe-agent-1', 'openhands-litellm', 'swe-agent-traj', 'openhands-events', 'tau-bench', 'anthropic-messages', 'openai-chat']);
  });

  it('has fixtures for every format', () => {
    for (const folder of FOLDERS) expect(files(FIXTURES, folder).length, folder.folder).toBeGreaterThan(0);
  });

  it.each(cases(FIXTURES))('fixtures/trajectories/%s is detected as its own format and imports', async (_, file, folder) => {
    const raw = await readStructured(file);
    expect(IMPORTERS.filter((i) => i.detect(raw, file)).map((i) => i.format)).toEqual(folder.claimedBy);
    expect(findImporter(raw, file)?.format).toBe(folder.format);
    const imported = await importFileAll(file);
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.every((i) => i.format === folder.format)).toBe(true);
  });
});

describe.skipIf(!existsSync(DATA_DIR))('format detection, every real file in ../shared/data', () => {
  it.each(FOLDERS.filter((f) => f.shared !== undefined).map((f) => [f.folder, f]))('%s has all its files', (_, folder) => {
    expect(files(DATA_DIR, folder)).toHaveLength(folder.shared!);
  });

  // importFileAll validates every scenario with parseScenario (schema and tool-call pairing).
  it.each(cases(DATA_DIR))('%s is detected as its own format, imports and validates', async (_, file, folder) => {
    const raw = await readStructured(file);
    expect(IMPORTERS.filter((i) => i.detect(raw, file)).map((i) => i.format)).toEqual(folder.claimedBy);
    const imported = await importFileAll(file);
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.every((i) => i.format === folder.format)).toBe(true);
  });
});
