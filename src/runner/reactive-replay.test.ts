import { beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../core/backend.js';
import { strategyOrigin, userMessage, withContent, type Message } from '../core/messages.js';
import { checkPairing } from '../core/pairing.js';
import { defaultParams } from '../core/params.js';
import { DEFAULT_REREAD_CAPS, type RereadCaps } from '../core/run-records.js';
import { defineStrategy, type StrategyDefinition } from '../core/strategy.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import { rawStrategy } from '../strategies/raw.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { parseScenario, type Scenario } from '../scenarios/scenario.js';
import type { Probe, ScenarioFileMessage } from '../scenarios/schema.js';
import { REREAD_PURPOSE } from '../core/run-records.js';
import { replayScenario } from './replay.js';
import { searchExcerpt, WHOLE_READ_CHARS } from './recovery.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const call = (id: string, command: string) => ({ id, name: 'bash', arguments: JSON.stringify({ command }) });

/**
 * A small task: the agent reads a file that names `load_settings_file`, lists a folder, then greps for
 * that function: the third turn uses a string only the first tool result held.
 */
function handMade(firstOutput = 'def load_settings_file(path):\n    return parse(path)\n', probes: readonly Probe[] = []): Scenario {
  const messages: ScenarioFileMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the settings loader.' },
    { role: 'assistant', content: '', toolCalls: [call('c1', 'cat settings.py')] },
    { role: 'tool', toolCallId: 'c1', content: firstOutput },
    { role: 'assistant', content: '', toolCalls: [call('c2', 'ls tests')] },
    { role: 'tool', toolCallId: 'c2', content: 'test_loader.py\n' },
    { role: 'assistant', content: '', toolCalls: [call('c3', 'grep -rn load_settings_file .')] },
    { role: 'tool', toolCallId: 'c3', content: 'settings.py:1:def load_settings_file(path):' },
    { role: 'assistant', content: 'Done.' },
  ];
  return parseScenario({ ctxbench: 1, id: 'hand-made', model: { name: 'gpt-4o' }, messages, probes }, 'hand-made.json');
}

/** Replaces every tool result but the newest with a placeholder (a test strategy, like masking with no threshold). */
const keepNewestResult = defineStrategy({
  name: 'keep-newest-result',
  summary: 'every tool result but the newest becomes a placeholder',
  create: () => ({
    beforeRequest: ({ messages }) => {
      const newest = messages.findLastIndex((m) => m.role === 'tool');
      return { messages: messages.map((m, i) => (m.role === 'tool' && i !== newest ? withContent(m, '[output cleared]', strategyOrigin('keep-newest-result', 'masked')) : m)) };
    },
  }),
});

/** Offloads every tool result but the newest to the store, leaving its path. */
const offloadOld = defineStrategy({
  name: 'offload-old',
  summary: 'every tool result but the newest goes to the store, its path left in place',
  create: () => ({
    beforeRequest: ({ messages, files }) => {
      const newest = messages.findLastIndex((m) => m.role === 'tool');
      return {
        messages: messages.map((m, i) => {
          if (m.role !== 'tool' || i === newest || m.content.startsWith('[saved to')) return m;
          const at = files.write(`/tool_outputs/${m.toolCallId}.txt`, m.content);
          return withContent(m, `[saved to ${at}]`, strategyOrigin('offload-old', 'offloaded'));
        }),
      };
    },
  }),
});

/** Replaces the first tool result by a summary message that keeps its function name. */
const summarizeFirst = defineStrategy({
  name: 'summarize-first',
  summary: 'the first exchange becomes a summary that names the function',
  create: () => ({
    beforeRequest: ({ messages }) => {
      if (!messages.some((m) => m.id === 'm0005')) return { messages };
      const summary = userMessage({ id: 'summary', content: 'Summary: settings.py defines load_settings_file.', origin: strategyOrigin('summarize-first', 'summary') });
      return { messages: [...messages.slice(0, 2), summary, ...messages.slice(2).filter((m) => m.id !== 'm0002' && m.id !== 'm0003')] };
    },
  }),
});

