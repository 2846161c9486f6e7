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
import { maskingStrategy } from '../strategies/masking.js';
import { defaultParams, type Params } from '../core/params.js';
import { rawStrategy } from '../strategies/raw.js';
import type { StrategyDefinition } from '../core/strategy.js';
import { replayScenario } from './replay.js';
import type { ReplayOptions } from './run-config.js';


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

const run = (scenario: Scenario, strategy: StrategyDefinition, window: number, counter: TokenCounter = o200k, params?: Params, extra: Partial<ReplayOptions> = {}) =>
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
    ...extra,
  });
const asking = (scenario: Scenario, strategy: StrategyDefinition, window: number, extra: Partial<ReplayOptions> = {}) =>
  run(scenario, strategy, window, o200k, undefined, { askProbes: true, ...extra });

describe('run metrics', () => {
  describe('probes', () => {
    it('raw keeps the planted fact verbatim', async () => {
      const result = await run(plantedScenario(), rawStrategy, 100_000);
      expect(result.probes).toEqual([{ probeId: 'budget', step: 3, answer: FACT, how: 'verbatim', file: undefined }]);
      expect(result.summary.probes).toEqual({ total: 1, verbatim: 1, summary: 0, recoverable: 0, lost: 0 });
    });

    it('masking that masks the planting output loses it', async () => {
      const scenario = plantedScenario();
      const full = o200k.countContext(scenario.messages.slice(0, 8));
      const result = await run(scenario, maskingStrategy, Math.ceil(full / 0.8));
      expect(result.events.find((e) => e.kind === 'masked')?.messageId).toBe('m0003');
      expect(result.probes[0]!.how).toBe('lost');
    });

    it('a probe at a step the run never reaches is unreached, and counts as lost', async () => {
      const result = await run(plantedScenario(), rawStrategy, 400);
      expect(result.summary.status).toBe('overflow');
      expect(result.probes[0]!.how).toBe('unreached');
      expect(result.summary.probes.lost).toBe(1);
    });
  });

  describe('probes asked (live runs)', () => {
    it('asks the question on top of the context sent, passes on a reply that holds the fact, and bills none of it', async () => {
      const [plain, asked] = [await run(plantedScenario(), rawStrategy, 100_000), await asking(plantedScenario(), rawStrategy, 100_000)];
      expect(asked.probes).toEqual([{ probeId: 'budget', step: 3, answer: FACT, how: 'verbatim', reply: expect.stringContaining(FACT), answered: true }]);
      expect(asked.summary.probes).toEqual({ total: 1, verbatim: 1, summary: 0, recoverable: 0, lost: 0, answered: 1 });
      const probeSteps = asked.steps.filter((s) => s.purpose === 'probe');
      expect(probeSteps).toHaveLength(1);
      expect(probeSteps[0]).toMatchObject({ step: 3, messageCount: 9 }); // the 8 messages sent at step 3, then the question
      // The measurement is not the strategy's cost: billing, calls and peak are the plain run's.
      for (const key of ['inputTokens', 'outputTokens', 'llmCalls', 'overheadTokens', 'peakContextTokens'] as const) expect(asked.summary[key]).toBe(plain.summary[key]);
      expect(plain.summary.probes.answered).toBeUndefined();
    });

    it('a fact masked out of the context is not answered', async () => {
      const scenario = plantedScenario();
      const result = await asking(scenario, maskingStrategy, Math.ceil(o200k.countContext(scenario.messages.slice(0, 8)) / 0.8));
      expect(result.probes[0]).toMatchObject({ how: 'lost', answered: false });
      expect(result.probes[0]!.reply).not.toContain('7341');
      expect(result.summary.probes.answered).toBe(0);
    });

    it('a probe the run never reaches is not answered', async () => {
      const result = await asking(plantedScenario(), rawStrategy, 400);
      expect(result.probes[0]).toMatchObject({ how: 'unreached', answered: false });
    });

    it('a question that no longer fits the window goes unanswered, with a warning', async () => {
      const scenario = plantedScenario();
      const result = await asking(scenario, rawStrategy, o200k.countContext(scenario.messages.slice(0, 8)));
      expect(result.summary.status).toBe('completed');
      expect(result.probes[0]).toMatchObject({ how: 'verbatim', reply: '', answered: false });
      expect(result.events.find((e) => e.kind === 'warning')?.detail).toMatch(/^probe budget: the question does not fit the window/);
    });

    it('a backend that fails the question ends the run with status error, as for any request', async () => {
      const result = await asking(plantedScenario(), rawStrategy, 100_000, { backend: createMockBackend(o200k, { failPurposes: ['probe'] }) });
      expect(result.summary).toMatchObject({ status: 'error', failedStep: 3, failure: 'mock: probe budget: mock: injected failure of the probe request' });
    });
  });

  describe('reference recall', () => {
    it('counts the facts the last turn uses that were first seen in a tool output', async () => {
      // "retry_budget_ms" and "7341": both first shown by the config read, both used by the last turn.
      expect((await run(plantedScenario(), rawStrategy, 100_000)).summary.referenceRecall).toEqual({ present: 2, total: 2 });
      const scenario = plantedScenario();
      const masked = await run(scenario, maskingStrategy, Math.ceil(o200k.countContext(scenario.messages.slice(0, 8)) / 0.8));
      expect(masked.summary.referenceRecall).toEqual({ present: 0, total: 2 });
    });
  });

  describe('tokens and cost', () => {
    it('cached input is the previous request of the session, message for message, when nothing was edited', async () => {
      const scenario = plantedScenario();
      const chars = counterFrom('chars4', (t) => Math.ceil(t.length / 4));
      const result = await run(scenario, rawStrategy, 100_000, chars);
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
      const base = await run(scenario, rawStrategy, 100_000, chars);
      const scaled = await run(scenario, rawStrategy, 100_000, scaledCounter(chars, 2));
      base.steps.forEach((s, i) => expect(scaled.steps[i]!.promptTokens).toBe(2 * (s.promptTokens - PER_CONTEXT_TOKENS) + PER_CONTEXT_TOKENS));
    });
  });
});
