/**
 * Hostile input is contained (issue 13): a seeded corpus of 1,000 hostile and clumsy scenario files
 * (test/helpers/hostile-corpus.ts) goes in-process through loading, validation and a masking replay.
 * Each file either loads and replays to a run with a status, or is refused with a CtxbenchError: one
 * line naming the file, no stack. Nothing may crash (any other exception) or hang (each case runs
 * under its own test timeout).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CtxbenchError } from '../src/core/errors.js';
import { createTokenCounter, type TokenCounter } from '../src/core/tokens.js';
import { defaultParams } from '../src/core/params.js';
import { createMockBackend } from '../src/llm/mock.js';
import { replayScenario } from '../src/runner/replay.js';
import { importFileAll } from '../src/scenarios/load.js';
import { maskingStrategy } from '../src/strategies/masking.js';
import { hostileCorpus } from './helpers/hostile-corpus.js';

const SEED = 13;
const CASES = hostileCorpus(SEED, 1000);
const dir = mkdtempSync(path.join(tmpdir(), 'ctxbench-hostile-'));
const outcomes = { loaded: 0, refused: 0, statuses: new Set<string>() };

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

describe(`hostile scenario files (seed ${SEED})`, () => {
  it('the corpus is 1,000 files of every format, each edited', () => {
    expect(CASES).toHaveLength(1000);
    expect(new Set(CASES.map((c) => c.name.split(':')[0]!.split(' ')[1]))).toEqual(
      new Set(['ctxbench', 'openai-chat', 'openai-chat-jsonl', 'anthropic-messages', 'openhands-litellm', 'tau-bench', 'swe-agent', 'mini-swe-agent', 'openhands-events']),
    );
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, hostile) => {
    const file = path.join(dir, hostile.file);
    writeFileSync(file, hostile.text);
    let loaded;
    try {
      loaded = await importFileAll(file);
    } catch (error) {
      expect(error).toBeInstanceOf(CtxbenchError);
      const message = (error as Error).message;
      expect(message).toContain(file);
      expect(message).not.toMatch(/\n\s+at /);
      outcomes.refused += 1;
      return;
    }
    outcomes.loaded += 1;
    const backend = createMockBackend(counter);
    for (const { scenario, format } of loaded.slice(0, 2)) {
      const run = await replayScenario({ scenario, sourceFormat: format, strategy: maskingStrategy, params: defaultParams(maskingStrategy.params), backend, counter, model: scenario.model.name, window: 4096, batchId: 'fuzz' });
      // A file that loads is a valid scenario: masking (its defaults restart without limit, never stop)
      // keeps it well-paired (no invalid_context) and never throws (no error).
      expect(['completed', 'overflow'], run.summary.failure ?? '').toContain(run.summary.status);
      outcomes.statuses.add(run.summary.status);
    }
  });

  it('both outcomes occur: the corpus is neither all valid nor all broken', () => {
    expect(outcomes.loaded).toBeGreaterThan(50);
    expect(outcomes.refused).toBeGreaterThan(50);
    // And the replays of what loaded both complete and overflow the small window.
    expect(outcomes.statuses).toEqual(new Set(['completed', 'overflow']));
  });
});