/** Clears every tool result, the newest included: what a re-read brings back is gone before the next request. */
const clearAll = defineStrategy({
  name: 'clear-all',
  summary: 'every tool result becomes a placeholder',
  create: () => ({
    beforeRequest: ({ messages }) => ({ messages: messages.map((m) => (m.role === 'tool' ? withContent(m, '[cleared]', strategyOrigin('clear-all', 'masked')) : m)) }),
  }),
});

function spy(): { backend: Backend; contexts: (readonly Message[])[] } {
  const contexts: (readonly Message[])[] = [];
  const mock = createMockBackend(counter);
  return { contexts, backend: { name: 'mock', complete: (request) => (contexts.push([...request.messages]), mock.complete(request)) } };
}

const reactive = (scenario: Scenario, strategy: StrategyDefinition, { window = 100_000, caps = DEFAULT_REREAD_CAPS }: { window?: number; caps?: RereadCaps } = {}) => {
  const { backend, contexts } = spy();
  const run = replayScenario({
    scenario,
    sourceFormat: 'ctxbench',
    strategy,
    params: defaultParams(strategy.params),
    backend,
    counter,
    model: 'gpt-4o',
    window,
    batchId: 'b1',
    replay: { mode: 'reactive', caps },
  });
  return { run, contexts };
};

