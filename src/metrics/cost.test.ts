import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODELS, type ModelInfo, type Price } from '../core/models.js';
import { costUsd, priceFor, type BilledTokens } from './cost.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures (prices in USD per million tokens, as core/models.ts lists them).
// ---------------------------------------------------------------------------------------------------

const GPT_4O: Price = { input: 2.5, cachedInput: 1.25, output: 10 };
const CLAUDE_35_SONNET: Price = { input: 3, cachedInput: 0.3, output: 15 };
const GPT_4O_MINI: Price = { input: 0.15, cachedInput: 0.075, output: 0.6 };
const GEMINI_3_PRO: Price = { input: 2, cachedInput: 0.2, output: 12 };
const LOCAL: Price = { input: 0, cachedInput: 0, output: 0 };

/** A million input tokens, 400k of them cached, and 100k output. */
const MILLION_RUN: BilledTokens = { input: 1_000_000, cachedInput: 400_000, output: 100_000 };
/** A small agent step: 12k prompt with a 10k cached prefix, 500 out. */
const AGENT_STEP: BilledTokens = { input: 12_000, cachedInput: 10_000, output: 500 };
const NOTHING: BilledTokens = { input: 0, cachedInput: 0, output: 0 };

const NO_PRICE_REGISTRY: readonly ModelInfo[] = [{ name: 'house-model', contextWindow: 8_192 }];

describe('cost', () => {
  describe('costUsd', () => {
    it('bills uncached input, cached input and output at their own rates', () => {
      // 600k * 2.5 + 400k * 1.25 + 100k * 10, per million: 1.5 + 0.5 + 1.0
      expect(costUsd(GPT_4O, MILLION_RUN)).toBeCloseTo(3.0, 12);
      // 2k * 3 + 10k * 0.3 + 500 * 15, per million: 0.006 + 0.003 + 0.0075
      expect(costUsd(CLAUDE_35_SONNET, AGENT_STEP)).toBeCloseTo(0.0165, 12);
    });

    it('without caching, all input is billed at the input rate', () => {
      // 2M * 0.15 + 0 + 1M * 0.6, per million
      expect(costUsd(GPT_4O_MINI, { input: 2_000_000, cachedInput: 0, output: 1_000_000 })).toBeCloseTo(0.9, 12);
    });

    it('a fully cached request bills only the cached rate', () => {
      expect(costUsd(GEMINI_3_PRO, { input: 50_000, cachedInput: 50_000, output: 0 })).toBeCloseTo(0.01, 12);
    });

    it('local models cost zero dollars for the same tokens', () => {
      expect(costUsd(LOCAL, MILLION_RUN)).toBe(0);
    });

    it('no tokens cost nothing', () => {
      expect(costUsd(GPT_4O, NOTHING)).toBe(0);
    });

    it('an unknown price is an unknown cost, not 0', () => {
      expect(costUsd(undefined, MILLION_RUN)).toBeUndefined();
      expect(costUsd(undefined, NOTHING)).toBeUndefined();
    });

    it('cached input above input is billed as all cached', () => {
      // min(1500, 1000) = 1000 cached tokens at 1.25 per million
      expect(costUsd(GPT_4O, { input: 1_000, cachedInput: 1_500, output: 0 })).toBeCloseTo(0.00125, 12);
    });

    it.each([
      ['negative input', { input: -1, cachedInput: 0, output: 0 }],
      ['negative cached input', { input: 10, cachedInput: -5, output: 0 }],
      ['NaN output', { input: 10, cachedInput: 0, output: Number.NaN }],
      ['infinite input', { input: Number.POSITIVE_INFINITY, cachedInput: 0, output: 0 }],
    ])('rejects %s', (_what, tokens) => {
      expect(() => costUsd(GPT_4O, tokens)).toThrow(RangeError);
    });

    it('is additive over requests, and caching never costs more (every registry price)', () => {
      const prices = MODELS.flatMap((m) => (m.price ? [m.price] : []));
      const tokens = fc
        .record({ input: fc.nat(5_000_000), share: fc.double({ min: 0, max: 1, noNaN: true }), output: fc.nat(1_000_000) })
        .map(({ input, share, output }) => ({ input, cachedInput: Math.floor(input * share), output }));
      fc.assert(
        fc.property(fc.constantFrom(...prices), tokens, tokens, (price, a, b) => {
          const sum = { input: a.input + b.input, cachedInput: a.cachedInput + b.cachedInput, output: a.output + b.output };
          expect(costUsd(price, sum)!).toBeCloseTo(costUsd(price, a)! + costUsd(price, b)!, 9);
          expect(costUsd(price, a)!).toBeLessThanOrEqual(costUsd(price, { ...a, cachedInput: 0 })! + 1e-12);
          expect(costUsd(price, a)!).toBeGreaterThanOrEqual(0);
        }),
      );
    });
  });

  describe('priceFor', () => {
    it.each([
      ['gpt-4o', GPT_4O],
      ['gpt-4o-mini-2024-07-18', GPT_4O_MINI],
      ['openrouter/google/gemini-3-pro-preview', GEMINI_3_PRO], // mini-swe-agent's recorded name
      ['litellm_proxy/anthropic.claude-3-5-sonnet-20241022-v2:0', CLAUDE_35_SONNET], // OpenHands' recorded name
      ['ollama/qwen2.5-coder:7b', LOCAL],
    ])('%s', (model, price) => {
      expect(priceFor(model)).toEqual(price);
    });

    it('an unknown model has no price', () => {
      expect(priceFor('my-finetune-v2')).toBeUndefined();
      expect(costUsd(priceFor('my-finetune-v2'), MILLION_RUN)).toBeUndefined();
    });

    it('a known model listed without a price has no price', () => {
      expect(priceFor('house-model', NO_PRICE_REGISTRY)).toBeUndefined();
    });

    it('prices a recorded run end to end', () => {
      // gemini-3-pro-preview: 2k fresh * 2 + 10k cached * 0.2 + 500 * 12, per million
      expect(costUsd(priceFor('google/gemini-3-pro-preview'), AGENT_STEP)).toBeCloseTo(0.004 + 0.002 + 0.006, 12);
    });
  });
});
