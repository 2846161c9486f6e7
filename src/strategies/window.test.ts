import { beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../core/messages.js';
import { checkOrder, checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';

import { loadScenario } from '../scenarios/load.js';
import type { Scenario } from '../scenarios/scenario.js';
import { type Params } from '../core/params.js';
import { resolveStrategyParams, type StrategyInput, type StrategyRun } from '../core/strategy.js';
import { applyWindow, windowStrategy } from './window.js';
import { parallel, round, say, scenarioOf, sweScenarioMessages, sys, user } from '../../test/helpers/history.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { strategyInput } from '../../test/helpers/strategy-input.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const REAL_SCENARIO = 'scenarios/openhands-codeact-sonnet35/django__django-10880.json';

const params = (...assignments: string[]) => resolveStrategyParams(windowStrategy, assignments);
const input = (messages: readonly Message[], window: number, extra: Partial<StrategyInput> = {}): StrategyInput => strategyInput(counter, messages, window, extra);

async function plan(run: StrategyRun, i: StrategyInput) {
  const p = await run.beforeRequest(i);
  return { ...p, events: [...(p.events ?? [])] };
}

const output = (label: string, lines = 40): string => Array.from({ length: lines }, (_, i) => `${label} line ${i}`).join('\n');

/** System prompt, task, then `n` bash rounds with sizeable outputs. */
const history = (n: number): Message[] => [sys(), user('Fix the parser.'), ...Array.from({ length: n }, (_, i) => round('bash', output(`r${i}`))).flat()];

/** A window that puts `messages` at `share` of it. */
const windowAt = (messages: readonly Message[], share: number): number => Math.ceil(counter.countContext(messages) / share);

async function replay(scenario: Scenario, window: number, p: Params = params()) {
  const { run, requests } = await recordedReplay({ scenario, strategy: windowStrategy, params: p, counter, model: 'gpt-4o', window, batchId: 'window-test' });
  return { run, contexts: requests.map((r) => r.messages) };
}

describe('window', () => {
  describe('trigger', () => {
    it('sends the history unchanged (same array, no event) up to the trigger', async () => {
      const h = history(12);
      const result = await plan(windowStrategy.create(params()), input(h, windowAt(h, 0.85)));
      expect(result.messages).toBe(h);
      expect(result.events).toEqual([]);
    });

    it('keeps the first K and the last N messages once the context exceeds the trigger', async () => {
      const h = history(12);
      const result = await plan(windowStrategy.create(params('keepLast=6')), input(h, windowAt(h, 0.95)));
      expect(result.messages).toEqual([...h.slice(0, 2), ...h.slice(-6)]);
      expect(result.events).toHaveLength(1);
      expect(result.events[0]).toMatchObject({ kind: 'removed', detail: 'dropped 18 messages, kept the first 2 and the last 6' });
      expect(result.events[0]!.tokensAfter).toBe(counter.countContext(result.messages));
      expect(checkPairing(result.messages, { request: true })).toEqual([]);
    });

    it('trigger=1 acts only when the request would overflow (OpenHands conversation_window)', async () => {
      const h = history(12);
      const run = windowStrategy.create(params('trigger=1'));
      expect((await plan(run, input(h, windowAt(h, 0.99)))).messages).toBe(h);
      expect((await plan(run, input(h, windowAt(h, 1.02)))).events.map((e) => e.kind)).toEqual(['removed']);
    });

    it('measures the last reported prompt tokens plus what was appended since', async () => {
      const h = history(12);
      const window = windowAt(h, 0.8);
      // The backend said the previous request (all but the last round) was already at 95% of the window.
      const last = { promptTokens: Math.ceil(0.95 * window), sentCount: h.length - 2 };
      expect((await plan(windowStrategy.create(params()), input(h, window, { last }))).events.map((e) => e.kind)).toEqual(['removed']);
    });
  });

  describe('prefix (keepFirst)', () => {
    it('keeps the system prompt and the task by default', async () => {
      const h = [...history(10), user('Also update the docs.'), ...round('bash', output('late'))];
      const result = await plan(windowStrategy.create(params('keepLast=2')), input(h, windowAt(h, 0.95)));
      expect(result.messages.slice(0, 2)).toEqual(h.slice(0, 2));
      expect(result.messages.slice(2)).toEqual(h.slice(-2));
    });

    it('extends to the end of the round keepFirst falls in, so a call keeps its results', async () => {
      const first = parallel([output('p1'), output('p2'), output('p3')]);
      const h = [sys(), user('task'), ...first, ...history(10).slice(2)];
      const kept = applyWindow(h, { keepFirst: 3, keepLast: 2 }, Infinity, counter)!;
      expect(kept.head).toBe(2 + first.length); // the assistant at index 2 and all three results
      expect(kept.messages.slice(0, kept.head)).toEqual(h.slice(0, kept.head));
      expect(checkPairing(kept.messages, { request: true })).toEqual([]);
    });

    it('keepFirst=1 keeps only the system prompt, which stays first', async () => {
      const h = history(10);
      const kept = applyWindow(h, { keepFirst: 1, keepLast: 4 }, Infinity, counter)!;
      expect(kept.messages[0]).toBe(h[0]);
      expect(kept.messages).toHaveLength(5);
      expect(checkOrder(h, kept.messages)).toBeUndefined();
    });
  });

  describe('tail (keepLast)', () => {
    it('never starts on a tool result: a parallel batch that does not fit whole is left out whole', async () => {
      const batch = parallel([output('a'), output('b'), output('c')]);
      const h = [...history(6), ...batch, ...round('bash', output('z'))];
      // The last 4 messages would start on the batch's 2nd result: the tail holds the last round only.
      const kept = applyWindow(h, { keepFirst: 2, keepLast: 4 }, Infinity, counter)!;
      expect(kept.messages.slice(2)).toEqual(h.slice(-2));
      expect(kept.messages.slice(2)[0]!.role).toBe('assistant');
      expect(checkPairing(kept.messages, { request: true })).toEqual([]);
    });

    it('keeps fewer than keepLast messages when they would not fit under the trigger', async () => {
      const h = history(20);
      const window = windowAt(h, 1.2); // the whole history overflows
      const result = await plan(windowStrategy.create(params('keepLast=1000')), input(h, window));
      expect(counter.countContext(result.messages)).toBeLessThanOrEqual(0.9 * window);
      expect(result.messages.length).toBeLessThan(h.length);
      // Greedy from the end: one more round would not have fit.
      const tail = result.messages.length - 2;
      const oneMore = [...h.slice(0, 2), ...h.slice(-(tail + 2))];
      expect(counter.countContext(oneMore)).toBeGreaterThan(0.9 * window);
    });

    it('always keeps the latest round, even when it alone exceeds keepLast or the budget', async () => {
      const batch = parallel([output('a', 400), output('b', 400), output('c', 400)]);
      const h = [...history(4), ...batch];
      const result = await plan(windowStrategy.create(params('keepLast=1')), input(h, windowAt(h, 1.05)));
      expect(result.messages).toEqual([...h.slice(0, 2), ...batch]);
    });

    it('does nothing when no message lies between the prefix and the tail', async () => {
      const h = [sys(), user('task'), ...round('bash', output('x', 2000))];
      const result = await plan(windowStrategy.create(params()), input(h, windowAt(h, 1.5)));
      expect(result.messages).toBe(h);
      expect(result.events).toEqual([]);
    });

    it('keeps user follow-ups in the tail as rounds of their own', async () => {
      const h = [...history(8), user('Now run the tests.'), say('Running them.')];
      const kept = applyWindow(h, { keepFirst: 2, keepLast: 4 }, Infinity, counter)!;
      expect(kept.messages.slice(2)).toEqual(h.slice(-4));
    });
  });

  describe('end to end', () => {
    it('completes a generated task at a window raw overflows, every context paired and in order', async () => {
      const scenario = scenarioOf(sweScenarioMessages(30, 2000));
      const { run, contexts } = await replay(scenario, 8000);
      expect(run.summary.status).toBe('completed');
      expect(run.events.some((e) => e.kind === 'removed')).toBe(true);
      expect(run.summary.peakContextTokens).toBeLessThanOrEqual(8000);
      for (const c of contexts) {
        expect(checkPairing(c, { request: true })).toEqual([]);
        expect(checkOrder(scenario.messages, c)).toBeUndefined();
      }
    });

    it(`completes the bundled ${REAL_SCENARIO} at 16384 tokens with zero pairing violations`, async () => {
      const { scenario } = await loadScenario(REAL_SCENARIO);
      const { run, contexts } = await replay(scenario, 16_384);
      expect(run.summary.status).toBe('completed');
      expect(run.summary.steps).toBe(run.summary.totalSteps);
      expect(run.events.filter((e) => e.kind === 'removed').length).toBeGreaterThan(0);
      expect(run.events.some((e) => e.kind === 'pairing_violation')).toBe(false);
      contexts.forEach((c) => expect(checkPairing(c, { request: true })).toEqual([]));
      contexts.forEach((c) => expect(checkOrder(scenario.messages, c)).toBeUndefined());
    });
  });

  describe('parameters', () => {
    it('has the field defaults', () => {
      expect(params()).toEqual({ keepFirst: 2, keepLast: 20, trigger: 0.9 });
      expect(windowStrategy.thresholds(params())).toEqual([{ label: 'window (truncate)', fraction: 0.9 }]);
    });
    it('rejects out-of-range values, naming the flag', () => {
      expect(() => params('keepFirst=0')).toThrow('--param keepFirst=0: window.keepFirst must be an integer in [1, 1000]');
      expect(() => params('keepLast=0')).toThrow(/window.keepLast must be an integer in \[1, 100000\]/);
      expect(() => params('trigger=0')).toThrow(/window.trigger must be a fraction in \(0, 1\]/);
    });
  });
});
