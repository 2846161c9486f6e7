/**
 * The run-level metrics on small hand-computed scenarios: probes, reference recall, cached input,
 * cost, mean context, and that a calibrated counter scales what the run records.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { counterFrom, createTokenCounter, PER_CONTEXT_TOKENS, type TokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import { scaledCounter } from '../metrics/calibration.js';
import { parseScenario, type Scenario } from '../scenarios/scenario.js';
import type { ScenarioFileMessage } from '../scenarios/schema.js';
import { masking } from '../strategies/masking.js';
import { defaultParams } from '../strategies/params.js';
import { raw } from '../strategies/raw.js';
import type { StrategyDefinition } from '../strategies/types.js';
import { replayScenario } from './replay.js';
import type { Params } from './types.js';

let o200k: TokenCounter;
beforeAll(async () => {
  o200k = await createTokenCounter('o200k_base');
});

const FACT = 'retry_budget_ms=7341';
const filler = (label: string): string => Array.from({ length: 60 }, (_, i) => `${label} line ${i}: nothing to see here`).join('\n');

/** Task; a tool output plants FACT at step 0; two big outputs; the probe asks for FACT before step 3. */
function plantedScenario(): Scenario {
  const messages: ScenarioFileMessage[] = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Fix the retry logic.' },
    { role: 'assistant', content: 'Read the config.', toolCalls: [{ id: 'c0', name: 'read_file', arguments: '{"path":"config/app.ini"}' }] },
    { role: 'tool', toolCallId: 'c0', content: `[retry]\n${FACT}\n${filler('config')}` },
    { role: 'assistant', content: 'Look at the code.', toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"cat src/retry.py"}' }] },
    { role: 'tool', toolCallId: 'c1', content: filler('code') },
    { role: 'assistant', content: 'Run the tests.', toolCalls: [{ id: 'c2', name: 'bash', arguments: '{"command":"pytest"}' }] },
    { role: 'tool', toolCallId: 'c2', content: filler('test') },
    { role: 'assistant', content: 'The budget retry_budget_ms=7341 is too low; raising it.' },
  ];
  return parseScenario(
    { ctxbench: 1, id: 'planted', model: { name: 'gpt-4o' }, probes: [{ id: 'budget', step: 3, question: 'What is the retry budget?', answer: FACT }], messages },
    'planted.json',
  );
}

const run = (scenario: Scenario, strategy: StrategyDefinition, window: number, counter: TokenCounter = o200k, params?: Params) =>
  replayScenario({
    scenario,
    sourceFormat: 'ctxbench',
    strategy,
    params: params ?? defaultParams(strategy.params),
    backend: createMockBackend(counter),
    counter,
    model: 'gpt-4o',
    window,
    batchId: 'm',
  });

describe('run metrics', () => {
  describe('probes', () => {
    it('raw keeps the planted fact verbatim', async () => {
      const result = await run(plantedScenario(), raw, 100_000);
      expect(result.probes).toEqual([{ probeId: 'budget', step: 3, answer: FACT, how: 'verbatim', file: undefined }]);
      expect(result.summary.probes).toEqual({ total: 1, verbatim: 1, summary: 0, recoverable: 0, lost: 0 });
    });

    it('masking that masks the planting output loses it', async () => {
      const scenario = plantedScenario();
      const full = o200k.countContext(scenario.messages.slice(0, 8));
      const result = await run(scenario, masking, Math.ceil(full / 0.8));
      expect(result.events.find((e) => e.kind === 'masked')?.messageId).toBe('m0003');
      expect(result.probes[0]!.how).toBe('lost');
    });

    it('a probe at a step the run never reaches is unreached, and counts as lost', async () => {
      const result = await run(plantedScenario(), raw, 400);
      expect(result.summary.status).toBe('overflow');
      expect(result.probes[0]!.how).toBe('unreached');
      expect(result.summary.probes.lost).toBe(1);
    });
  });

  describe('reference recall', () => {
    it('counts the facts the last turn uses that were first seen in a tool output', async () => {
      // "retry_budget_ms" and "7341": both first shown by the config read, both used by the last turn.
      expect((await run(plantedScenario(), raw, 100_000)).summary.referenceRecall).toEqual({ present: 2, total: 2 });
      const scenario = plantedScenario();
      const masked = await run(scenario, masking, Math.ceil(o200k.countContext(scenario.messages.slice(0, 8)) / 0.8));
      expect(masked.summary.referenceRecall).toEqual({ present: 0, total: 2 });
    });
  });

  describe('tokens and cost', () => {
    it('cached input is the previous request of the session, message for message, when nothing was edited', async () => {
      const scenario = plantedScenario();
      const chars = counterFrom('chars4', (t) => Math.ceil(t.length / 4));
      const result = await run(scenario, raw, 100_000, chars);
      // Step k resends step k-1's whole context: its tokens minus the reply priming are cached.
      const expected = result.steps.slice(0, -1).reduce((sum, s) => sum + s.promptTokens - PER_CONTEXT_TOKENS, 0);
      expect(result.summary.cachedInputTokens).toBe(expected);
      const [input, cached, output] = [result.summary.inputTokens, expected, result.summary.outputTokens];
      expect(result.summary.costUsd).toBeCloseTo(((input - cached) * 2.5 + cached * 1.25 + output * 10) / 1e6, 12);
      expect(result.summary.meanContextPct).toBeCloseTo(result.steps.reduce((s, x) => s + x.contextPct, 0) / result.steps.length, 12);
    });

    it('a calibrated counter scales what the run records', async () => {
      const scenario = plantedScenario();
      const chars = counterFrom('chars4', (t) => Math.ceil(t.length / 4));
      const base = await run(scenario, raw, 100_000, chars);
      const scaled = await run(scenario, raw, 100_000, scaledCounter(chars, 2));
      base.steps.forEach((s, i) => expect(scaled.steps[i]!.promptTokens).toBe(2 * (s.promptTokens - PER_CONTEXT_TOKENS) + PER_CONTEXT_TOKENS));
    });
  });
});
