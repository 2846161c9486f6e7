import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODELS, normalizeModelName, resolveModel, SMALLEST_KNOWN_WINDOW, type ModelInfo } from './models.js';

// ---------------------------------------------------------------------------------------------------
// Named fixtures.
// ---------------------------------------------------------------------------------------------------

const byName = (name: string): ModelInfo => {
  const model = MODELS.find((m) => m.name === name);
  if (!model) throw new Error(`fixture: ${name} is not in MODELS`);
  return model;
};

const GPT_4O = byName('gpt-4o');
const GPT_4O_MINI = byName('gpt-4o-mini');
const CLAUDE_35_SONNET = byName('claude-3-5-sonnet');
const GEMINI_3_PRO = byName('gemini-3-pro-preview');
const QWEN_CODER_7B = byName('qwen2.5-coder:7b');

const DATED_SNAPSHOTS = [
  ['claude-3-5-sonnet-20241022', CLAUDE_35_SONNET],
  ['gpt-4o-2024-08-06', GPT_4O],
  ['gpt-4o-mini-2024-07-18', GPT_4O_MINI], // the longest matching name wins over "gpt-4o"
] as const;

const ROUTED_NAMES = [
  ['openrouter/google/gemini-3-pro-preview', GEMINI_3_PRO],
  ['litellm_proxy/claude-3-5-sonnet-20241022', CLAUDE_35_SONNET],
  ['ollama/qwen2.5-coder:7b', QWEN_CODER_7B],
  ['openai/gpt-4o-mini', GPT_4O_MINI],
  // AWS Bedrock ids, as the OpenHands logs record them
  ['litellm_proxy/anthropic.claude-3-5-sonnet-20241022-v2:0', CLAUDE_35_SONNET],
] as const;

const UNKNOWN_NAMES = ['my-finetune-v2', 'mistral-large-latest', 'openrouter/meta-llama/llama-3.3-70b-instruct', 'gpt-4', ''] as const;

const CUSTOM_REGISTRY: readonly ModelInfo[] = [
  { name: 'big', contextWindow: 100_000 },
  { name: 'tiny', contextWindow: 4_096 },
  { name: 'mid', contextWindow: 16_384 },
];

// ---------------------------------------------------------------------------------------------------

describe('models', () => {
  describe('MODELS', () => {
    it('has unique, already-normalized names', () => {
      const names = MODELS.map((m) => m.name);
      expect(new Set(names).size).toBe(names.length);
      for (const name of names) expect(normalizeModelName(name)).toBe(name);
    });

    it('has positive windows and non-negative prices', () => {
      for (const model of MODELS) {
        expect(model.contextWindow).toBeGreaterThan(0);
        for (const price of Object.values(model.price ?? {})) expect(price).toBeGreaterThanOrEqual(0);
      }
    });
  });

  describe('SMALLEST_KNOWN_WINDOW', () => {
    it('is the smallest window in the registry', () => {
      expect(SMALLEST_KNOWN_WINDOW).toBe(Math.min(...MODELS.map((m) => m.contextWindow)));
      expect(SMALLEST_KNOWN_WINDOW).toBe(32_768);
    });
  });

  describe('normalizeModelName', () => {
    it.each([
      ['openrouter/google/gemini-3-pro-preview', 'gemini-3-pro-preview'],
      ['litellm_proxy/claude-3-5-sonnet-20241022', 'claude-3-5-sonnet-20241022'],
      ['ollama/qwen2.5-coder:7b', 'qwen2.5-coder:7b'],
      ['  GPT-4o  ', 'gpt-4o'],
      ['gpt-4o', 'gpt-4o'],
    ] as const)('%j -> %j', (name, expected) => {
      expect(normalizeModelName(name)).toBe(expected);
    });
  });

  describe('resolveModel', () => {
    describe('exact names', () => {
      it.each(MODELS.map((m) => [m.name, m] as const))('%s', (name, model) => {
        expect(resolveModel(name)).toEqual({ ...model, known: true });
      });

      it('ignores case and surrounding whitespace', () => {
        expect(resolveModel(' Claude-3-5-Sonnet ')).toEqual({ ...CLAUDE_35_SONNET, known: true });
      });
    });

    describe('dated snapshots', () => {
      it.each(DATED_SNAPSHOTS)('%s -> %s', (name, model) => {
        expect(resolveModel(name)).toEqual({ ...model, known: true });
      });
    });

    describe('routing prefixes', () => {
      it.each(ROUTED_NAMES)('%s', (name, model) => {
        expect(resolveModel(name)).toEqual({ ...model, known: true });
      });

      it('property: any routing prefix and casing resolves to the same model', () => {
        const segment = fc.stringMatching(/^[a-z0-9_.-]{1,12}$/);
        fc.assert(
          fc.property(fc.constantFrom(...MODELS), fc.array(segment, { maxLength: 3 }), fc.boolean(), (model, prefixes, upper) => {
            const name = [...prefixes, upper ? model.name.toUpperCase() : model.name].join('/');
            expect(resolveModel(name)).toEqual({ ...model, known: true });
          }),
        );
      });
    });

    describe('unknown models (seed 001: the smallest known window)', () => {
      it.each(UNKNOWN_NAMES)('%j', (name) => {
        const resolved = resolveModel(name);
        expect(resolved).toEqual({ name: normalizeModelName(name), contextWindow: SMALLEST_KNOWN_WINDOW, known: false });
        expect(resolved.price).toBeUndefined();
      });

      it('uses the smallest window of the registry it is given', () => {
        expect(resolveModel('other', CUSTOM_REGISTRY)).toEqual({ name: 'other', contextWindow: 4_096, known: false });
        expect(resolveModel('mid-2025', CUSTOM_REGISTRY)).toEqual({ name: 'mid', contextWindow: 16_384, known: true });
      });

      it('property: a name no registry entry prefixes is unknown and gets the smallest window', () => {
        fc.assert(
          fc.property(fc.string({ maxLength: 30 }), (name) => {
            const wanted = normalizeModelName(name);
            fc.pre(!MODELS.some((m) => wanted.startsWith(m.name)));
            const resolved = resolveModel(name);
            expect(resolved.known).toBe(false);
            expect(resolved.contextWindow).toBe(SMALLEST_KNOWN_WINDOW);
          }),
        );
      });
    });
  });
});
