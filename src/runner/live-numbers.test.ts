/**
 * What a replay stores from a provider's usage (a live backend): cached input only as the provider
 * reports it, usage values that are no token count dropped with a warning, and silent truncation as
 * the run's own status. The backends here answer like a live server, without one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Backend, ChatResponse } from '../core/backend.js';
import { assistantMessage } from '../core/messages.js';
import { LOCAL_PRICE_MODEL } from '../core/models.js';
import { defaultParams } from '../core/params.js';
import { createTokenCounter, PER_MESSAGE_TOKENS, type TokenCounter } from '../core/tokens.js';
import { scaledCounter } from '../metrics/calibration.js';
import { rawStrategy } from '../strategies/raw.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { replayScenario } from './replay.js';
import type { ReplayOptions } from './run-config.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const REPLY = assistantMessage({ id: 'reply', content: 'ok' });

/**
 * A live-like backend: the provider counts the prompt as the runner does and answers one token;
 * `answer` changes that per request (i: the request's index, local: the runner's count).
 */
function provider(answer: (local: number, i: number) => Partial<ChatResponse> = () => ({})): Backend {
  let i = 0;
  return {
    name: 'ollama:chat:test',
    async complete(request) {
      const local = counter.countContext(request.messages);
      return { message: REPLY, usage: { promptTokens: local, completionTokens: 1 }, usageSource: 'provider', ...answer(local, i++) };
    },
  };
}

const scenario = () => scenarioOf(sweScenarioMessages(6, 400));
const replay = (backend: Backend, extra: Partial<ReplayOptions> = {}) =>
  replayScenario({ scenario: scenario(), sourceFormat: 'ctxbench', strategy: rawStrategy, params: defaultParams(rawStrategy.params), backend, counter, model: 'gpt-4o', window: 100_000, batchId: 'b', ...extra });

describe('cached input of a live run (regression: a live Ollama run showed "cached 103.3%")', () => {
  it('is unknown when the provider reports none (Ollama), never the local prefix estimate', async () => {
    const run = await replay(provider());
    expect(run.summary.status).toBe('completed');
    expect(run.summary.cachedInputTokens).toBeUndefined();
    // Billed as all fresh input: nothing is known to have been cached.
    const { inputTokens, outputTokens } = run.summary;
    expect(run.summary.costUsd).toBeCloseTo((inputTokens * 2.5 + outputTokens * 10) / 1e6, 12);
  });

  it("is the sum of the provider's cached tokens over the billed requests when it reports them", async () => {
    const run = await replay(provider((local) => ({ usage: { promptTokens: local, completionTokens: 1, cachedTokens: 100 } })));
    expect(run.summary.cachedInputTokens).toBe(100 * run.summary.llmCalls);
    const { inputTokens, outputTokens } = run.summary;
    const cached = 100 * run.summary.llmCalls;
    expect(run.summary.costUsd).toBeCloseTo(((inputTokens - cached) * 2.5 + cached * 1.25 + outputTokens * 10) / 1e6, 12);
  });

  it('costs nothing at the local price model', async () => {
    expect((await replay(provider(), { priceModel: LOCAL_PRICE_MODEL })).summary.costUsd).toBe(0);
  });
});

describe('usage values that are no token count (regression: a crash, or a lost run)', () => {
  const invalid = { field: 'usage.prompt_tokens', problem: '-190 is not a token count (a whole number from 0 to 1,000,000,000)' };

  it('counts the request locally, stores no provider count and warns once per run naming the field', async () => {
    const run = await replay(provider(() => ({ usage: { completionTokens: 1 }, invalidUsage: [invalid] })));
    expect(run.summary.status).toBe('completed');
    expect(run.steps.every((s) => s.usageSource === 'local' && s.providerPromptTokens === undefined)).toBe(true);
    const warnings = run.events.filter((e) => e.kind === 'warning');
    expect(warnings.map((e) => [e.step, e.detail])).toEqual([
      [0, 'usage.prompt_tokens = -190 is not a token count (a whole number from 0 to 1,000,000,000): ignored, stored as unknown (NULL)'],
    ]);
    // The run's other numbers stand: the local counts, as for a provider that reports no usage.
    expect(run.summary.inputTokens).toBe(run.steps.reduce((sum, s) => sum + s.promptTokens, 0));
  });

  it('counts an answer whose completion count is unknown locally, never as 0', async () => {
    const run = await replay(provider((local) => ({ usage: { promptTokens: local } })));
    expect(run.steps.every((s) => s.completionTokens === counter.countMessage(REPLY) - PER_MESSAGE_TOKENS)).toBe(true);
  });
});

describe('silent truncation (regression: completed at peak 16% with one warning event)', () => {
  /** From request 3 on, the provider counts half of what was sent, as Ollama does past num_ctx. */
  const truncating = () => provider((local, i) => ({ usage: { promptTokens: i >= 3 ? Math.floor(local / 2) : local, completionTokens: 1 } }));

  it('replays every step, then ends the run as truncated from the first truncated step', async () => {
    const run = await replay(truncating());
    expect(run.summary).toMatchObject({ status: 'truncated', failedStep: 3, steps: 7, totalSteps: 7 });
    expect(run.summary.failure).toMatch(/^the provider counted \d+ prompt tokens at step 3, the local estimate is \d+: the server cut the prompt \(Ollama: num_ctx above the model's context length\)$/);
    expect(run.events.filter((e) => e.kind === 'warning' && e.detail.startsWith('suspected truncation')).map((e) => e.step)).toEqual([3, 4, 5, 6]);
  });

  it('leaves a run that ended otherwise with its own status', async () => {
    const stopped = await replay(truncating(), { window: counter.countContext(scenario().messages.slice(0, 12)) });
    expect(stopped.summary.status).toBe('overflow');
  });

  it("holds the provider's count against the tokenizer's, not the count calibrated toward the recorded model's provider", async () => {
    // The scenario was recorded on a model whose tokenizer counts 30% more: the live model's does not.
    const calibrated = await replay(provider(), { counter: scaledCounter(counter, 1.3, 200), calibration: { factor: 1.3, overhead: 200 } });
    expect(calibrated.summary.status).toBe('completed');
    expect(calibrated.events.filter((e) => e.kind === 'warning')).toEqual([]);
  });

  it('is not suspected from a prompt count that was no count (regression: null raised it)', async () => {
    const run = await replay(provider(() => ({ usage: { completionTokens: 1 }, invalidUsage: [{ field: 'usage.prompt_tokens', problem: 'null is not a token count' }] })));
    expect(run.summary.status).toBe('completed');
    expect(run.events.some((e) => e.detail.startsWith('suspected truncation'))).toBe(false);
  });
});
