import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkUsage, isTokenCount, MAX_TOKEN_COUNT } from './usage.js';

// Fixtures: what servers have been seen to send in place of a token count.
const BAD_VALUES: readonly [string, unknown][] = [
  ['negative', -190],
  ['fractional', 12.5],
  ['huge', 1e300],
  ['a string', 'abc'],
  ['a numeric string', '120'],
  ['null', null],
  ['a boolean', true],
  ['an object', { tokens: 3 }],
];

const fields = (prompt: unknown, completion?: unknown, cached?: unknown) => ({
  promptTokens: ['usage.prompt_tokens', prompt] as const,
  completionTokens: ['usage.completion_tokens', completion] as const,
  cachedTokens: ['usage.prompt_tokens_details.cached_tokens', cached] as const,
});

describe('isTokenCount', () => {
  it('takes whole numbers from 0 to MAX_TOKEN_COUNT only', () => {
    expect([0, 1, 4096, MAX_TOKEN_COUNT].every(isTokenCount)).toBe(true);
    expect([-1, 0.5, MAX_TOKEN_COUNT + 1, Number.NaN, Infinity, '3', null, undefined].some(isTokenCount)).toBe(false);
  });
});

describe('checkUsage', () => {
  it('keeps valid counts as they are', () => {
    expect(checkUsage(fields(1200, 35, 1024))).toEqual({ usage: { promptTokens: 1200, completionTokens: 35, cachedTokens: 1024 }, invalid: [] });
  });

  it('leaves a field the provider did not send unknown, without a complaint', () => {
    expect(checkUsage(fields(undefined, undefined, undefined))).toEqual({ usage: {}, invalid: [] });
    expect(checkUsage({ promptTokens: ['prompt_eval_count', 10] })).toEqual({ usage: { promptTokens: 10 }, invalid: [] });
  });

  it.each(BAD_VALUES)('drops %s and names the field with its value', (_what, value) => {
    const { usage, invalid } = checkUsage(fields(value, 7));
    expect(usage).toEqual({ completionTokens: 7 });
    expect(invalid).toHaveLength(1);
    expect(invalid[0]!.field).toBe('usage.prompt_tokens');
    expect(invalid[0]!.problem).toMatch(/is not a token count \(a whole number from 0 to 1,000,000,000\)$/);
  });

  it('says what the value was, shortened', () => {
    expect(checkUsage(fields(-190)).invalid[0]!.problem).toMatch(/^-190 is not/);
    expect(checkUsage(fields(1e300)).invalid[0]!.problem).toMatch(/^1e\+300 is not/);
    expect(checkUsage(fields('abc')).invalid[0]!.problem).toMatch(/^"abc" is not/);
    expect(checkUsage(fields(null)).invalid[0]!.problem).toMatch(/^null is not/);
    expect(checkUsage(fields('x'.repeat(500))).invalid[0]!.problem.length).toBeLessThan(120);
  });

  it('refuses more cached tokens than prompt tokens, and cached tokens of an unknown prompt', () => {
    const over = checkUsage(fields(500, 1, 700));
    expect(over.usage).toEqual({ promptTokens: 500, completionTokens: 1 });
    expect(over.invalid).toEqual([{ field: 'usage.prompt_tokens_details.cached_tokens', problem: '700 is more than the 500 prompt tokens' }]);
    // With no prompt count there is nothing for a cached count to be a share of.
    expect(checkUsage(fields(undefined, 1, 300)).usage).toEqual({ completionTokens: 1 });
  });

  it('never throws, and keeps exactly the valid counts, over arbitrary JSON values (property)', () => {
    const value = fc.option(fc.oneof(fc.jsonValue(), fc.integer({ min: 0, max: 5000 }), fc.double()), { nil: undefined });
    fc.assert(
      fc.property(value, value, value, (prompt, completion, cached) => {
        const { usage, invalid } = checkUsage(fields(prompt, completion, cached));
        for (const count of [usage.promptTokens, usage.completionTokens, usage.cachedTokens]) {
          expect(count === undefined || isTokenCount(count)).toBe(true);
        }
        expect(usage.promptTokens).toBe(isTokenCount(prompt) ? prompt : undefined);
        expect(usage.completionTokens).toBe(isTokenCount(completion) ? completion : undefined);
        if (usage.cachedTokens !== undefined) expect(usage.cachedTokens).toBeLessThanOrEqual(usage.promptTokens!);
        // Every value that was sent and not kept is named, once.
        const sent = [
          ['usage.prompt_tokens', prompt, usage.promptTokens],
          ['usage.completion_tokens', completion, usage.completionTokens],
        ] as const;
        for (const [field, raw, kept] of sent) {
          expect(invalid.filter((i) => i.field === field)).toHaveLength(raw !== undefined && kept === undefined ? 1 : 0);
        }
        expect(invalid.every((i) => i.problem.length > 0 && !i.problem.includes('\n'))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
