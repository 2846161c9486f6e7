import type { StrategyDefinition } from '../core/strategy.js';

/** Baseline: sends the whole history every time, and overflows once it no longer fits the window. */
export const raw: StrategyDefinition = {
  name: 'raw',
  summary: 'Baseline: send the full history; overflows when it exceeds the window.',
  params: [],
  thresholds: () => [],
  create: () => ({ beforeRequest: ({ messages }) => ({ messages }) }),
};
