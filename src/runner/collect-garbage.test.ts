import { expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.js';

it('gives back, now, the memory of what nothing refers to any more', () => {
  collectGarbage();
  let held: { n: number }[] | undefined = Array.from({ length: 2_000_000 }, (_, n) => ({ n }));
  const before = process.memoryUsage().heapUsed;
  expect(held.length).toBe(2_000_000);
  held = undefined;
  collectGarbage();
  // Two million small objects and their array: about 60 MB.
  expect(before - process.memoryUsage().heapUsed).toBeGreaterThan(30_000_000);
});
