/**
 * The adapters' engine sends what `bench run` sends: for EVERY strategy and preset, generated
 * conversations fed to a compaction run one request at a time, as an agent loop feeds them (the whole
 * history each time), give the same contexts, step by step, as a replay of the same conversation on
 * the mock, with the same events; summaries are written by the same mock. Every context is
 * well-paired.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompactionStopped, createCompactionRun, type CompactionStep } from '../src/adapters/compaction-run.js';
import type { Message } from '../src/core/messages.js';
import { checkPairing } from '../src/core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../src/core/tokens.js';
import { createMockBackend } from '../src/llm/mock.js';
import { parseScenario, type Scenario } from '../src/scenarios/scenario.js';
import { turns } from '../src/scenarios/turns.js';
import type { ScenarioFileMessage } from '../src/scenarios/schema.js';
import { select, type Selection } from '../src/strategies/index.js';
import { recordedReplay } from './helpers/replay.js';
import { paramsFor, triggerOf, workload } from '../src/verify/generators.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const TOOLS = ['bash', 'read_file', 'write_file', 'str_replace_editor', 'search'];

/** An agent turn: up to three calls in parallel (file writes with their content) with outputs of any size, sometimes a user message after it. */
const agentTurn = fc.record({
  thought: fc.string({ maxLength: 30 }),
  calls: fc.array(
    fc.record({
      tool: fc.constantFrom(...TOOLS),
      written: fc.nat({ max: 2000 }).map((n) => 'x = 1\n'.repeat(n / 6)),
      output: fc.oneof(fc.string({ maxLength: 50 }), fc.nat({ max: 3000 }).map((n) => 'ls -la output\n'.repeat(n / 14))),
    }),
    { maxLength: 3 },
  ),
  userAfter: fc.option(fc.string({ minLength: 1, maxLength: 40 }), { freq: 5 }),
});

const conversation = fc.array(agentTurn, { minLength: 1, maxLength: 20 }).map((agentTurns): Scenario => {
  const messages: ScenarioFileMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Make the tests pass.' },
  ];
  agentTurns.forEach(({ thought, calls, userAfter }, t) => {
    const toolCalls = calls.map((c, k) => ({ id: `call_${t}_${k}`, name: c.tool, arguments: JSON.stringify({ path: `src/f${k}.py`, content: c.written }) }));
    messages.push({ role: 'assistant', content: thought, toolCalls });
    calls.forEach((c, k) => messages.push({ role: 'tool', toolCallId: toolCalls[k]!.id, content: c.output }));
    if (userAfter !== null) messages.push({ role: 'user', content: userAfter });
  });
  return parseScenario({ ctxbench: 1, id: 'conversation', model: { name: 'gpt-4o' }, messages }, 'conversation.json');
});

/**
 * Feeds `scenario` to a compaction run as an agent would: before turn t, the history up to it; then
 * once more with the whole history (the request after the last answer), so the strategy hears of the
 * last response as the replay's does. Stops where the run does.
 */
async function agentLoop(scenario: Scenario, run: ReturnType<typeof createCompactionRun>): Promise<{ steps: Pick<CompactionStep, 'messages' | 'events' | 'tokens'>[]; stopped?: string }> {
  const steps: Pick<CompactionStep, 'messages' | 'events' | 'tokens'>[] = [];
  const ends = [...turns(scenario).map((t) => t.index), scenario.messages.length];
  for (const [request, end] of ends.entries()) {
    try {
      steps.push(await run.step({ history: scenario.messages.slice(0, end) }));
    } catch (error) {
      if (!(error instanceof CompactionStopped)) throw error;
      // A stop the replay sees too: before a recorded turn, or in answer to the last one.
      const seenByReplay = request < ends.length - 1 || error.message.includes('stopped the agent after step');
      return { steps: [...steps, { messages: [], events: error.events, tokens: 0 }], ...(seenByReplay ? { stopped: error.message } : {}) };
    }
    if (steps.at(-1)!.events.some((e) => e.kind === 'overflow')) break; // where the replay's run ends
  }
  return { steps };
}

