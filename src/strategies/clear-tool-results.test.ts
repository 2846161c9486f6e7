import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, type AssistantMessage, type Message, type ToolMessage } from '../core/messages.js';
import { checkOrder, checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';

import { loadScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import { clearAppended, CLEARED_PLACEHOLDER, type Clearing, clearToolResults, clearToolResultsStrategy, lineCount, linesOmitted, toolNames } from './clear-tool-results.js';
import { select } from './index.js';
import { defaultParams, describeRange, paramEntries, type Params, parseAssignment, resolveParams } from '../core/params.js';
import { PRESETS } from './presets.js';
import { resolveStrategyParams, type StrategyInput, type StrategyParams, type StrategyRun } from '../core/strategy.js';
import { parallel, round, scenarioOf, sweScenarioMessages, sys, user } from '../../test/helpers/history.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { strategyInput } from '../../test/helpers/strategy-input.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const REAL_SCENARIO = 'scenarios/openhands-codeact-sonnet35/django__django-10880.json';
const NAME = 'clear-tool-results';

const params = (...assignments: string[]) => resolveStrategyParams(clearToolResultsStrategy, assignments);
const presetParams = (name: string, ...assignments: string[]) =>
  resolveParams([{ name, aliases: [NAME], params: clearToolResultsStrategy.params, base: PRESETS[name]!.params }], assignments.map(parseAssignment)).get(name)! as StrategyParams<typeof clearToolResultsStrategy>;
const input = (messages: readonly Message[], extra: Partial<StrategyInput> = {}): StrategyInput => strategyInput(counter, messages, 1_000_000, extra);

async function plan(run: StrategyRun, i: StrategyInput) {
  const p = await run.beforeRequest(i);
  return { ...p, events: [...(p.events ?? [])] };
}

const output = (label: string, lines = 30): string => Array.from({ length: lines }, (_, i) => `${label} line ${i}`).join('\n');
const tools = (messages: readonly Message[]): ToolMessage[] => messages.filter((m): m is ToolMessage => m.role === 'tool');
const assistants = (messages: readonly Message[]): AssistantMessage[] => messages.filter((m): m is AssistantMessage => m.role === 'assistant');

/** A parallel batch whose calls carry the given arguments (the helper's are all "{}"). */
function withArguments(batch: Message[], args: string[]): Message[] {
  const call = batch[0] as AssistantMessage;
  return [assistantMessage({ id: call.id, content: call.content, toolCalls: call.toolCalls.map((c, i) => ({ ...c, arguments: args[i]! })) }), ...batch.slice(1)];
}

/** System, task, then one round per tool name (outputs of 30 lines). */
const history = (...names: string[]): Message[] => [sys(), user('task'), ...names.flatMap((name, i) => round(name, output(`${name}${i}`), { path: `f${i}.py` }))];

async function replay(scenario: Scenario, window: number, p: Params) {
  const { run, requests } = await recordedReplay({ scenario, strategy: clearToolResultsStrategy, params: p, counter, model: 'gpt-4o', window, batchId: 'clear-test' });
  return { run, contexts: requests.map((r) => r.messages) };
}

describe('clear-tool-results', () => {
  describe('trigger (triggerTokens)', () => {
    it('leaves the context alone (same array) while it does not exceed triggerTokens', async () => {
      const h = history('bash', 'bash', 'bash', 'bash', 'bash');
      const result = await plan(clearToolResultsStrategy.create(params(`triggerTokens=${counter.countContext(h)}`)), input(h));
      expect(result.messages).toBe(h);
      expect(result.events).toEqual([]);
    });

    it('clears once the context exceeds it, and always with triggerTokens=0', async () => {
      const h = history('bash', 'bash', 'bash', 'bash', 'bash');
      for (const trigger of [counter.countContext(h) - 1, 0]) {
        const result = await plan(clearToolResultsStrategy.create(params(`triggerTokens=${trigger}`)), input(h));
        expect(result.events.filter((e) => e.kind === 'masked')).toHaveLength(2);
      }
    });
  });

  describe('keep', () => {
    it('replaces all but the last `keep` results with [cleared], keeping ids, calls and reasoning', async () => {
      const h = history('bash', 'read_file', 'bash', 'bash', 'bash');
      const result = await plan(clearToolResultsStrategy.create(params('triggerTokens=0')), input(h));
      const before = tools(h);
      const after = tools(result.messages);
      expect(after.map((m) => m.content)).toEqual([CLEARED_PLACEHOLDER, CLEARED_PLACEHOLDER, ...before.slice(2).map((m) => m.content)]);
      after.forEach((m, i) => expect(m).toMatchObject({ id: before[i]!.id, toolCallId: before[i]!.toolCallId, name: before[i]!.name }));
      expect(after[0]!.origin).toEqual({ source: 'strategy', strategy: NAME, action: 'cleared' });
      assistants(result.messages).forEach((m, i) => expect(m).toBe(assistants(h)[i])); // calls untouched by default
      expect(result.events.map((e) => e.messageId)).toEqual([before[0]!.id, before[1]!.id]);
      expect(result.events[0]).toMatchObject({ kind: 'masked', detail: 'bash output cleared' });
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
      expect(checkOrder(h, result.messages)).toBeUndefined();
    });

    it('never clears the results of the latest assistant turn, even with keep=0', async () => {
      const h = [...history('bash', 'bash'), ...parallel([output('p1'), output('p2')])];
      const result = await plan(clearToolResultsStrategy.create(params('triggerTokens=0', 'keep=0')), input(h));
      expect(tools(result.messages).map((m) => m.content)).toEqual([CLEARED_PLACEHOLDER, CLEARED_PLACEHOLDER, output('p1'), output('p2')]);
    });

    it('clears a result once: the next request finds nothing new to clear', async () => {
      const h = history('bash', 'bash', 'bash', 'bash', 'bash');
      const run = clearToolResultsStrategy.create(params('triggerTokens=0'));
      const first = await plan(run, input(h));
      const second = await plan(run, input(first.messages, { step: 1, appendedFrom: first.messages.length }));
      expect(first.events).toHaveLength(2);
      second.messages.forEach((m, i) => expect(m).toBe(first.messages[i])); // the same messages: the cached prefix holds
      expect(second.messages).toHaveLength(first.messages.length);
      expect(second.events).toEqual([]);
    });
  });

  describe('excludeTools', () => {
    it('never clears the named tools; they still count among the last `keep` (LangChain)', async () => {
      const h = history('read_file', 'bash', 'search', 'bash', 'bash', 'bash');
      const result = await plan(clearToolResultsStrategy.create(params('triggerTokens=0', 'excludeTools=read_file, search')), input(h));
      expect(tools(result.messages).map((m) => m.content === CLEARED_PLACEHOLDER)).toEqual([false, true, false, false, false, false]);
    });

    it('parses a comma-separated list and rejects what is not a tool name', () => {
      expect([...toolNames(' bash, ,read_file ')]).toEqual(['bash', 'read_file']);
      expect(params('excludeTools=bash,str_replace_editor')['excludeTools']).toBe('bash,str_replace_editor');
      expect(() => params('excludeTools=rm -rf /')).toThrow('clear-tool-results.excludeTools must be a comma-separated list of tool names');
    });
  });

  describe('clearAtLeast (Anthropic clear_at_least)', () => {
    it('clears nothing when it would free fewer tokens than that, and everything when enough', async () => {
      const h = history('bash', 'bash', 'bash', 'bash', 'bash');
      const freed = clearToolResults(h, counter, { strategy: NAME, keep: 3, placeholder: 'cleared' }).freed;
      const short = await plan(clearToolResultsStrategy.create(params('triggerTokens=0', `clearAtLeast=${freed + 1}`)), input(h));
      const enough = await plan(clearToolResultsStrategy.create(params('triggerTokens=0', `clearAtLeast=${freed}`)), input(h));
      expect(short.messages).toBe(h);
      expect(enough.events).toHaveLength(2);
    });

    it('with the default 0, replaces even outputs shorter than the placeholder, as the field does', async () => {
      const h = [sys(), user('task'), ...round('bash', ''), ...round('bash', 'ok'), ...round('bash', 'x'), ...round('bash', 'y'), ...round('bash', 'z')];
      const result = await plan(clearToolResultsStrategy.create(params('triggerTokens=0', 'placeholder=lines-omitted')), input(h));
      expect(tools(result.messages).slice(0, 2).map((m) => m.content)).toEqual(['Old environment output: (0 lines omitted)', 'Old environment output: (1 lines omitted)']);
    });
  });

  describe('clearToolInputs', () => {
    it('empties the arguments of the cleared calls only, keeping ids and names', async () => {
      const batch = withArguments(parallel([output('a'), output('b')]), ['{"command":"cat a.py"}', '{"command":"cat b.py"}']);
      const h = [...history('bash'), ...batch, ...round('bash', output('c'), { command: 'ls' }), ...round('bash', output('d'))];
      // keep=3: the first round's result and the batch's first result are cleared, the batch's second is kept.
      const result = await plan(clearToolResultsStrategy.create(params('triggerTokens=0', 'clearToolInputs=true')), input(h));
      const [firstCall, batchCall, thirdCall] = assistants(result.messages);
      expect(firstCall!.toolCalls.map((c) => c.arguments)).toEqual(['{}']);
      expect(batchCall!.toolCalls.map((c) => c.arguments)).toEqual(['{}', '{"command":"cat b.py"}']);
      expect(batchCall!.toolCalls.map((c) => c.id)).toEqual((batch[0] as AssistantMessage).toolCalls.map((c) => c.id));
      expect(batchCall!.origin).toEqual({ source: 'strategy', strategy: NAME, action: 'inputs-cleared' });
      expect(thirdCall).toBe(assistants(h)[2]);
      expect(result.events.filter((e) => e.detail === 'tool call arguments cleared')).toHaveLength(2);
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
    });
  });

  describe('placeholders', () => {
    it('counts K lines the way SWE-agent does (Python splitlines)', () => {
      expect(lineCount('')).toBe(0);
      expect(lineCount('a')).toBe(1);
      expect(lineCount('a\nb\n')).toBe(2);
      expect(lineCount('a\r\nb\rc')).toBe(3);
      expect(lineCount('\n\n')).toBe(2);
      expect(linesOmitted('x\ny\nz')).toBe('Old environment output: (3 lines omitted)');
    });
  });

  describe('presets', () => {
    // SWE-agent, sweagent/agent/history_processors.py LastNObservations (the Complexity Trap's masking,
    // M=10): every observation but the last n becomes "Old environment output: (K lines omitted)".
    it('jetbrains-masking: always on, the last 10 outputs kept, "Old environment output: (K lines omitted)"', async () => {
      expect(presetParams('jetbrains-masking')).toEqual({ triggerTokens: 0, keep: 10, clearAtLeast: 0, excludeTools: '', clearToolInputs: false, placeholder: 'lines-omitted' });
      const h = history(...Array.from({ length: 12 }, () => 'bash'));
      const result = await plan(clearToolResultsStrategy.create(presetParams('jetbrains-masking')), input(h));
      expect(tools(result.messages).map((m) => m.content).slice(0, 3)).toEqual([linesOmitted(output('bash0')), linesOmitted(output('bash1')), output('bash2')]);
      expect(linesOmitted(output('bash0'))).toBe('Old environment output: (30 lines omitted)');
    });

    it('anthropic-clear-tool-uses: the documented defaults, which are also the strategy defaults', () => {
      const anthropic = { triggerTokens: 100_000, keep: 3, clearAtLeast: 0, excludeTools: '', clearToolInputs: false, placeholder: 'cleared' };
      expect(presetParams('anthropic-clear-tool-uses')).toEqual(anthropic);
      expect(defaultParams(clearToolResultsStrategy.params)).toEqual(anthropic);
      expect(presetParams('anthropic-clear-tool-uses', 'clear-tool-results.keep=5')['keep']).toBe(5);
    });

    // Anthropic context editing (docs.claude.com/en/docs/build-with-claude/context-editing): "Context
    // editing is applied server-side before the prompt reaches Claude. Your client application
    // maintains the full, unmodified conversation history": every request is edited anew, from the full
    // history, so once that exceeds the trigger, every request keeps only the last `keep` tool results.
    it('anthropic-clear-tool-uses: edits every request from the full history, so past the trigger only the last 3 results stay', async () => {
      const run = clearToolResultsStrategy.create(presetParams('anthropic-clear-tool-uses'));
      const big = (label: string) => 'output line\n'.repeat(9000).replace('output', label); // ~27,000 tokens
      const first = [sys(), user('task'), ...Array.from({ length: 4 }, (_, i) => round('bash', big(`r${i}`))).flat()];
      expect(counter.countContext(first)).toBeGreaterThan(100_000);
      const a = await plan(run, input(first));
      expect(tools(a.messages).map((m) => m.content === CLEARED_PLACEHOLDER)).toEqual([true, false, false, false]);
      expect(counter.countContext(a.messages)).toBeLessThan(100_000);
      // The next request: what was sent plus a new round. The full history is over the trigger again,
      // though what was sent plus the new round is not: the API clears once more.
      const appended = round('bash', 'ok');
      const b = await plan(run, input([...a.messages, ...appended], { appendedFrom: a.messages.length, last: { sentCount: a.messages.length } }));
      expect(counter.countContext([...a.messages, ...appended])).toBeLessThan(100_000);
      expect(tools(b.messages).map((m) => m.content === CLEARED_PLACEHOLDER)).toEqual([true, true, false, false, false]);
      expect(b.events.map((e) => e.messageId)).toEqual([tools(first)[1]!.id]); // only what is newly cleared
      expect(tools(b.messages)[0]).toBe(tools(a.messages)[0]); // the same cleared message: the cached prefix holds
    });

    it('are registered and selectable by name, each setting a parameter of its strategy', () => {
      for (const name of ['jetbrains-masking', 'anthropic-clear-tool-uses']) {
        const [selection] = select([], [name]);
        expect(selection!.strategy).toBe(clearToolResultsStrategy);
        const known = Object.keys(clearToolResultsStrategy.params);
        expect(Object.keys(PRESETS[name]!.params).every((k) => known.includes(k))).toBe(true);
      }
    });
  });

  describe('end to end', () => {
    it('the Anthropic settings with a lower trigger complete a generated task raw overflows, paired and in order', async () => {
      const scenario = scenarioOf(sweScenarioMessages(30, 2000));
      const { run, contexts } = await replay(scenario, 8000, { ...presetParams('anthropic-clear-tool-uses'), triggerTokens: 4000 });
      expect(run.summary.status).toBe('completed');
      expect(run.events.some((e) => e.kind === 'masked')).toBe(true);
      contexts.forEach((c) => expect(checkPairing(c, { request: true })).toEqual([]));
      contexts.forEach((c) => expect(checkOrder(scenario.messages, c)).toBeUndefined());
    });

    it(`jetbrains-masking completes the bundled ${REAL_SCENARIO} at 16384 tokens with zero pairing violations`, async () => {
      const { scenario } = await loadScenario(REAL_SCENARIO);
      const { run, contexts } = await replay(scenario, 16_384, presetParams('jetbrains-masking'));
      expect(run.summary.status).toBe('completed');
      expect(run.events.filter((e) => e.kind === 'masked').length).toBeGreaterThan(0);
      expect(run.events.some((e) => e.kind === 'pairing_violation')).toBe(false);
      contexts.forEach((c) => expect(checkPairing(c, { request: true })).toEqual([]));
    });

    it('overflows at 16384 with the Anthropic trigger of 100,000 tokens, which a 16k window never reaches', async () => {
      const { scenario } = await loadScenario(REAL_SCENARIO);
      const { run } = await replay(scenario, 16_384, presetParams('anthropic-clear-tool-uses'));
      expect(run.summary.status).toBe('overflow');
      expect(run.events.map((e) => e.kind)).toEqual(['overflow']);
    });
  });

  describe('clearAppended', () => {
    it('gives, step by step over a growing history, what clearToolResults gives on each whole history', async () => {
      const { scenario } = await loadScenario(REAL_SCENARIO);
      const names = [...new Set(tools(scenario.messages).map((m) => m.name))];
      for (const [keep, placeholder, excluded] of [[0, 'cleared', ''], [3, 'lines-omitted', names[0] ?? ''], [10, 'cleared', '']] as const) {
        const options = { strategy: NAME, keep, placeholder, excludeTools: toolNames(excluded), memo: new WeakMap<Message, Message>() };
        let clearing: Clearing | undefined;
        for (let length = 1; length <= scenario.messages.length; length++) {
          // A new array each step, as the strategy's history is (the same messages, appended to).
          const history = scenario.messages.slice(0, length);
          const whole = clearToolResults(history, counter, options);
          clearing = clearAppended(clearing, history, counter, options);
          expect(clearing.messages).toEqual(whole.messages);
          clearing.messages.forEach((m, i) => expect(m).toBe(whole.messages[i]));
          expect(clearing.events).toEqual(whole.events);
          expect(clearing.freed).toBe(whole.freed);
        }
        expect(clearing!.events.length).toBeGreaterThan(0);
      }
    });

    it('sends, request after request, the definition: each request cleared anew from the whole history, events naming what is new since the last request sent unedited', () => {
      // The strategy goes on from its last clearing and its own copy of the history; the definition
      // clears every whole history again. clearAtLeast makes requests go out unedited in between.
      const turn = fc.record({ lines: fc.integer({ min: 1, max: 40 }), name: fc.constantFrom('bash', 'grep') });
      const setting = fc.record({
        keep: fc.integer({ min: 0, max: 4 }),
        clearAtLeast: fc.constantFrom(0, 40, 150, 400),
        triggerTokens: fc.constantFrom(0, 300, 1500),
        excluded: fc.constantFrom('', 'grep'),
      });
      fc.assert(
        fc.property(fc.array(turn, { minLength: 1, maxLength: 24 }), setting, (shape, { keep, clearAtLeast, triggerTokens, excluded }) => {
          const run = clearToolResultsStrategy.create(params(`keep=${keep}`, `clearAtLeast=${clearAtLeast}`, `triggerTokens=${triggerTokens}`, `excludeTools=${excluded}`));
          const options = { strategy: NAME, keep, placeholder: 'cleared', excludeTools: toolNames(excluded), memo: new WeakMap<Message, Message>() } as const;
          const turns = shape.map(({ lines, name }, i) => round(name, output(`${name}${i}`, lines)));
          const reported = new Set<string>();
          let whole: Message[] = [sys(), user('task')]; // the unedited history
          let messages: Message[] = whole; // what the runner hands over: the last request and what came since
          let appendedFrom = 0;
          for (const next of turns) {
            const got = run.beforeRequest(input(messages, { appendedFrom })) as Awaited<ReturnType<StrategyRun['beforeRequest']>>;
            const over = triggerTokens === 0 || counter.countContext(whole) > triggerTokens;
            const cleared = over ? clearToolResults(whole, counter, options) : undefined;
            if (!cleared || cleared.events.length === 0 || (clearAtLeast > 0 && cleared.freed < clearAtLeast)) {
              reported.clear();
              expect(got.messages).toEqual(whole);
              expect(got.events ?? []).toEqual([]);
            } else {
              const events = cleared.events.filter((e) => !reported.has(e.messageId!));
              events.forEach((e) => reported.add(e.messageId!));
              expect(got.messages).toEqual(cleared.messages);
              expect(got.events).toEqual(events);
            }
            appendedFrom = got.messages.length;
            messages = [...got.messages, ...next];
            whole = [...whole, ...next];
          }
        }),
        { numRuns: 150 },
      );
    });

    it('starts over from a history that does not extend the last one', () => {
      const options = { strategy: NAME, keep: 0, placeholder: 'cleared', memo: new WeakMap<Message, Message>() } as const;
      const first = clearAppended(undefined, history('bash', 'grep'), counter, options);
      const other = history('cat', 'ls', 'sed');
      const next = clearAppended(first, other, counter, options);
      const whole = clearToolResults(other, counter, options);
      expect(next.messages).toEqual(whole.messages);
      expect(next.events).toEqual(whole.events);
      expect(next.events.map((e) => e.messageId)).toEqual(tools(other).slice(0, -1).map((m) => m.id)); // the latest turn's result is unseen
    });
  });

  describe('parameters', () => {
    it('documents every range, the tool list included', () => {
      expect(paramEntries(clearToolResultsStrategy.params).map((s) => `${s.name}: ${describeRange(s)}`)).toEqual([
        'triggerTokens: an integer in [0, 10000000]',
        'keep: an integer in [0, 10000]',
        'clearAtLeast: an integer in [0, 10000000]',
        'excludeTools: a comma-separated list of tool names',
        'clearToolInputs: true or false',
        'placeholder: one of cleared, lines-omitted',
      ]);
      expect(clearToolResultsStrategy.thresholds(params())).toEqual([]);
    });
    it('rejects out-of-range values, naming the flag', () => {
      expect(() => params('keep=-1')).toThrow('--param keep=-1: clear-tool-results.keep must be an integer in [0, 10000]');
      expect(() => params('placeholder=removed')).toThrow(/placeholder must be one of cleared, lines-omitted/);
    });
  });
});
