/**
 * Regenerates the bundled scenarios under scenarios/ from the recorded trajectories in
 * ../shared/data/trajectories (relative to the repo root), so a default run needs nothing outside the
 * repo. Deterministic: the same data gives byte-identical files.
 *
 *   npx tsx scripts/bundle-scenarios.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importFile } from '../src/scenarios/load.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DATA_DIR = path.resolve(REPO_ROOT, '../shared/data/trajectories');

/**
 * Recorded peak prompt (the real model's count) near or above 30,000 tokens, so a 16k window
 * overflows the raw baseline (most overflow 32k too); resolved and unresolved mixed, smaller files preferred. No trajectory
 * with a single tool output larger than a 16k window (scikit-learn-25102 has a 55k-token one): no
 * strategy of the foundation could replay it. Paths are relative to DATA_DIR.
 */
export const BUNDLES: readonly { readonly folder: string; readonly sources: readonly string[] }[] = [
  {
    folder: 'mini-swe-agent-gemini3pro',
    sources: [
      'astropy__astropy-13398', // unresolved, 36 steps, peak 43,190
      'django__django-13344', // resolved, 44 steps, peak 43,173
      'psf__requests-1142', // resolved, 71 steps, peak 38,122 (drops an 868k-char submission)
      'matplotlib__matplotlib-23476', // unresolved, 24 steps, peak 29,331
    ].map((id) => `mini-swe-agent-gemini3pro/trajs/${id}/${id}.traj.json`),
  },
  {
    folder: 'openhands-codeact-sonnet35',
    sources: [
      // resolved, 34 steps, peak 34,442
      'django__django-10880/litellm_proxy__claude-3-5-sonnet-20241022-1733344161.351377.json',
      // unresolved, 33 steps, peak 42,563
      'astropy__astropy-14598/litellm_proxy__claude-3-5-sonnet-20241022-1733344123.160672.json',
      // unresolved, 50 steps, peak 53,401: hits max_iterations, so it ends on a normal call, not finish
      'django__django-10097/litellm_proxy__claude-3-5-sonnet-20241022-1733344469.791651.json',
    ].map((file) => `openhands-codeact-sonnet35-swebench-verified/llm_completions/${file}`),
  },
];

export interface Bundled {
  /** Relative to the repo root. */
  readonly file: string;
  readonly text: string;
}

/** Converts one source (relative to DATA_DIR) into its bundled scenario file. */
export async function bundle(folder: string, source: string): Promise<Bundled> {
  // Validated on import, so a bad conversion fails here rather than at replay time.
  const { data } = await importFile(path.join(DATA_DIR, source));
  // One-space indent keeps the files diffable at a fraction of the size of a wider indent.
  return { file: path.join('scenarios', folder, `${data.id}.json`), text: `${JSON.stringify(data, null, 1)}\n` };
}

async function main(): Promise<void> {
  for (const { folder, sources } of BUNDLES) {
    await mkdir(path.join(REPO_ROOT, 'scenarios', folder), { recursive: true });
    for (const source of sources) {
      const { file, text } = await bundle(folder, source);
      await writeFile(path.join(REPO_ROOT, file), text);
      console.log(`${file}  ${(Buffer.byteLength(text) / 1024).toFixed(0)} KB`);
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
