/**
 * BROKEN ON PURPOSE: `bench verify` must fail it (test/verify.test.ts). It masks each tool result the
 * model has already read with probability `maskShare`, drawn with Math.random: two runs of one task
 * send different contexts, so no result can be reproduced and a baseline compares noise. The fix: a
 * rule of the messages (age, size), or a seeded generator.
 */
import { defineStrategy, strategyOrigin, unseenFrom, withContent } from 'ctxbench';

export default defineStrategy({
  name: 'broken-random',
  summary: 'Masks tool results at random (breaks determinism on purpose)',
  params: {
    maskShare: { kind: 'fraction', default: 0.5, description: 'Share of read tool results masked.' },
  },
  create: ({ maskShare }) => ({
    beforeRequest: ({ messages }) => {
      const unseen = unseenFrom(messages);
      return {
        messages: messages.map((m, i) => (m.role === 'tool' && i < unseen && Math.random() < maskShare ? withContent(m, '[output masked]', strategyOrigin('broken-random', 'masked')) : m)),
      };
    },
  }),
});
