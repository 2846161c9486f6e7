import { defineStrategy } from '../core/strategy.js';

/** Baseline: sends the whole history every time, and overflows once it no longer fits the window. */
export const rawStrategy = defineStrategy({
  name: 'raw',
  summary: 'Baseline: send the full history; overflows when it exceeds the window.',
  create: () => ({ beforeRequest: ({ messages }) => ({ messages }) }),
});
