/**
 * The bundled suite in scenarios/synthetic/ (`bench scenarios gen --suite -o scenarios/synthetic/`):
 * short to long tasks with different output sizes, tails and fact densities, small enough to ship.
 */
import type { GenerateOptions } from './options.js';

export const SYNTHETIC_SUITE: readonly GenerateOptions[] = [
  { steps: 60, seed: 1, outputTokens: 400, factDensity: 10 },
  { steps: 120, seed: 6, outputTokens: 150, factDensity: 8, parallelShare: 0.25 },
  { steps: 120, seed: 2, outputTokens: 100, heavyTailShare: 0.2, factDensity: 15, followUpShare: 0.06 },
  { steps: 250, seed: 3, outputTokens: 80, factDensity: 6, followUpShare: 0.05 },
  { steps: 40, seed: 7, outputTokens: 600, maxOutputTokens: 6000, factDensity: 20, model: 'claude-sonnet-4' },
];
