/**
 * BROKEN ON PURPOSE: `bench verify` must fail it (test/verify.test.ts). It saves tokens by dropping
 * every tool result but the newest `keepResults`, and keeps the assistant turns that made those
 * calls: each old call is left without its answer, a context every provider refuses (OpenAI and
 * Anthropic answer 400). `bench verify` names the rule (unmatched_tool_use) and shows the messages.
 * The fix: drop a call's whole round (the assistant turn with all its results), as `rounds()` cuts.
 */
import { defineStrategy, type Message } from 'ctxbench';

export default defineStrategy({
  name: 'broken-drops-results',
  summary: 'Drops old tool results but keeps their calls (breaks the pairing rule on purpose)',
  params: {
    keepResults: { kind: 'integer', default: 2, min: 0, max: 1000, description: 'Tool results kept, the newest ones.' },
  },
  create: ({ keepResults }) => ({
    beforeRequest: ({ messages }) => {
      const results = messages.filter((m) => m.role === 'tool');
      const dropped = new Set<Message>(results.slice(0, Math.max(0, results.length - keepResults)));
      return { messages: messages.filter((m) => !dropped.has(m)) };
    },
  }),
});
