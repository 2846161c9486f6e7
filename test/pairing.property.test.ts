/**
 * The pairing INVARIANT, proven by property: for EVERY registered strategy, every parameter setting
 * in its documented range and every generated history (parallel calls, empty and huge results,
 * unicode, user follow-ups, windows small enough to force back-to-back restarts), each context the
 * runner sends is well-paired and a subsequence of the history with the system prompt first.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkOrder, checkPairing } from '../src/core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../src/core/tokens.js';

import { parseScenario } from '../src/scenarios/scenario.js';
import type { ScenarioFileMessage } from '../src/scenarios/schema.js';
import { select } from '../src/strategies/index.js';
import { paramsFor } from './helpers/strategy-params.js';
import { recordedReplay } from './helpers/replay.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 4000 }).map((n) => 'output line\n'.repeat(n / 12)) },
);

/** One agent step: an assistant turn with 0..4 parallel calls, its results, maybe a user follow-up. */
const step = fc.record({
  thought: text,
  calls: fc.array(fc.record({ name: fc.constantFrom('bash', 'read_file', 'write_file', 'str_replace_editor', 'search'), output: text }), { maxLength: 4 }),
  followUp: fc.option(text, { freq: 6 }),
});

const history = fc.array(step, { minLength: 1, maxLength: 25 }).map((steps) => {
  const messages: ScenarioFileMessage[] = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Do the task.' },
  ];
  steps.forEach((s, i) => {
    const ids = s.calls.map((_, j) => `call_${i}_${j}`);
    messages.push({ role: 'assistant', content: s.thought, toolCalls: s.calls.map((c, j) => ({ id: ids[j]!, name: c.name, arguments: JSON.stringify({ path: `f${j}.py` }) })) });
    s.calls.forEach((c, j) => messages.push({ role: 'tool', toolCallId: ids[j]!, name: c.name, content: c.output }));
    if (s.followUp !== null) messages.push({ role: 'user', content: s.followUp });
  });
  return parseScenario({ ctxbench: 1, id: 'generated', model: { name: 'gpt-4o' }, messages }, 'generated.json');
});

describe.each(select(['all']))('pairing invariant: $name', (selection) => {
  const { strategy } = selection;
  it('holds for every context sent, every parameter setting and every history', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(history, paramsFor(selection), fc.integer({ min: 300, max: 20_000 }), async (scenario, params, window) => {
        const { run, requests } = await recordedReplay({ scenario, strategy, params, counter, model: 'gpt-4o', window, batchId: 'prop' });
        const sent = requests.map((r) => r.messages);
        expect(run.summary.status).not.toBe('invalid_context');
        run.events.forEach((e) => seen.add(e.kind));
        for (const context of sent) {
          expect(checkPairing(context, { request: true })).toEqual([]);
          expect(checkOrder(scenario.messages, context)).toBeUndefined();
        }
      }),
      { numRuns: 150 },
    );
    // The generator must reach the strategy's interesting paths, or the property proves little.
    if (strategy.name === 'masking') expect([...seen]).toEqual(expect.arrayContaining(['masked', 'wind_down', 'restart']));
    expect(seen.has('overflow') || strategy.name !== 'raw').toBe(true);
  });
});
