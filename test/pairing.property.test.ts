/**
 * The pairing INVARIANT, proven by property: for EVERY registered strategy, every parameter setting
 * in its documented range and every generated history (parallel calls, empty and huge results,
 * unicode, user follow-ups, file writes with content, windows small enough to force back-to-back
 * restarts), each request the strategy sends is well-paired and a subsequence of the history with the
 * system prompt first: agent requests and its summary, checkpoint and continuation requests alike,
 * seen as the strategy asks for them (a malformed helper request the runner refuses counts too), and
 * under reactive replay the agent's re-reads too.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkOrder, checkPairing } from '../src/core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../src/core/tokens.js';

import { parseScenario, type Scenario } from '../src/scenarios/scenario.js';
import type { ScenarioFileMessage } from '../src/scenarios/schema.js';
import { select, type Selection } from '../src/strategies/index.js';
import type { Message } from '../src/core/messages.js';
import { DEFAULT_REREAD_CAPS } from '../src/core/run-records.js';
import type { AuxiliaryLlm, StrategyDefinition } from '../src/core/strategy.js';
import { paramsFor } from './helpers/strategy-params.js';
import { recordedReplay } from './helpers/replay.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const lines = (tokens: number): string => 'output line\n'.repeat(Math.round(tokens / 3));
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 1000 }).map(lines) },
);
/** A fact a tool output shows and a later turn may use: what a reactive replay re-reads when a strategy took it out. */
const fact = fc.integer({ min: 0, max: 7 }).map((k) => `shared_fact_${k}`);
const withFact = (arbitrary: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.oneof({ weight: 1, arbitrary }, { weight: 1, arbitrary: fc.tuple(arbitrary, fact).map(([t, f]) => `${t}\n${f}`) });

const TOOLS = ['bash', 'read_file', 'write_file', 'edit_file', 'str_replace_editor', 'search'] as const;

/** A call's arguments: file writes carry the content they write (offload's pointer rewrite takes it). */
function callArguments(name: (typeof TOOLS)[number], path: string, content: string, create: boolean): string {
  if (name === 'write_file') return JSON.stringify({ path, content });
  if (name === 'edit_file') return JSON.stringify({ path, old_text: 'x', new_text: content });
  if (name === 'str_replace_editor') return JSON.stringify(create ? { command: 'create', path, file_text: content } : { command: 'str_replace', path, old_str: 'x', new_str: content });
  return JSON.stringify({ path });
}

/**
 * Generated histories: one agent step is an assistant turn with 0..4 parallel calls, its results,
 * maybe a user follow-up. With `hugeTokens`, a result is now and then of about that many tokens.
 */
function histories(hugeTokens = 0): fc.Arbitrary<Scenario> {
  const huge = fc.integer({ min: hugeTokens / 2, max: hugeTokens }).map(lines);
  const output = withFact(hugeTokens > 0 ? fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: huge }) : text);
  const call = fc.record({ name: fc.constantFrom(...TOOLS), output, content: text, create: fc.boolean() });
  const step = fc.record({ thought: withFact(text), calls: fc.array(call, { maxLength: 4 }), followUp: fc.option(text, { freq: 6 }) });
  return fc.array(step, { minLength: 1, maxLength: 25 }).map((steps) => {
    const messages: ScenarioFileMessage[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Do the task.' },
    ];
    steps.forEach((s, i) => {
      const ids = s.calls.map((_, j) => `call_${i}_${j}`);
      messages.push({ role: 'assistant', content: s.thought, toolCalls: s.calls.map((c, j) => ({ id: ids[j]!, name: c.name, arguments: callArguments(c.name, `f${j}.py`, c.content, c.create) })) });
      s.calls.forEach((c, j) => messages.push({ role: 'tool', toolCallId: ids[j]!, name: c.name, content: c.output }));
      if (s.followUp !== null) messages.push({ role: 'user', content: s.followUp });
    });
    return parseScenario({ ctxbench: 1, id: 'generated', model: { name: 'gpt-4o' }, messages }, 'generated.json');
  });
}