/** What each strategy's (or preset's) runs must have done between them (the paths worth comparing). */
const REACHED: Readonly<Record<string, readonly string[]>> = {
  masking: ['masked', 'restart'],
  'clear-tool-results': ['masked'],
  'checkpoint-restart': ['checkpoint', 'restart'],
  continuation: ['continuation'],
  window: ['removed'],
  hybrid: ['summarized'],
  'progressive-removal': ['removed'],
  offload: ['offloaded'],
  summarization: ['summarized'],
  'jetbrains-masking': ['masked'],
  'anthropic-clear-tool-uses': ['masked'],
  deepagents: ['summarized'],
  codex: ['summarized'],
  goose: ['summarized'],
};

/**
 * The conversations and windows a selection is tried on: a preset's trigger set in tokens above what
 * these conversations reach (Anthropic's 100,000) gets bench verify's larger histories and windows
 * above it, so it fires.
 */
function casesFor(selection: Selection): { history: fc.Arbitrary<Scenario>; window: fc.Arbitrary<number> } {
  const trigger = selection.preset ? triggerOf(fc.sample(paramsFor(selection), 1)[0]!) : 0;
  return trigger > 12_000 ? workload(trigger) : { history: conversation, window: fc.integer({ min: 300, max: 12_000 }) };
}

describe.each(select(['all']))('an agent loop through the adapters sends what bench run sends: $name', (selection) => {
  const { strategy, preset } = selection;
  it('every context and event, step by step, for generated conversations and windows', async () => {
    const seen = new Set<string>();
    const cases = casesFor(selection);
    const reached = REACHED[preset?.name ?? strategy.name];
    await fc.assert(
      fc.asyncProperty(cases.history, paramsFor(selection), cases.window, async (scenario, values, window) => {
        const mock = createMockBackend(counter); // the summaries bench run's mock writes
        const options = preset ? { strategy: preset.name } : { strategy: strategy.name, params: values };
        const compaction = createCompactionRun({ ...options, window }, async (request) => (await mock.complete({ ...request, window })).message.content);
        const { steps, stopped } = await agentLoop(scenario, compaction);
        const { params } = compaction.strategy;
        const { run: replay, requests } = await recordedReplay({ scenario, strategy, params, counter, model: 'gpt-4o', window, batchId: 'p' });

        const sent = requests.filter((r) => r.purpose === 'agent').map((r) => r.messages);
        const { status } = replay.summary;
        // The replay sends no overflowing context (the adapter sends it, with an overflow event), and
        // has no request after the last answer.
        const last = turns(scenario).length;
        const contexts = steps.slice(0, stopped === undefined ? last : -1).map((s) => s.messages);
        expect(contexts).toEqual(status === 'overflow' ? [...sent, expect.anything()] : sent);
        if (status === 'overflow') expect(steps.at(-1)!.tokens).toBeGreaterThan(window);
        expect(stopped !== undefined).toBe(status === 'stopped');
        // Events up to the last answer (what the strategy did for a request after it, the replay never asks).
        const byStrategy = (events: readonly { kind: string; step: number }[]) => events.filter((e) => e.kind !== 'overflow' && e.kind !== 'stopped' && e.step < last);
        expect(byStrategy(steps.flatMap((s) => s.events))).toEqual(byStrategy(replay.events));
        for (const context of steps.map((s) => s.messages as Message[])) expect(checkPairing(context, { request: true })).toEqual([]);
        steps.forEach((s) => s.events.forEach((e) => seen.add(e.kind)));
      }),
      // With a coverage check below, 100 cases: hybrid summarizes in about 1 case in 7 (50 of 300,
      // 27 of 200 measured; the others in 1 in 4 or more), so 25 missed it about once in 50 runs, and a
      // fresh-clone run drew one.
      { numRuns: reached ? 100 : 25 },
    );
    // The generator must reach what the strategy does, or the property proves little.
    expect([...seen]).toEqual(expect.arrayContaining([...(reached ?? [])]));
  });
});
