import { beforeAll, describe, expect, it } from 'vitest';
import { strategyOrigin, userMessage, withContent, type Message } from '../core/messages.js';
import { checkOrder, checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { createMockBackend } from '../llm/mock.js';
import type { Backend, ChatRequest } from '../core/backend.js';
import { maskingStrategy } from '../strategies/masking.js';
import { defaultParams, type Params } from '../core/params.js';
import { rawStrategy } from '../strategies/raw.js';
import { defineStrategy, type StrategyDefinition } from '../core/strategy.js';
import { toolsText } from '../core/tools.js';
import { scaledCounter } from '../metrics/calibration.js';
import type { LoadedScenario } from '../scenarios/load.js';
import { parseScenario } from '../scenarios/scenario.js';
import { planJobs } from './job-plan.js';
import type { MatrixEntry } from './matrix-entry.js';
import { countersFor, runJob } from './run-job.js';
import { scenarioOf, sweScenarioMessages } from '../../test/helpers/history.js';
import { replayScenario } from './replay.js';


let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

/** Wraps the mock so a test can inspect every context that was sent. */
function spy(): { backend: Backend; contexts: (readonly Message[])[] } {
  const contexts: (readonly Message[])[] = [];
  const mock = createMockBackend(counter);
  return {
    contexts,
    backend: { name: 'mock', complete: (request) => (contexts.push([...request.messages]), mock.complete(request)) },
  };
}

const replay = (scenario: ReturnType<typeof scenarioOf>, strategy: StrategyDefinition, window: number, backend: Backend, params?: Params) =>
  replayScenario({ scenario, sourceFormat: 'ctxbench', strategy, params: params ?? defaultParams(strategy.params), backend, counter, model: 'gpt-4o', window, batchId: 'b1' });

describe('replayScenario', () => {
  const scenario = () => scenarioOf(sweScenarioMessages(30, 2000));

  describe('raw', () => {
    it('sends the whole recorded history and overflows at the first step that exceeds the window', async () => {
      const s = scenario();
      const { backend, contexts } = spy();
      const run = await replay(s, rawStrategy, 8000, backend);
      expect(run.summary.status).toBe('overflow');
      const failed = run.summary.failedStep!;
      expect(run.steps.at(-1)!.promptTokens).toBeGreaterThan(8000);
      expect(run.steps.slice(0, -1).every((step) => step.promptTokens <= 8000)).toBe(true);
      expect(contexts).toHaveLength(failed); // the overflowing context is never sent
      expect(run.summary.steps).toBe(failed);
      expect(run.summary.inputTokens).toBe(run.steps.slice(0, -1).reduce((a, step) => a + step.promptTokens, 0));
      expect(run.events.map((e) => e.kind)).toEqual(['overflow']);
      // Teacher forcing: each context is the recorded history before that turn.
      contexts.forEach((c, i) => expect(c).toEqual(s.messages.slice(0, 2 + 2 * i)));
    });

    it('completes with a window that fits, and counts each context with the tokenizer', async () => {
      const { backend, contexts } = spy();
      const run = await replay(scenario(), rawStrategy, 1_000_000, backend);
      expect(run.summary).toMatchObject({ status: 'completed', steps: 31, totalSteps: 31, sessions: 1, restarts: 0 });
      run.steps.forEach((step, i) => expect(step.promptTokens).toBe(counter.countContext(contexts[i]!)));
      expect(run.summary.peakContextTokens).toBe(Math.max(...run.steps.map((step) => step.promptTokens)));
    });
  });

  describe('masking', () => {
    it('survives the window raw overflows, and every context it sent is well-paired and in order', async () => {
      const s = scenario();
      const { backend, contexts } = spy();
      const run = await replay(s, maskingStrategy, 8000, backend);
      expect(run.summary.status).toBe('completed');
      expect(run.summary.peakContextPct).toBeLessThanOrEqual(1);
      expect(run.events.some((e) => e.kind === 'masked')).toBe(true);
      for (const c of contexts) {
        expect(checkPairing(c)).toEqual([]);
        expect(checkOrder(s.messages, c)).toBeUndefined();
      }
    });

    it('restarts sessions when masking cannot keep up, and records them', async () => {
      // Long reasoning turns: maskingStrategy outputs alone cannot keep the context under the hard threshold.
      const s = scenarioOf(sweScenarioMessages(40, 400, 1200));
      const { backend, contexts } = spy();
      const run = await replay(s, maskingStrategy, 2500, backend, { ...defaultParams(maskingStrategy.params), carryoverTurns: 2 });
      expect(run.summary.status).toBe('completed');
      expect(run.summary.restarts).toBeGreaterThan(0);
      expect(run.summary.sessions).toBe(run.summary.restarts + 1);
      expect(new Set(run.steps.map((step) => step.session)).size).toBe(run.summary.sessions);
      expect(run.steps.find((step) => step.action.includes('restart'))?.session).toBe(2);
      contexts.forEach((c) => expect(checkPairing(c)).toEqual([]));
    });

    it('stops the run when max_restarts is reached', async () => {
      const s = scenarioOf(sweScenarioMessages(40, 400, 1200));
      const run = await replay(s, maskingStrategy, 2500, spy().backend, { ...defaultParams(maskingStrategy.params), maxRestarts: 0 });
      expect(run.summary.status).toBe('stopped');
      expect(run.summary.failure).toBe('max_restarts (0) reached');
      expect(run.events.at(-1)!.kind).toBe('stopped');
    });
  });

  describe('cached input (the prefix each request shares with the last)', () => {
    /** Raw, but from step 3 on the first tool result is shortened: in a fresh copy each request, or in place in the strategy's own array. */
    const editing = (inPlace: boolean): StrategyDefinition =>
      defineStrategy({
        name: inPlace ? 'editing-in-place' : 'editing-a-copy',
        summary: 'shortens the first tool result at step 3',
        create: () => {
          let own: Message[] | undefined;
          let short: Message | undefined;
          const edit = (messages: readonly Message[]): Message[] => {
            const at = messages.findIndex((m) => m.role === 'tool');
            short ??= withContent(messages[at]!, 'shorter', strategyOrigin('editing', 'shortened'));
            return messages.map((m, i) => (i === at ? short! : m));
          };
          return {
            beforeRequest: ({ messages, step, appendedFrom }) => {
              if (!inPlace) return { messages: step < 3 ? messages : edit(messages) };
              if (own === undefined) own = [...messages];
              else own.push(...messages.slice(appendedFrom));
              if (step === 3) edit(own).forEach((m, i) => (own![i] = m));
              return { messages: own };
            },
          };
        },
      });

    it('is the same whether a strategy edits its own array in place or sends a copy', async () => {
      const s = scenario();
      const [copied, inPlace] = [await replay(s, editing(false), 1_000_000, spy().backend), await replay(s, editing(true), 1_000_000, spy().backend)];
      expect(copied.summary.status).toBe('completed');
      expect(inPlace.steps.map((x) => x.promptTokens)).toEqual(copied.steps.map((x) => x.promptTokens));
      expect(copied.summary.cachedInputTokens).toBeLessThan((await replay(s, rawStrategy, 1_000_000, spy().backend)).summary.cachedInputTokens!);
      expect(inPlace.summary.cachedInputTokens).toBe(copied.summary.cachedInputTokens);
    });
  });

  describe('failure paths', () => {
    it('ends the run with status error when the backend fails, keeping the steps before it', async () => {
      const mock = createMockBackend(counter);
      let calls = 0;
      const flaky: Backend = {
        name: 'flaky',
        complete: (request) => (++calls === 3 ? Promise.reject(new Error('cannot reach http://127.0.0.1:9 (connection refused)')) : mock.complete(request)),
      };
      const run = await replay(scenario(), rawStrategy, 1_000_000, flaky);
      expect(run.summary).toMatchObject({ status: 'error', failedStep: 2, steps: 2, failure: 'flaky: cannot reach http://127.0.0.1:9 (connection refused)' });
      expect(run.events.at(-1)).toMatchObject({ kind: 'error', step: 2 });
    });

    it('fails a run whose strategy breaks pairing, naming the violation', async () => {
      const dropsResults: StrategyDefinition = {
        ...rawStrategy,
        name: 'drops-results',
        create: () => ({ beforeRequest: ({ messages }) => ({ messages: messages.filter((m) => m.role !== 'tool') }) }),
      };
      const run = await replay(scenario(), dropsResults, 1_000_000, spy().backend);
      expect(run.summary.status).toBe('invalid_context');
      expect(run.summary.failedStep).toBe(1); // the first context whose call has no result
      expect(run.summary.failure).toMatch(/^agent request: unmatched_tool_use at \[2\]/);
    });

    it('compares local counts with recorded provider usage on unmodified steps only', async () => {
      const messages = sweScenarioMessages(5, 200).map((m) =>
        m.role === 'assistant' ? { ...m, usage: { promptTokens: 1000 } } : m,
      );
      const run = await replay(scenarioOf(messages), rawStrategy, 1_000_000, spy().backend);
      const c = run.summary.usageComparison!;
      expect(c.comparedSteps).toBe(6);
      const expected = run.steps.map((step) => (step.promptTokens - 1000) / 1000);
      expect(c.meanPctError).toBeCloseTo((expected.reduce((a, b) => a + b) / 6) * 100, 6);
      expect(run.steps.every((step) => step.recordedPromptTokens === 1000)).toBe(true);
    });
  });
});

describe('tool definitions of a scenario that declares them (billed with every request that sends them)', () => {
  const TOOLS = [
    { name: 'bash', description: 'Run a shell command in the repository.', parameters: { type: 'object', properties: { command: { type: 'string', description: 'The command.' } }, required: ['command'] } },
    { name: 'finish', description: 'End the task.' },
  ];
  const tooled = (): LoadedScenario => ({
    scenario: parseScenario({ ctxbench: 1, id: 'tooled', model: { name: 'gpt-4o' }, tools: TOOLS, messages: sweScenarioMessages(6, 300) }, 'tooled.json'),
    format: 'ctxbench',
  });
  const job = (loaded: LoadedScenario, strategy: StrategyDefinition, calibration?: { factor: number; overhead: number }) => {
    const entry: MatrixEntry = { strategy, params: defaultParams(strategy.params) };
    const planned = planJobs([loaded], [entry], { encoding: 'o200k_base', calibration: calibration ? new Map([['gpt-4o|o200k_base', calibration]]) : undefined }).jobs[0]!;
    const requests: ChatRequest[] = [];
    const mock = createMockBackend(counter);
    const backend: Backend = { name: 'mock', complete: (request) => (requests.push({ ...request, messages: [...request.messages] }), mock.complete(request)) };
    return { run: () => runJob(planned, loaded, entry, { backend, counterFor: countersFor(counter), batchId: 'b1' }), requests };
  };

  it('regression: counts them in every agent request, as the provider billed them, and sends them with it', async () => {
    const loaded = tooled();
    const { run, requests } = job(loaded, rawStrategy);
    const result = await run();
    const tools = counter.countText(toolsText(TOOLS));
    expect(tools).toBeGreaterThan(40);
    result.steps.forEach((step, i) => expect(step.promptTokens).toBe(counter.countContext(requests[i]!.messages) + tools));
    expect(requests.every((r) => r.tools === loaded.scenario.tools)).toBe(true);
  });

  it('scales them with a calibration, and a strategy measures the context with them (its counter is the request counter)', async () => {
    const seen: number[] = [];
    const measuring = defineStrategy({ name: 'measuring', summary: 'raw, noting its own count', create: () => ({ beforeRequest: ({ messages, counter: own }) => (seen.push(own.countContext(messages)), { messages }) }) });
    const { run } = job(tooled(), measuring, { factor: 1.5, overhead: 100 });
    const result = await run();
    expect(result.steps.map((s) => s.promptTokens)).toEqual(seen);
    const calibrated = scaledCounter(counter, 1.5, 100);
    expect(seen[0]).toBe(calibrated.countContext(tooled().scenario.messages.slice(0, 2)) + calibrated.countText(toolsText(TOOLS)));
  });

  it('an auxiliary request of plain text sends none and is counted without them; one holding tool calls sends and counts them', async () => {
    const summarizing = defineStrategy({
      name: 'summarizing',
      summary: 'asks two summaries at step 3',
      create: () => ({
        beforeRequest: async ({ messages, step, llm, systemPrompt }) => {
          if (step === 3) {
            const instruction = userMessage({ id: 'ask', content: 'Summarize the work so far.' });
            await llm({ messages: [systemPrompt!, userMessage({ id: 'text', content: 'The agent ran ls and read a file.' }), instruction], purpose: 'summary' });
            await llm({ messages: [...messages, instruction], purpose: 'summary' });
          }
          return { messages };
        },
      }),
    });
    const { run, requests } = job(tooled(), summarizing);
    const result = await run();
    const summaries = requests.filter((r) => r.purpose === 'summary');
    expect(summaries.map((r) => r.tools)).toEqual([undefined, TOOLS]);
    const steps = result.steps.filter((s) => s.purpose === 'summary');
    expect(steps.map((s) => s.promptTokens)).toEqual([counter.countContext(summaries[0]!.messages), counter.countContext(summaries[1]!.messages) + counter.countText(toolsText(TOOLS))]);
  });
});
