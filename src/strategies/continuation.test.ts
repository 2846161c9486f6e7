import { beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, type AssistantMessage, type Message, type ToolCall } from '../core/messages.js';
import { resolveModel, SMALLEST_KNOWN_WINDOW } from '../core/models.js';
import { checkOrder, checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import type { MockOptions } from '../llm/mock.js';
import type { Usage } from '../core/backend.js';
import type { EventRecord, RunResult } from '../core/run-records.js';
import { loadScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import {
  CONTINUATION_PROMPT,
  continuationStrategy,
  continuationInstruction,
  FALLBACK_SUMMARY,
  INITIAL_STATE,
  seedText,
  SUMMARY_SECTIONS,
  transition,
  type ConversationEvent,
  type ConversationState,
  type MachineSettings,
} from './continuation.js';
import { AuxiliaryCallError, resolveStrategyParams, type ResponseInput } from '../core/strategy.js';
import { factScenarioMessages, round, scenarioOf, sweScenarioMessages, sys, user } from '../../test/helpers/history.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { recordingLlm, strategyInput } from '../../test/helpers/strategy-input.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

// ---------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------

const params = (...assignments: string[]) => resolveStrategyParams(continuationStrategy, assignments);

const WINDOW = 1000;
const SUMMARY = '## Task\nfix parse() in src/app.py\n## Progress\n- read the file';

/** An auxiliary LLM that records each request and answers with `answer` (or throws it). */
const fakeLlm = (answer: string | Error = SUMMARY) => recordingLlm(answer);

/** What afterResponse sees when `response` answered `sent` with the given usage. */
function responseInput(sent: readonly Message[], response: AssistantMessage, usage: Usage, extra: Partial<ResponseInput> = {}): ResponseInput {
  const { last: _last, appendedFrom: _from, ...base } = strategyInput(counter, sent, WINDOW);
  return { ...base, sent, response, usage, ...extra };
}

/** A usage whose input + output is `fraction` of WINDOW. */
const usageAt = (fraction: number, output = 20): Usage => ({ promptTokens: Math.round(fraction * WINDOW) - output, completionTokens: output });

const callingTurn = (content: string, ...names: string[]): AssistantMessage => {
  const toolCalls: ToolCall[] = names.map((name, i) => ({ id: `call_x${i}`, name, arguments: JSON.stringify({ command: `${name} step ${i}` }) }));
  return assistantMessage({ id: 'turn', content, toolCalls });
};

let replies = 0;
/** A text-only assistant response (no calls). */
const reply = (content: string): AssistantMessage => assistantMessage({ id: `reply${++replies}`, content });

const conversation = (): Message[] => [sys('Be careful.'), user('Fix parse() in src/app.py.'), ...round('bash', 'cat src/app.py output')];

const kinds = (events: readonly { kind: string }[] | undefined): string[] => (events ?? []).map((e) => e.kind);

async function spyReplay(scenario: Scenario, window: number, assignments: string[] = [], mock: MockOptions = {}): Promise<{ run: RunResult; sent: (readonly Message[])[]; purposes: string[] }> {
  const { run, requests } = await recordedReplay({ scenario, strategy: continuationStrategy, params: params(...assignments), counter, model: scenario.model.name, window, batchId: 'test', mock });
  return { run, sent: requests.map((r) => r.messages), purposes: requests.map((r) => r.purpose) };
}

/** Every context sent (agent and summary requests) is well-paired and in history order. */
function expectWellFormed(scenario: Scenario, sent: readonly (readonly Message[])[]): void {
  for (const context of sent) {
    expect(checkPairing(context, { request: true })).toEqual([]);
    expect(checkOrder(scenario.messages, context)).toBeUndefined();
  }
}

/** SWE scenario whose default run continues once, at step 8, and stays below 80% afterwards. */
const ONCE = { steps: 12, outputChars: 800, window: 3000, triggerStep: 8 } as const;
const onceScenario = () => scenarioOf(sweScenarioMessages(ONCE.steps, ONCE.outputChars));

// ---------------------------------------------------------------------------------------------------

describe('continuation', () => {
  describe('state machine (seed 001 transition table, rows that apply to a replay)', () => {
    const continuing: MachineSettings = { continuationThreshold: 0.9, warningThreshold: 0.8, behavior: 'ThresholdBasedContinuation' };
    const subAgent: MachineSettings = { ...continuing, behavior: 'IntentionallyUnhandled' };
    const calls: ToolCall[] = [{ id: 'c1', name: 'bash', arguments: '{}' }];
    const response = (usedFraction: number, manual = false): ConversationEvent => ({ type: 'LlmResponse', usedFraction, manual, toolCalls: calls });
    const warned: ConversationState = { name: 'Working', warned: true };
    const awaiting: ConversationState = { name: 'AwaitingContinuation', rejectedCalls: calls };
    const exhausted: ConversationState = { name: 'ContextExhausted', summary: 'S', fallback: false };
    const failed: ConversationState = { name: 'Failed', error: 'ContextExhausted' };

    // [row, state, event, settings, next state, effect kinds]
    it.each<[string, ConversationState, ConversationEvent, MachineSettings, ConversationState, string[]]>([
      ['below 80%: carry on', INITIAL_STATE, response(0.5), continuing, INITIAL_STATE, []],
      ['at 80%: warn', INITIAL_STATE, response(0.8), continuing, warned, ['Warn']],
      ['warned already: no second warning', warned, response(0.85), continuing, warned, []],
      ['at 90%, ThresholdBasedContinuation: AwaitingContinuation', warned, response(0.9), continuing, awaiting, ['RequestContinuation']],
      ['jump past both thresholds: warn, then continue', INITIAL_STATE, response(0.97), continuing, awaiting, ['Warn', 'RequestContinuation']],
      ['at 90%, IntentionallyUnhandled: Failed (ContextExhausted)', warned, response(0.93), subAgent, failed, []],
      ['manual trigger below any threshold: same as automatic', INITIAL_STATE, response(0.1, true), continuing, awaiting, ['RequestContinuation']],
      ['manual trigger in a sub-agent: same as automatic (fails)', INITIAL_STATE, response(0.1, true), subAgent, failed, []],
      ['AwaitingContinuation + ContinuationResponse: ContextExhausted', awaiting, { type: 'ContinuationResponse', summary: 'S' }, continuing, exhausted, ['NotifyContextExhausted']],
      [
        'AwaitingContinuation + ContinuationFailed: ContextExhausted (fallback summary)',
        awaiting,
        { type: 'ContinuationFailed', error: 'overflow' },
        continuing,
        { name: 'ContextExhausted', summary: FALLBACK_SUMMARY, fallback: true },
        ['NotifyContextExhausted'],
      ],
      ['ContextExhausted + UserMessage: REJECT', exhausted, { type: 'UserMessage' }, continuing, exhausted, ['Reject']],
      ['ContextExhausted + LlmResponse: no-op', exhausted, response(0.99), continuing, exhausted, []],
      ['ContextExhausted + ContinuationResponse: no-op', exhausted, { type: 'ContinuationResponse', summary: 'other' }, continuing, exhausted, []],
      ['Failed + anything: no-op', failed, response(0.99, true), subAgent, failed, []],
    ])('%s', (_row, state, event, settings, next, effects) => {
      const result = transition(state, event, settings);
      expect(result.state).toEqual(next);
      expect(kinds(result.effects)).toEqual(effects);
    });

    it('rejects with "context exhausted" and passes the rejected calls and the summary on', () => {
      expect(transition(exhausted, { type: 'UserMessage' }, continuing).effects).toEqual([{ kind: 'Reject', error: 'context exhausted' }]);
      expect(transition(INITIAL_STATE, response(0.95), continuing).effects.at(-1)).toEqual({ kind: 'RequestContinuation', rejectedCalls: calls });
      expect(transition(awaiting, { type: 'ContinuationResponse', summary: 'S' }, continuing).effects).toEqual([{ kind: 'NotifyContextExhausted', summary: 'S' }]);
    });
  });

  describe('threshold check after every response', () => {
    it('carries on below the threshold: no plan, so the turn and its results are appended', async () => {
      const run = continuationStrategy.create(params());
      const { llm, requests } = fakeLlm();
      expect(await run.afterResponse!(responseInput(conversation(), callingTurn('next', 'bash'), usageAt(0.5), { llm }))).toBeUndefined();
      expect(requests).toEqual([]);
    });

    it('counts input + output tokens of the response (seed check_continuation_threshold)', async () => {
      const sent = conversation();
      const below = await continuationStrategy.create(params()).afterResponse!(responseInput(sent, reply('done'), { promptTokens: 880, completionTokens: 19 }, { llm: fakeLlm().llm }));
      const at = await continuationStrategy.create(params()).afterResponse!(responseInput(sent, reply('done'), { promptTokens: 880, completionTokens: 20 }, { llm: fakeLlm().llm }));
      expect(below).toBeUndefined();
      expect(kinds(at?.events)).toContain('continuation');
    });

    it('uses the local counts, with one warning, when the backend reports no usage', async () => {
      const run = continuationStrategy.create(params());
      const sent = conversation();
      await run.afterResponse!(responseInput(sent, reply('ok'), {}, { llm: fakeLlm().llm }));
      await run.afterResponse!(responseInput(sent, reply('ok'), {}, { llm: fakeLlm().llm }));
      const next = await run.beforeRequest(strategyInput(counter, sent, WINDOW));
      expect(kinds(next.events)).toEqual(['warning']);
      expect(next.events![0]!.detail).toMatch(/no usage/);
    });

    it('follows the window it is given (model-specific: the same usage triggers at 4k, not at 128k)', async () => {
      const usage = { promptTokens: 3700, completionTokens: 10 };
      const small = await continuationStrategy.create(params()).afterResponse!(responseInput(conversation(), reply('ok'), usage, { window: 4096, llm: fakeLlm().llm }));
      const large = await continuationStrategy.create(params()).afterResponse!(responseInput(conversation(), reply('ok'), usage, { window: 128_000, llm: fakeLlm().llm }));
      expect(kinds(small?.events)).toContain('continuation');
      expect(large).toBeUndefined();
    });
  });

  describe('rejected tool calls (checked BEFORE any tool runs)', () => {
    it('rejects the calls, names them in a tools_rejected event and to the summarizer, and never appends their results', async () => {
      const sent = conversation();
      const turn = callingTurn('I will run the tests and patch the file.', 'bash', 'apply_patch');
      const { llm, requests } = fakeLlm();
      const plan = (await continuationStrategy.create(params()).afterResponse!(responseInput(sent, turn, usageAt(0.92), { llm })))!;
      const rejected = plan.events!.find((e) => e.kind === 'tools_rejected')!;
      expect(rejected).toMatchObject({ messageId: 'turn', detail: 'not run (92% of the 1000-token window): bash, apply_patch' });
      expect(plan.messages.some((m) => m.role === 'tool' && m.toolCallId.startsWith('call_x'))).toBe(false);

      expect(requests).toHaveLength(1);
      const request = requests[0]!;
      expect(request.purpose).toBe('summary');
      expect(request.expect).toEqual({ sections: SUMMARY_SECTIONS });
      const instruction = request.messages.at(-1)!;
      expect(instruction).toMatchObject({ role: 'user', content: continuationInstruction(turn.toolCalls) });
      expect(instruction.content).toMatch(/NOT executed[\s\S]*- bash \{"command":"bash step 0"\}\n- apply_patch /);
    });

    it('sends a tool-less, well-paired summary request: the response text kept (same id), its calls stripped', async () => {
      const sent = conversation();
      const turn = callingTurn('About to run three things.', 'bash', 'bash', 'read_file');
      const { llm, requests } = fakeLlm();
      await continuationStrategy.create(params()).afterResponse!(responseInput(sent, turn, usageAt(0.95), { llm }));
      const messages = requests[0]!.messages;
      expect(messages.slice(0, sent.length)).toEqual(sent);
      expect(messages[sent.length]).toMatchObject({ id: 'turn', role: 'assistant', content: turn.content, toolCalls: [] });
      expect(messages[sent.length]!.origin).toEqual({ source: 'strategy', strategy: 'continuation', action: 'tools-rejected' });
      expect(messages).toHaveLength(sent.length + 2);
      expect(checkPairing(messages, { request: true })).toEqual([]);
    });

    it('drops a response that was only tool calls from the summary request', async () => {
      const sent = conversation();
      const { llm, requests } = fakeLlm();
      await continuationStrategy.create(params()).afterResponse!(responseInput(sent, callingTurn('', 'bash'), usageAt(0.95), { llm }));
      expect(requests[0]!.messages.map((m) => m.id)).toEqual([...sent.map((m) => m.id), 'continuation:prompt:0']);
    });

    it('quotes the seed prompt word for word and asks for the sections', () => {
      expect(continuationInstruction([])).toBe(`${CONTINUATION_PROMPT}\nUse these sections: Task, Progress, Not Executed, Next Steps.`);
      const long: ToolCall = { id: 'c', name: 'write_file', arguments: 'x'.repeat(500) };
      expect(continuationInstruction([long])).toContain(`- write_file ${'x'.repeat(200)}...`);
    });
  });

  describe('continuation message and the new conversation (seedNewConversation=true, default)', () => {
    it('starts a new session of [system prompt, continuation message] that continues conversation N', async () => {
      const sent = conversation();
      const plan = (await continuationStrategy.create(params()).afterResponse!(responseInput(sent, callingTurn('x', 'bash'), usageAt(0.91), { llm: fakeLlm().llm, session: 3, step: 17 })))!;
      expect(plan.newSession).toBe(true);
      expect(plan.stop).toBeUndefined();
      expect(plan.messages[0]).toBe(sent[0]);
      expect(plan.messages[1]).toMatchObject({ id: 'continuation:seed:17', role: 'user', content: seedText(3, SUMMARY) });
      expect(plan.messages[1]!.content).toMatch(/^\[This conversation continues conversation 3, whose context window was exhausted\./);
      expect(plan.messages).toHaveLength(2);
      const event = plan.events!.find((e) => e.kind === 'continuation')!;
      expect(event).toMatchObject({ messageId: 'continuation:seed:17', detail: 'conversation 4 continues conversation 3 (91% of the 1000-token window), seeded with the LLM summary' });
      expect(event.tokensAfter).toBe(counter.countContext(plan.messages));
    });

    it('gives the new conversation its own machine: it warns and continues again', async () => {
      const run = continuationStrategy.create(params());
      await run.afterResponse!(responseInput(conversation(), reply('a'), usageAt(0.95), { llm: fakeLlm().llm }));
      await run.afterResponse!(responseInput(conversation(), reply('b'), usageAt(0.85), { llm: fakeLlm().llm, session: 2, step: 1 }));
      expect(kinds((await run.beforeRequest(strategyInput(counter, conversation(), WINDOW, { step: 2 }))).events)).toEqual(['warned']);
      const again = await run.afterResponse!(responseInput(conversation(), reply('c'), usageAt(0.95), { llm: fakeLlm().llm, session: 2, step: 2 }));
      expect(kinds(again?.events)).toEqual(['continuation']);
    });
  });

  describe('ContextExhausted (seedNewConversation=false)', () => {
    it('stores the summary as a continuation message and rejects the next request with a clear error', async () => {
      const run = continuationStrategy.create(params('seedNewConversation=false'));
      const sent = conversation();
      const plan = (await run.afterResponse!(responseInput(sent, callingTurn('Will patch.', 'apply_patch'), usageAt(0.93), { llm: fakeLlm().llm, step: 5 })))!;
      expect(plan.newSession).toBeUndefined();
      expect(plan.stop).toBeUndefined();
      expect(plan.messages.slice(0, sent.length)).toEqual(sent);
      expect(plan.messages.slice(sent.length).map((m) => [m.id, m.role, m.content])).toEqual([
        ['turn', 'assistant', 'Will patch.'],
        ['continuation:summary:5', 'assistant', SUMMARY],
      ]);
      expect(plan.messages.at(-1)!.origin).toEqual({ source: 'strategy', strategy: 'continuation', action: 'continuation' });
      expect(plan.events!.find((e) => e.kind === 'continuation')!.detail).toMatch(/^conversation 1 exhausted \(93% .*\), LLM summary stored; it is read-only now$/);

      const next = await run.beforeRequest(strategyInput(counter, plan.messages, WINDOW, { step: 6 }));
      expect(next.stop).toBe(
        'ContextExhausted: conversation 1 was exhausted at step 5 and rejects further messages (context exhausted); start a new conversation from its summary (seedNewConversation=true)',
      );
    });

    it('ends a replay with status stopped and a ContextExhausted reason', async () => {
      const scenario = onceScenario();
      const { run, sent } = await spyReplay(scenario, ONCE.window, ['seedNewConversation=false']);
      expect(run.summary).toMatchObject({ status: 'stopped', failedStep: ONCE.triggerStep + 1, sessions: 1 });
      expect(run.summary.failure).toMatch(/^ContextExhausted: conversation 1 was exhausted at step 8 and rejects further messages/);
      expect(kinds(run.events)).toEqual(['warned', 'tools_rejected', 'continuation', 'stopped']);
      expectWellFormed(scenario, sent);
    });
  });

  describe('fallback summary', () => {
    it('uses the seed fallback text when the summary request fails, and says so', async () => {
      const failure = new AuxiliaryCallError('backend', 'mock: injected failure');
      const plan = (await continuationStrategy.create(params()).afterResponse!(responseInput(conversation(), reply('ok'), usageAt(0.95), { llm: fakeLlm(failure).llm })))!;
      expect(plan.newSession).toBe(true);
      expect(plan.messages[1]!.content).toBe(seedText(1, FALLBACK_SUMMARY));
      expect(plan.events!.map((e) => [e.kind, e.detail])).toEqual([
        ['warned', 'context at 95% of the 1000-token window after step 0 (warning at 80%)'],
        ['warning', "continuation summary unavailable (backend): using the seed's fallback summary"],
        ['continuation', 'conversation 2 continues conversation 1 (95% of the 1000-token window), seeded with the fallback summary'],
      ]);
    });

    it('lets an error that is not an auxiliary-call failure (a bug) through', async () => {
      const run = continuationStrategy.create(params());
      await expect(run.afterResponse!(responseInput(conversation(), reply('ok'), usageAt(0.95), { llm: fakeLlm(new TypeError('bug')).llm }))).rejects.toThrow('bug');
    });

    it.each<[string, MockOptions]>([
      ['fails', { failPurposes: ['summary'] }],
      ['answers with a tool call', { toolCallPurposes: ['summary'] }],
    ])('completes the replay on the fallback path when the summarizer %s', async (_what, mock) => {
      const scenario = onceScenario();
      const { run, sent } = await spyReplay(scenario, ONCE.window, [], mock);
      expect(run.summary).toMatchObject({ status: 'completed', sessions: 2 });
      expect(kinds(run.events)).toEqual(['warned', 'aux_failed', 'tools_rejected', 'warning', 'continuation']);
      expect(run.events.find((e) => e.kind === 'continuation')!.detail).toMatch(/seeded with the fallback summary$/);
      const seeded = sent.find((c) => c[1]?.id === `continuation:seed:${ONCE.triggerStep}`)!;
      expect(seeded[1]!.content).toBe(seedText(1, FALLBACK_SUMMARY));
      expectWellFormed(scenario, sent);
    });

    // Regression: a summary whose prompt fit but whose answer did not was accepted (seen at 100.9% of the window).
    it('takes the fallback when the summary request fits but the answer would not (seed 001 failure path)', async () => {
      const scenario = scenarioOf(factScenarioMessages(40, 12));
      const { run, sent, purposes } = await spyReplay(scenario, 6000);
      const refused = run.events.filter((e) => e.kind === 'aux_failed');
      expect(refused).toHaveLength(1);
      const [, prompt, answer] = /^summary: a prompt of (\d+) tokens plus an answer of (\d+) tokens exceeds the 6000-token window$/.exec(refused[0]!.detail)!.map(Number);
      expect(prompt).toBeLessThanOrEqual(6000);
      expect(prompt! + answer!).toBeGreaterThan(6000);
      expect(purposes).toContain('summary'); // sent: only its answer did not fit
      expect(run.steps.filter((s) => s.purpose === 'summary')).toEqual([]); // refused, so never billed
      expect(run.events.find((e) => e.kind === 'continuation')!.detail).toMatch(/seeded with the fallback summary$/);
      expectWellFormed(scenario, sent);
    });

    it('takes the fallback, never crashing, when the summary request itself would overflow a tiny window', async () => {
      // 95% of the window reached on a response: the context plus the response text plus the prompt
      // no longer fits, so the runner refuses the summary request as an overflow.
      const scenario = scenarioOf(sweScenarioMessages(6, 400, 600));
      const { run, sent, purposes } = await spyReplay(scenario, 600);
      const overflowed = run.events.filter((e) => e.kind === 'aux_failed' && /exceeds the 600-token window/.test(e.detail));
      expect(overflowed.length).toBeGreaterThan(0);
      expect(run.events.filter((e) => e.kind === 'continuation').every((e) => /fallback summary$/.test(e.detail))).toBe(true);
      expect(purposes).not.toContain('summary'); // refused before reaching the backend
      expect(['completed', 'overflow']).toContain(run.summary.status);
      expectWellFormed(scenario, sent);
    });
  });

  describe('warning at 80%', () => {
    it('records warned once per conversation, at the request after the response that crossed it', async () => {
      const run = continuationStrategy.create(params());
      for (const step of [0, 1, 2]) await run.afterResponse!(responseInput(conversation(), reply('ok'), usageAt(0.82 + step / 100), { step }));
      const next = await run.beforeRequest(strategyInput(counter, conversation(), WINDOW, { step: 3 }));
      expect(next.events).toEqual([{ kind: 'warned', detail: 'context at 82% of the 1000-token window after step 0 (warning at 80%)', tokensBefore: 820 }]);
      expect((await run.beforeRequest(strategyInput(counter, conversation(), WINDOW, { step: 4 }))).events).toEqual([]);
    });
  });

  describe('manual trigger (REQ-BED-023)', () => {
    const normalize = (events: readonly EventRecord[]) => events.map((e) => ({ ...e, detail: e.detail.replace(/\((manual trigger|\d+% of the \d+-token window)\)/, '(trigger)') }));

    it('fires the same flow at the given step, with identical results to the automatic trigger', async () => {
      const scenario = onceScenario();
      const automatic = await spyReplay(scenario, ONCE.window);
      const manual = await spyReplay(scenario, ONCE.window, ['continuationThreshold=1', `manualTriggerAtStep=${ONCE.triggerStep}`]);
      expect(automatic.run.events.find((e) => e.kind === 'continuation')).toMatchObject({ step: ONCE.triggerStep });
      expect(manual.run.events.find((e) => e.kind === 'continuation')!.detail).toMatch(/\(manual trigger\)/);
      expect(manual.run.summary).toEqual(automatic.run.summary);
      expect(manual.run.steps).toEqual(automatic.run.steps);
      expect(manual.sent).toEqual(automatic.sent);
      expect(normalize(manual.run.events)).toEqual(normalize(automatic.run.events));
    });

    it('is identical at the hook level too: same plan for the same response', async () => {
      const sent = conversation();
      const input = () => responseInput(sent, callingTurn('x', 'bash'), usageAt(0.4), { llm: fakeLlm().llm, step: 3 });
      const byManual = (await continuationStrategy.create(params('manualTriggerAtStep=3')).afterResponse!(input()))!;
      const byThreshold = (await continuationStrategy.create(params('continuationThreshold=0.4', 'warningThreshold=0.3')).afterResponse!(input()))!;
      expect(byManual.messages).toEqual(byThreshold.messages);
      expect(kinds(byManual.events)).toEqual(['tools_rejected', 'continuation']);
      expect(kinds(byThreshold.events)).toEqual(['warned', 'tools_rejected', 'continuation']); // 40% is past its 30% warning
    });

    it('never fires by default', async () => {
      const run = continuationStrategy.create(params());
      for (let step = 0; step < 30; step++) expect(await run.afterResponse!(responseInput(conversation(), reply('ok'), usageAt(0.1), { step }))).toBeUndefined();
    });
  });

  describe('sub-agent mode (IntentionallyUnhandled)', () => {
    it('stops with ContextExhausted instead: no summary request, the calls rejected', async () => {
      const { llm, requests } = fakeLlm();
      const plan = (await continuationStrategy.create(params('subAgent=true')).afterResponse!(responseInput(conversation(), callingTurn('', 'bash'), usageAt(0.9), { llm })))!;
      expect(requests).toEqual([]);
      expect(plan.stop).toBe('ContextExhausted: sub-agent context exhausted (90% of the 1000-token window; IntentionallyUnhandled: no continuation summary); the parent can spawn a replacement sub-agent');
      expect(kinds(plan.events)).toEqual(['warned', 'tools_rejected']);
    });

    it('ends a replay as stopped at the trigger step, with no summary request sent', async () => {
      const scenario = onceScenario();
      const { run, purposes } = await spyReplay(scenario, ONCE.window, ['subAgent=true']);
      expect(run.summary).toMatchObject({ status: 'stopped', failedStep: ONCE.triggerStep, sessions: 1, llmCalls: ONCE.triggerStep + 1 });
      expect(run.summary.failure).toMatch(/^ContextExhausted: sub-agent/);
      expect(purposes.every((p) => p === 'agent')).toBe(true);
    });
  });

  describe('replay end to end', () => {
    it('continues a generated SWE task in new sessions: completed, every context well-paired and within the window', async () => {
      const scenario = scenarioOf(sweScenarioMessages(30, 2000));
      const { run, sent, purposes } = await spyReplay(scenario, 8000);
      expect(run.summary.status).toBe('completed');
      expect(run.summary.sessions).toBeGreaterThanOrEqual(3);
      expect(run.summary.steps).toBe(run.summary.totalSteps);
      expect(purposes.filter((p) => p === 'summary').length).toBeGreaterThan(0);
      expect(run.summary.overheadTokens).toBeGreaterThan(0);
      expect(run.events.some((e) => e.kind === 'pairing_violation')).toBe(false);
      expect(run.steps.every((s) => s.promptTokens <= 8000)).toBe(true);
      // Every new session opens on the system prompt and the continuationStrategy message.
      const firsts = run.steps.filter((s, i) => s.purpose === 'agent' && i > 0 && s.session !== run.steps[i - 1]!.session);
      expect(firsts.every((s) => s.messageCount === 2)).toBe(true);
      expectWellFormed(scenario, sent);
    });

    it('replays a bundled real scenario at 16k: completed, zero pairing violations', async () => {
      const { scenario } = await loadScenario('scenarios/openhands-codeact-sonnet35/django__django-10097.json');
      const { run, sent } = await spyReplay(scenario, 16_384);
      expect(run.summary.status).toBe('completed');
      expect(run.summary.sessions).toBeGreaterThan(1);
      expect(kinds(run.events)).toEqual(expect.arrayContaining(['warned', 'tools_rejected', 'continuation']));
      expect(run.events.some((e) => e.kind === 'pairing_violation')).toBe(false);
      expectWellFormed(scenario, sent);
    });

    it('uses the smallest known window for an unknown model (core/models.ts, REQ-BED-022)', async () => {
      const scenario = scenarioOf(sweScenarioMessages(40, 4000), 'unknown-model', 'acme-unreleased-model');
      const model = resolveModel(scenario.model.name);
      expect(model).toMatchObject({ known: false, contextWindow: SMALLEST_KNOWN_WINDOW });
      const { run } = await spyReplay(scenario, model.contextWindow);
      expect(run.summary.status).toBe('completed');
      const first = run.events.find((e) => e.kind === 'continuation')!;
      expect(first.tokensBefore).toBeGreaterThanOrEqual(0.9 * SMALLEST_KNOWN_WINDOW);
    });
  });

  describe('parameters', () => {
    it('has the seed defaults', () => {
      expect(params()).toEqual({ continuationThreshold: 0.9, warningThreshold: 0.8, manualTriggerAtStep: 'unlimited', subAgent: false, seedNewConversation: true });
      expect(continuationStrategy.thresholds(params())).toEqual([
        { label: 'warning', fraction: 0.8 },
        { label: 'continuation', fraction: 0.9 },
      ]);
    });

    it('rejects out-of-range values and warning >= continuation, naming the params', () => {
      expect(() => params('continuationThreshold=1.2')).toThrow(/continuation\.continuationThreshold must be a fraction in \(0, 1\]/);
      expect(() => params('manualTriggerAtStep=-1')).toThrow(/manualTriggerAtStep must be an integer >= 0 or "unlimited"/);
      expect(() => params('warningThreshold=0.9')).toThrow(/warningThreshold \(0.9\) must be below continuationThreshold \(0.9\)/);
      expect(params('manualTriggerAtStep=none')['manualTriggerAtStep']).toBe('unlimited');
      expect(params('subAgent=true', 'seedNewConversation=false')).toMatchObject({ subAgent: true, seedNewConversation: false });
    });
  });
});
