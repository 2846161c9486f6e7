/**
 * The layers import downward only, and no module imports itself through others (README
 * "Development"). Read from the sources with TypeScript's own pre-processor, so type-only imports,
 * re-exports and dynamic imports count like any other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

/**
 * What each layer (a folder of src/) may import besides itself. core is the vocabulary every layer
 * speaks; strategies see only core, so an outside strategy written against the public contract sees
 * what a built-in sees; the runner drives strategies, backends and metrics; the edges (store, gate,
 * report, the local server, the CLI) sit on top.
 */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  core: [],
  scenarios: ['core'],
  strategies: ['core'],
  llm: ['core'],
  metrics: ['core', 'scenarios'],
  runner: ['core', 'scenarios', 'strategies', 'llm', 'metrics'],
  store: ['core'],
  gate: ['core', 'metrics'],
  report: ['core', 'metrics', 'gate', 'store', 'llm'],
  server: ['core', 'llm'],
  // A strategy run inside an agent (`compact`, `ctxbench/ai-sdk`, `ctxbench/langchain`): the contract, the
  // built-ins, and the message converters and usage checks of the backend edge; never the runner, store or CLI.
  adapters: ['core', 'strategies', 'llm'],
  // The package's public API (`import ... from 'ctxbench'`): the contract, what a strategy builds on, `compact`.
  sdk: ['core', 'strategies', 'adapters'],
  // The project's properties as functions over a strategy (`bench verify`, the property tests): generated cases replayed by the runner.
  verify: ['core', 'scenarios', 'strategies', 'llm', 'metrics', 'runner'],
  cli: ['core', 'scenarios', 'strategies', 'llm', 'metrics', 'runner', 'verify', 'store', 'gate', 'report', 'server'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Every relative import of `file` (static, type-only, re-export, dynamic), as .ts paths. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
}

const layerOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!;
const rel = (file: string): string => path.relative(SRC, file);

const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));

describe('architecture', () => {
  it('puts every source file in a known layer', () => {
    const unknown = [...graph.keys()].filter((file) => LAYERS[layerOf(file)] === undefined).map(rel);
    expect(unknown).toEqual([]);
  });

  it('imports only from the same layer or the layers below it', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => layerOf(target) !== layerOf(file) && !LAYERS[layerOf(file)]!.includes(layerOf(target))).map((target) => `${rel(file)} -> ${rel(target)}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target].map(rel).join(' -> '));
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it("loads the agent frameworks (optional peer dependencies) only from their adapters' own entries", () => {
    const framework = /^(ai|langchain|@langchain\/[^/]+)(\/|$)/;
    const importers = [...graph.keys()].filter((file) => ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.some((f) => framework.test(f.fileName)));
    expect(importers.map(rel).sort()).toEqual(['adapters/ai-sdk.ts', 'adapters/langchain.ts']);
    // The AI SDK's types only: its adapter needs no `ai` at run time.
    expect(readFileSync(path.join(SRC, 'adapters/ai-sdk.ts'), 'utf8')).toMatch(/^import type \{[^}]*\} from 'ai';$/m);
    // `import 'ctxbench'` reaches neither entry.
    const reached = new Set<string>();
    const reach = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      graph.get(file)?.forEach(reach);
    };
    reach(path.join(SRC, 'sdk/index.ts'));
    expect([...reached].map(rel).filter((file) => importers.map(rel).includes(file))).toEqual([]);
  });

  it('reads the imports it checks (a relative import that resolves nowhere is a typo here)', () => {
    const missing = [...graph].flatMap(([file, imports]) => imports.filter((target) => !graph.has(target)).map((target) => `${rel(file)} -> ${rel(target)}`));
    expect(missing).toEqual([]);
  });
});
