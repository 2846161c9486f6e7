import { describe, expect, it } from 'vitest';
import { makeFact } from './facts.js';
import { rngStream } from './random.js';
import { FACT_WORDS } from './vocabulary.js';
import { buildWorld } from './world.js';

describe('makeFact', () => {
  // Regression: `gen --steps 10000 --fact-density 50` (5,000 facts) never finished: the vocabulary asks about 4,300 questions.
  it('asks new questions past every question of the vocabulary, naming the words with the round number', () => {
    const rng = rngStream(1, 'facts');
    const world = buildWorld(rng, undefined);
    const used = { answers: new Set<string>(), questions: new Set<string>() };
    const facts = Array.from({ length: 5000 }, () => makeFact(rng, world, used));
    expect(used.questions.size).toBe(5000);
    const second = (question: string): boolean =>
      question.includes('flaky run 2 ') || FACT_WORDS.some((w) => question.includes(`${w}2`) || question.includes(`${w[0]!.toUpperCase()}${w.slice(1)}2`));
    // Every question of the first round (every one the vocabulary can ask), then the second's.
    const first = facts.findIndex((f) => second(f.question));
    expect(first).toBeGreaterThan(4000);
    expect(facts.slice(0, first).some((f) => second(f.question))).toBe(false);
    expect(facts.slice(first).every((f) => second(f.question))).toBe(true);
  });
});