/**
 * The strategy, with every helper request (summary, checkpoint, continuation) it asks for recorded as
 * it asks: before the runner admits it, so a request the runner would refuse is seen too.
 */
function spied(strategy: StrategyDefinition, asked: (readonly Message[])[]): StrategyDefinition {
  const spy = (llm: AuxiliaryLlm): AuxiliaryLlm => (request) => (asked.push(request.messages), llm(request));
  return {
    ...strategy,
    create(params) {
      const run = strategy.create(params);
      const afterResponse = run.afterResponse?.bind(run);
      return {
        beforeRequest: (input) => run.beforeRequest({ ...input, llm: spy(input.llm) }),
        ...(afterResponse ? { afterResponse: (input: Parameters<typeof afterResponse>[0]) => afterResponse({ ...input, llm: spy(input.llm) }) } : {}),
      };
    },
  };
}

/**
 * Windows and histories that reach the selection's trigger: from 300 tokens (back-to-back restarts)
 * to 20,000; a trigger set in tokens above that (Anthropic's 100,000) gets windows above it and
 * histories with results of up to a quarter of it, so it fires.
 */
function workload({ preset }: Selection): { history: fc.Arbitrary<Scenario>; window: fc.Arbitrary<number> } {
  const trigger = Number(preset?.params['triggerTokens'] ?? 0);
  if (trigger <= 20_000) return { history: histories(), window: fc.integer({ min: 300, max: 20_000 }) };
  return { history: histories(trigger / 4), window: fc.integer({ min: Math.round(trigger * 1.3), max: trigger * 2 }) };
}

describe.each(select(['all']))('pairing invariant: $name', (selection) => {
  const { strategy } = selection;
  it('holds for every request sent, helper requests included, every parameter setting and every history', async () => {
    const seen = new Set<string>();
    const { history, window: windows } = workload(selection);
    await fc.assert(
      fc.asyncProperty(history, paramsFor(selection), windows, fc.boolean(), async (scenario, params, window, reactive) => {
        const asked: (readonly Message[])[] = [];
        const replay = reactive ? { mode: 'reactive' as const, caps: DEFAULT_REREAD_CAPS } : undefined;
        const { run, requests } = await recordedReplay({ scenario, strategy: spied(strategy, asked), params, counter, model: 'gpt-4o', window, batchId: 'prop', replay });
        expect(run.summary.status).not.toBe('invalid_context');
        expect(run.events.filter((e) => e.kind === 'pairing_violation')).toEqual([]);
        run.events.forEach((e) => seen.add(`${e.kind}: ${e.detail}`));
        for (const context of [...requests.map((r) => r.messages), ...asked]) {
          expect(checkPairing(context, { request: true })).toEqual([]);
          // Re-reads are the agent's own exchanges, after the history they recover from: the order rule is the recorded messages'.
          expect(checkOrder(scenario.messages, context.filter((m) => !m.id.startsWith('reread-')))).toBeUndefined();
        }
      }),
      { numRuns: 150 },
    );
    // The generator must reach the strategy's interesting paths, or the property proves little.
    const reached = (pattern: RegExp): boolean => [...seen].some((e) => pattern.test(e));
    if (!selection.preset && ['masking', 'clear-tool-results', 'summarization'].includes(strategy.name)) expect(reached(/^reread: /)).toBe(true);
    if (strategy.name === 'masking') for (const kind of ['masked', 'wind_down', 'restart']) expect(reached(new RegExp(`^${kind}:`))).toBe(true);
    if (strategy.name === 'clear-tool-results') expect(reached(/^masked: .* cleared$/)).toBe(true);
    if (strategy.name === 'offload') expect(reached(/^offloaded: tier 2: file-write arguments saved/)).toBe(true);
    if (strategy.name === 'continuation' || strategy.name === 'checkpoint-restart') expect(reached(/^(continuation|checkpoint):/)).toBe(true);
    expect(reached(/^overflow:/) || strategy.name !== 'raw').toBe(true);
  });
});