describe('reactive replay', () => {
  it('re-runs the recorded call whose result the strategy cleared, as one billed request before the turn that uses it', async () => {
    const { run: running, contexts } = reactive(handMade(), keepNewestResult);
    const run = await running;
    expect(run.summary.status).toBe('completed');
    expect(run.steps.map((s) => s.purpose)).toEqual(['agent', 'agent', REREAD_PURPOSE, 'agent', 'agent']);
    expect(run.summary).toMatchObject({ steps: 4, totalSteps: 4, llmCalls: 5 });
    expect(run.summary.recovery).toEqual({ rereads: 1, rereadInputTokens: run.steps[2]!.promptTokens, summaryReferences: 0, lostReferences: 0, capHits: 0 });
    expect(run.summary.referenceRecall).toEqual({ present: 1, total: 1 });
    // The request after the re-read holds the recorded call again and its recorded result.
    const after = contexts[3]!;
    const reread = after.at(-2)!;
    expect(reread.role === 'assistant' && reread.toolCalls[0]).toMatchObject({ name: 'bash', arguments: JSON.stringify({ command: 'cat settings.py' }) });
    expect(after.at(-1)).toMatchObject({ role: 'tool', content: 'def load_settings_file(path):\n    return parse(path)\n' });
    expect(run.events.filter((e) => e.kind === 'reread').map((e) => e.detail)).toEqual(["re-ran bash (c1) for 1 of the turn's strings: load_settings_file"]);
    for (const c of contexts) expect(checkPairing(c, { request: true })).toEqual([]);
    // Billed: the re-read's prompt is in the input tokens; not a helper call's overhead.
    expect(run.summary.inputTokens).toBe(run.steps.reduce((sum, s) => sum + s.promptTokens, 0));
    expect(run.summary.overheadTokens).toBe(0);
  });

  it('reads an offloaded file back through its pointer; a large one is searched, not read whole', async () => {
    const small = await reactive(handMade(), offloadOld).run;
    const reread = small.events.find((e) => e.kind === 'reread');
    expect(reread?.detail).toBe("read /tool_outputs/c1.txt for 1 of the turn's strings: load_settings_file");

    const fillerLines = Math.ceil(WHOLE_READ_CHARS / 6);
    const large = `${'x = 1\n'.repeat(fillerLines)}def load_settings_file(path):\n`;
    const { run: running, contexts } = reactive(handMade(large), offloadOld);
    const run = await running;
    expect(run.events.find((e) => e.kind === 'reread')?.detail).toBe("searched /tool_outputs/c1.txt for 1 of the turn's strings: load_settings_file");
    const result = contexts[3]!.at(-1)!;
    expect(result.content).toBe(`${fillerLines + 1}:def load_settings_file(path):`);
  });

  it('trusts a summary that holds the string: no re-read, counted apart', async () => {
    const run = await reactive(handMade(), summarizeFirst).run;
    expect(run.summary.recovery).toMatchObject({ rereads: 0, summaryReferences: 1, lostReferences: 0 });
    expect(run.summary.referenceRecall).toEqual({ present: 1, total: 1 });
  });

  it('counts a string its re-read did not bring back as lost, without reading it again; a cap stops re-reads with an event', async () => {
    const cleared = await reactive(handMade(), clearAll).run;
    expect(cleared.summary.recovery).toMatchObject({ rereads: 1, lostReferences: 1, capHits: 0 });
    expect(cleared.summary.referenceRecall).toEqual({ present: 0, total: 1 });

    const capped = await reactive(handMade(), keepNewestResult, { caps: { perTurn: 0, perRun: 10 } }).run;
    expect(capped.summary.recovery).toMatchObject({ rereads: 0, lostReferences: 1, capHits: 1 });
    expect(capped.events.filter((e) => e.kind === 'reread_cap').map((e) => e.detail)).toEqual(['1 re-read(s) not made: the cap of 0 per turn was reached']);
    const perRun = await reactive(handMade(), keepNewestResult, { caps: { perTurn: 5, perRun: 0 } }).run;
    expect(perRun.events.find((e) => e.kind === 'reread_cap')?.detail).toBe('1 re-read(s) not made: the cap of 0 per run was reached');
  });

  it('a probe whose planted fact is gone triggers the same re-read (of the call that showed it), and then passes verbatim', async () => {
    const scenario = handMade('PORT = 48213\n', [{ id: 'port', step: 2, question: 'Which port?', answer: '48213' }]);
    const forced = await replayScenario({ scenario, sourceFormat: 'ctxbench', strategy: keepNewestResult, params: {}, backend: spy().backend, counter, model: 'gpt-4o', window: 100_000, batchId: 'b1' });
    expect(forced.probes.map((p) => p.how)).toEqual(['lost']);
    const run = await reactive(scenario, keepNewestResult).run;
    expect(run.probes.map((p) => p.how)).toEqual(['verbatim']);
    expect(run.events.filter((e) => e.kind === 'reread').map((e) => e.detail)).toEqual(["re-ran bash (c1) for 1 of the turn's strings: 48213"]);
  });

  it('raw at a window that fits re-reads nothing and sends what a forced replay sends', async () => {
    const scenario = scenarioOf(sweScenarioMessages(30, 2000));
    const { run: running, contexts } = reactive(scenario, rawStrategy);
    const run = await running;
    expect(run.summary.recovery).toEqual({ rereads: 0, rereadInputTokens: 0, summaryReferences: 0, lostReferences: 0, capHits: 0 });
    const forced = spy();
    await replayScenario({ scenario, sourceFormat: 'ctxbench', strategy: rawStrategy, params: {}, backend: forced.backend, counter, model: 'gpt-4o', window: 100_000, batchId: 'b1' });
    expect(contexts).toEqual(forced.contexts);
  });
});

describe('searchExcerpt', () => {
  it('gives each string its first line, numbered, as written or JSON-escaped, cut around the match', () => {
    const archive = `{"content":"a\\"quoted\\" word"}\nplain line with needle_value here\n${'y'.repeat(500)}deep_target${'z'.repeat(500)}`;
    expect(searchExcerpt(archive, ['needle_value', 'a"quoted"', 'deep_target', 'absent_one'])).toBe(
      ['2:plain line with needle_value here', '1:{"content":"a\\"quoted\\" word"}', `3:...${'y'.repeat(200)}deep_target${'z'.repeat(200)}...`].join('\n'),
    );
  });
});
