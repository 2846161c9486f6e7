import { beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, strategyOrigin, type Message, type ToolMessage } from '../core/messages.js';
import { checkOrder, checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import type { MockOptions } from '../llm/mock.js';

import { loadScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import { linesOmitted } from './clear-tool-results.js';
import { CALL_TO_ACTION, hybridStrategy, layout, SUMMARY_SECTIONS, SUMMARY_TEMPLATE, summaryRequest, turnsToSummarize, type HybridParams } from './hybrid.js';
import { type Params } from '../core/params.js';
import { AuxiliaryCallError, resolveStrategyParams, type StrategyInput, type StrategyRun } from '../core/strategy.js';
import { parallel, round, say, scenarioOf, sweScenarioMessages, sys, user } from '../../test/helpers/history.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { recordingLlm, strategyInput } from '../../test/helpers/strategy-input.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const REAL_SCENARIO = 'scenarios/openhands-codeact-sonnet35/django__django-10880.json';
const SUMMARY = '## USER_CONTEXT\n- fix the parser in src/parse.py';

const params = (...assignments: string[]) => resolveStrategyParams(hybridStrategy, assignments);
/** Small N and M so a handful of turns reaches the trigger; no pressure trigger unless asked. */
const small = (...more: string[]) => params('summarizeTurns=3', 'keepTurns=2', 'trigger=1', ...more);

/** An auxiliary LLM that records each request and answers with `answer` (or throws it). */
const fakeLlm = (answer: string | Error = SUMMARY) => recordingLlm(answer);

const input = (messages: readonly Message[], extra: Partial<StrategyInput> = {}): StrategyInput => strategyInput(counter, messages, 1_000_000, extra);

async function plan(run: StrategyRun, i: StrategyInput) {
  const p = await run.beforeRequest(i);
  return { ...p, events: [...(p.events ?? [])] };
}

const output = (label: string, lines = 20): string => Array.from({ length: lines }, (_, i) => `${label} line ${i}`).join('\n');
const turns = (n: number, from = 0): Message[] => Array.from({ length: n }, (_, i) => round('bash', output(`out${from + i}`), { command: `cat file_${from + i}.py` })).flat();
const tools = (messages: readonly Message[]): ToolMessage[] => messages.filter((m): m is ToolMessage => m.role === 'tool');

async function replay(scenario: Scenario, window: number, p: Params = params(), mockOptions: MockOptions = {}) {
  const { run, requests } = await recordedReplay({ scenario, strategy: hybridStrategy, params: p, counter, model: 'gpt-4o', window, batchId: 'hybrid-test', mock: mockOptions });
  return { run, contexts: requests.map((r) => r.messages), purposes: requests.map((r) => r.purpose) };
}

describe('hybrid', () => {
  describe('turns', () => {
    it('splits the session into head (system prompt, task), the summary and turns that start at assistant messages', () => {
      const [s, task] = [sys(), user('task')];
      const summary = assistantMessage({ id: 'hybrid:summary:1', content: 'Checkpoint', origin: strategyOrigin('hybrid', 'summary') });
      const t1 = round('bash', 'one');
      const t2 = [...parallel(['a', 'b']), user('and the docs')];
      const t3 = [say('Done.')];
      expect(layout([s, task, summary, ...t1, ...t2, ...t3])).toEqual({ head: [s, task], summary, turns: [t1, t2, t3] });
      expect(layout([s, task])).toEqual({ head: [s, task], summary: undefined, turns: [] });
    });

    it('summarizes N once N+M turns are held, all but M under pressure, and nothing otherwise', () => {
      const p = { summarizeTurns: 21, keepTurns: 10, keepObservations: 10, trigger: 0.9 } satisfies HybridParams;
      expect(turnsToSummarize(30, false, p)).toBe(0);
      expect(turnsToSummarize(31, false, p)).toBe(21);
      expect(turnsToSummarize(35, false, p)).toBe(21);
      expect(turnsToSummarize(15, true, p)).toBe(5);
      expect(turnsToSummarize(40, true, p)).toBe(30);
      expect(turnsToSummarize(10, true, p)).toBe(0);
    });
  });

  describe('summary (the paper\'s N and M)', () => {
    it('waits until N+M turns are held', async () => {
      const { llm, requests } = fakeLlm();
      const h = [sys(), user('task'), ...turns(4)];
      const result = await plan(hybridStrategy.create(small()), input(h, { llm }));
      expect(requests).toHaveLength(0);
      expect(result.messages).toBe(h);
    });

    it('replaces the oldest N turns by one summary after the task and keeps the last M verbatim', async () => {
      const { llm, requests } = fakeLlm();
      const [s, task] = [sys('You are a coding agent.'), user('Fix src/parse.py')];
      const h = [s, task, ...turns(5)];
      const result = await plan(hybridStrategy.create(small()), input(h, { llm, step: 7 }));
      expect(requests).toHaveLength(1);
      const summary = result.messages[2]!;
      expect(summary).toMatchObject({ role: 'assistant', id: 'hybrid:summary:7', content: `Checkpoint for the last 3 turns:\n${SUMMARY}` });
      expect(summary.origin).toEqual({ source: 'strategy', strategy: 'hybrid', action: 'summary' });
      expect(result.messages).toEqual([s, task, summary, ...h.slice(-4)]);
      expect(result.events.map((e) => e.kind)).toEqual(['summarized']);
      expect(result.events[0]).toMatchObject({ messageId: summary.id, detail: 'summarized 3 turns, kept the last 2' });
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
      expect(checkOrder(h, result.messages)).toBeUndefined();
    });

    it('asks a tool-less request: the system prompt, the turns as <TURN-i> text, the paper\'s template last', async () => {
      const { llm, requests } = fakeLlm();
      const h = [sys(), user('Fix src/parse.py'), ...turns(5)];
      await plan(hybridStrategy.create(small()), input(h, { llm }));
      const request = requests[0]!;
      expect(request.purpose).toBe('summary');
      expect(request.expect).toEqual({ sections: SUMMARY_SECTIONS });
      expect(request.messages[0]).toBe(h[0]);
      expect(request.messages.slice(1).map((m) => m.role)).toEqual(['user', 'user']);
      expect(checkPairing(request.messages, { request: true })).toEqual([]);
      const [, body, instruction] = request.messages;
      expect(body!.content).toMatch(/^<PROBLEM_STATEMENT>\nFix src\/parse.py\n<\/PROBLEM_STATEMENT>\n\n<TURN-0>\nASSISTANT: Next step.\nACTION: bash \{"command":"cat file_0.py"\}\nTOOL: out0 line 0\n/);
      expect(body!.content).toContain('</TURN-2>');
      expect(body!.content).not.toContain('<TURN-3>');
      expect(instruction!.content).toBe(`${SUMMARY_TEMPLATE}\n\n${CALL_TO_ACTION}`);
      expect(SUMMARY_TEMPLATE).toMatch(/^You are maintaining a context-aware state summary for an interactive agent\./);
    });

    it('keeps only the latest summary, and shows the previous one to the summarizer', async () => {
      const { llm, requests } = fakeLlm();
      const run = hybridStrategy.create(small());
      const first = await plan(run, input([sys(), user('task'), ...turns(5)], { llm, step: 5 }));
      const appended = [...first.messages, ...turns(3, 5)];
      const second = await plan(run, input(appended, { llm, step: 8 }));
      expect(requests).toHaveLength(2);
      expect(requests[1]!.messages[1]!.content).toMatch(/^<PREVIOUS_CHECKPOINT>\nCheckpoint for the last 3 turns:\n## USER_CONTEXT/);
      expect(requests[1]!.messages[1]!.content).not.toContain('PROBLEM_STATEMENT');
      const summaries = second.messages.filter((m) => m.origin.source === 'strategy' && m.origin.action === 'summary');
      expect(summaries.map((m) => m.id)).toEqual(['hybrid:summary:8']);
      expect(second.messages.slice(3)).toEqual(appended.slice(-4));
      expect(checkPairing(second.messages, { request: true })).toEqual([]);
    });
  });

  describe('masking (the paper\'s last_n_observations)', () => {
    it('masks all but the last keepObservations outputs on every request, ids kept', async () => {
      const h = [sys(), user('task'), ...turns(4)];
      const result = await plan(hybridStrategy.create(params('keepObservations=2')), input(h, { llm: fakeLlm().llm }));
      const before = tools(h);
      expect(tools(result.messages).map((m) => m.content)).toEqual([linesOmitted(before[0]!.content), linesOmitted(before[1]!.content), before[2]!.content, before[3]!.content]);
      expect(tools(result.messages).map((m) => m.id)).toEqual(before.map((m) => m.id));
      expect(result.events.map((e) => e.kind)).toEqual(['masked', 'masked']);
      expect(tools(result.messages)[0]!.content).toBe('Old environment output: (20 lines omitted)');
    });

    it('never masks the results of the latest assistant turn', async () => {
      const h = [sys(), user('task'), ...turns(2), ...parallel([output('p'), output('q')])];
      const result = await plan(hybridStrategy.create(params('keepObservations=1')), input(h, { llm: fakeLlm().llm }));
      expect(tools(result.messages).slice(-2).map((m) => m.content)).toEqual([output('p'), output('q')]);
    });

    it('lets the summarizer read the original outputs of masked turns', async () => {
      const { llm, requests } = fakeLlm();
      const run = hybridStrategy.create(small('keepObservations=1'));
      const first = await plan(run, input([sys(), user('task'), ...turns(3)], { llm }));
      expect(tools(first.messages)[0]!.content).toBe(linesOmitted(output('out0')));
      await plan(run, input([...first.messages, ...turns(2, 3)], { llm, step: 1 }));
      expect(requests[0]!.messages[1]!.content).toContain(`TOOL: ${output('out0')}`);
    });

    it('reports outputs masked and summarized in the same step as summarized only', async () => {
      const h = [sys(), user('task'), ...turns(5)];
      const result = await plan(hybridStrategy.create(small('keepObservations=1')), input(h, { llm: fakeLlm().llm }));
      expect(result.events.map((e) => [e.kind, e.messageId])).toEqual([
        ['masked', tools(h)[3]!.id], // turn 3 stays (M=2) but only the last output is kept
        ['summarized', 'hybrid:summary:0'],
      ]);
      expect(tools(result.messages).map((m) => m.content)).toEqual([linesOmitted(output('out3')), output('out4')]);
    });

    it('writes the turns as the context holds them (masked) when the originals would not fit the window', async () => {
      const { llm, requests } = fakeLlm();
      const run = hybridStrategy.create(small('keepObservations=1'));
      const h = [sys(), user('task'), ...round('bash', output('huge', 400)), ...turns(4, 1)];
      const masked = (await plan(hybridStrategy.create(params('keepObservations=1', 'summarizeTurns=100')), input(h))).messages;
      const view = layout(masked);
      const withOriginals = counter.countContext(summaryRequest(layout(h), layout(h).turns.slice(0, 3), 0));
      const asHeld = counter.countContext(summaryRequest(view, view.turns.slice(0, 3), 0));
      const window = Math.floor((withOriginals + asHeld) / 2);
      await plan(run, strategyInput(counter, h, window, { llm }));
      expect(requests[0]!.messages[1]!.content).toContain(`TOOL: ${linesOmitted(output('huge', 400))}`);
      expect(counter.countContext(requests[0]!.messages)).toBeLessThanOrEqual(window);
    });
  });

  describe('pressure trigger (ctxbench safety net)', () => {
    it('summarizes all but the last M turns early when the context exceeds the trigger', async () => {
      const { llm, requests } = fakeLlm();
      const h = [sys(), user('task'), ...turns(4)];
      const window = Math.ceil(counter.countContext(h) / 0.8);
      const result = await plan(hybridStrategy.create(params('keepTurns=1', 'trigger=0.5')), strategyInput(counter, h, window, { llm }));
      expect(requests).toHaveLength(1);
      expect(result.events.at(-1)).toMatchObject({ kind: 'summarized', detail: 'summarized 3 turns, kept the last 1' });
      expect(result.messages.slice(3)).toEqual(h.slice(-2));
    });
  });

  describe('fallback', () => {
    it('keeps the turns and the masking when the summary call fails, and tries again next time', async () => {
      const { llm, requests } = fakeLlm(new AuxiliaryCallError('backend', 'down'));
      const run = hybridStrategy.create(small('keepObservations=2'));
      const h = [sys(), user('task'), ...turns(5)];
      const first = await plan(run, input(h, { llm }));
      expect(first.messages.map((m) => m.id)).toEqual(h.map((m) => m.id));
      expect(first.events.map((e) => e.kind)).toEqual(['masked', 'masked', 'masked']);
      await plan(run, input([...first.messages, ...turns(1, 5)], { llm, step: 1 }));
      expect(requests).toHaveLength(2);
    });

    it('lets errors that are not auxiliary-call failures through (bugs stay visible)', async () => {
      const { llm } = fakeLlm(new TypeError('bug'));
      await expect(hybridStrategy.create(small()).beforeRequest(input([sys(), user('task'), ...turns(5)], { llm }))).rejects.toThrow('bug');
    });
  });

  describe('end to end', () => {
    const scenario = () => scenarioOf(sweScenarioMessages(45, 800));

    it('summarizes a long generated task with the mock, every context (summaries too) paired and in order', async () => {
      const s = scenario();
      const { run, contexts, purposes } = await replay(s, 200_000);
      expect(run.summary.status).toBe('completed');
      // Step k holds the k turns recorded before it: 31 at step 31, 21 summarized; 31 again only at step 52.
      expect(run.events.filter((e) => e.kind === 'summarized').map((e) => e.step)).toEqual([31]);
      expect(purposes.filter((p) => p === 'summary')).toHaveLength(1);
      expect(run.summary.overheadTokens).toBeGreaterThan(0);
      for (const c of contexts) {
        expect(checkPairing(c, { request: true })).toEqual([]);
        expect(checkOrder(s.messages, c)).toBeUndefined();
      }
      const request = contexts[purposes.indexOf('summary')]!;
      expect(request.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls.length > 0))).toBe(false);
    });

    it('completes on masking alone when the summarizer fails (failPurposes)', async () => {
      const { run } = await replay(scenario(), 200_000, params(), { failPurposes: ['summary'] });
      expect(run.summary.status).toBe('completed');
      expect(run.events.some((e) => e.kind === 'summarized')).toBe(false);
      expect(run.events.filter((e) => e.kind === 'aux_failed').length).toBeGreaterThan(0);
      expect(run.events.some((e) => e.kind === 'masked')).toBe(true);
    });

    it('treats a summarizer answering with a tool call as a failure (toolCallPurposes)', async () => {
      const { run } = await replay(scenario(), 200_000, params(), { toolCallPurposes: ['summary'] });
      expect(run.summary.status).toBe('completed');
      expect(run.events.find((e) => e.kind === 'aux_failed')?.detail).toMatch(/^summary: answered with a tool call/);
      expect(run.events.some((e) => e.kind === 'summarized')).toBe(false);
    });

    it(`completes the bundled ${REAL_SCENARIO} at 16384 tokens with zero pairing violations`, async () => {
      const { scenario: real } = await loadScenario(REAL_SCENARIO);
      const { run, contexts } = await replay(real, 16_384);
      expect(run.summary.status).toBe('completed');
      expect(run.events.some((e) => e.kind === 'summarized')).toBe(true);
      expect(run.events.some((e) => e.kind === 'pairing_violation')).toBe(false);
      contexts.forEach((c) => expect(checkPairing(c, { request: true })).toEqual([]));
      contexts.forEach((c) => expect(checkOrder(real.messages, c)).toBeUndefined());
    });
  });

  describe('parameters', () => {
    it('has the paper\'s defaults', () => {
      expect(params()).toEqual({ summarizeTurns: 21, keepTurns: 10, keepObservations: 10, trigger: 0.9 });
      expect(hybridStrategy.thresholds(params())).toEqual([{ label: 'summary (pressure)', fraction: 0.9 }]);
    });
    it('rejects out-of-range values, naming the flag', () => {
      expect(() => params('summarizeTurns=0')).toThrow('--param summarizeTurns=0: hybrid.summarizeTurns must be an integer in [1, 1000]');
      expect(() => params('keepObservations=0')).toThrow(/hybrid.keepObservations must be an integer in \[1, 10000\]/);
    });
  });
});
