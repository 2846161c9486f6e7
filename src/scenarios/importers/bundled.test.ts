import { existsSync, readdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLES, DATA_DIR, REPO_ROOT, bundle } from '../../../scripts/bundle-scenarios.js';
import { loadScenario } from '../load.js';
import { turns } from '../turns.js';

const folders = BUNDLES.map((b) => path.join(REPO_ROOT, 'scenarios', b.folder));
const files = folders.flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f)));

describe('bundled scenarios', () => {
  it.each(BUNDLES.map((b) => [b.folder, b]))('scenarios/%s has one file per source, a LICENSE and a SOURCE.md', (folder, b) => {
    const names = readdirSync(path.join(REPO_ROOT, 'scenarios', folder));
    expect(names.filter((n) => n.endsWith('.json'))).toHaveLength(b.sources.length);
    expect(names).toEqual(expect.arrayContaining(['SOURCE.md', expect.stringMatching(/^LICENSE/)]));
  });

  it.each(files.map((f) => [path.relative(REPO_ROOT, f), f]))('%s loads, validates and recorded a peak prompt above a 16k window', async (_, file) => {
    const { scenario, format } = await loadScenario(file);
    expect(format).toBe('ctxbench');
    expect(scenario.id).toBe(path.basename(file, '.json'));
    expect(scenario.outcome).toMatch(/^(resolved|unresolved)$/);
    const peak = Math.max(...turns(scenario).map((t) => t.assistant.usage?.promptTokens ?? 0));
    expect(peak).toBeGreaterThan(16_384);
    expect((await stat(file)).size).toBeLessThan(700 * 1024);
  });
});

describe.skipIf(!existsSync(DATA_DIR))('bundled scenarios against ../shared/data', () => {
  const sources = BUNDLES.flatMap((b) => b.sources.map((source) => [source, b.folder] as const));
  it.each(sources)('%s converts to exactly the bundled file', async (source, folder) => {
    const { file, text } = await bundle(folder, source);
    expect(await readFile(path.join(REPO_ROOT, file), 'utf8')).toBe(text);
  });
});
