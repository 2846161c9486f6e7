/**
 * BROKEN ON PURPOSE: `bench verify` must fail it (test/verify.test.ts). It shortens long tool results
 * by writing to the messages it is given. Those are the run's history (ctxbench freezes them, so the
 * write throws): editing them in place would change what earlier requests recorded and what the next
 * step is built from. The fix: `withContent(message, shorter, strategyOrigin(name, 'truncated'))`,
 * a new message with the same id.
 */
import { defineStrategy } from 'ctxbench';

export default defineStrategy({
  name: 'broken-edits-in-place',
  summary: 'Truncates long tool results by editing them in place (breaks the no-in-place-edits rule on purpose)',
  params: {
    maxChars: { kind: 'integer', default: 200, min: 1, max: 1_000_000, description: 'Characters a tool result keeps.' },
  },
  create: ({ maxChars }) => ({
    beforeRequest: ({ messages }) => {
      for (const m of messages) if (m.role === 'tool' && m.content.length > maxChars) (m as { content: string }).content = m.content.slice(0, maxChars);
      return { messages };
    },
  }),
});
