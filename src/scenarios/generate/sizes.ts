/**
 * How large tool outputs are: the size in tokens drawn for each output, and the characters per token
 * that turn it into a length of text.
 */
import type { ResolvedGenerateOptions } from './options.js';
import type { Rng } from './random.js';

/**
 * Characters per o200k_base token of each kind of generated output, measured on generated scenarios
 * (listings and logs are denser than code); a test checks the median lands near the target.
 */
export const CPT = { code: 3.8, config: 2.7, log: 2.9, commits: 3.0, listing: 2.2, pip: 2.5, tests: 4.3, diff: 3.9, paths: 3.3, tsc: 3.5 } as const;

/**
 * Output size in tokens: log-normal around the median; the heavy tail replaces draws above the median
 * only (so the median stays put): 4-16x the median, one in six of them huge (30-100x); capped.
 */
export function drawTokens(rng: Rng, o: ResolvedGenerateOptions): number {
  const z = rng.normal();
  let tokens = o.outputTokens * Math.exp(0.6 * z);
  if (z > 0 && rng.chance(2 * o.heavyTailShare)) tokens = o.outputTokens * (rng.chance(1 / 6) ? rng.logUniform(30, 100) : rng.logUniform(4, 16));
  // Framing (line numbers, footers, headers) comes on top of the drawn size: keep a margin below the cap.
  return Math.max(8, Math.min(Math.floor(o.maxOutputTokens * 0.92), Math.round(tokens)));
}
