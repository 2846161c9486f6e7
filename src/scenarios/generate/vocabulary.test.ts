import { describe, expect, it } from 'vitest';
import { FACT_WORDS, FILLER_WORDS } from './vocabulary.js';

describe('vocabulary', () => {
  it('fact words never appear in filler vocabulary', () => {
    const filler = new Set(FILLER_WORDS.flatMap((w) => w.toLowerCase().split(/[^a-z]+/)));
    expect(FACT_WORDS.filter((w) => filler.has(w))).toEqual([]);
  });
});
