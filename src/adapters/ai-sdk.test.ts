/**
 * The AI SDK adapter in the real `ai` package's tool loop: `generateText` on the SDK's own mock model,
 * which plays a long recorded conversation back; the tools return the recorded outputs. What the
 * model receives each step must be compacted, well-paired, and what `bench run`'s replay of the same
 * conversation sends, step by step.
 */
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentConversation, conversationScenario, plain, SYSTEM_PROMPT, TASK, type Plain } from '../../test/helpers/agent-conversation.js';
import { playback, tools } from '../../test/helpers/ai-sdk-playback.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { CtxbenchError } from '../core/errors.js';
import { checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { select } from '../strategies/index.js';
import { compactSteps } from './ai-sdk.js';
import { chooseStrategy } from './strategy-choice.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const START: ModelMessage[] = [{ role: 'user', content: TASK }];

type Generated = Exclude<ConstructorParameters<typeof MockLanguageModelV3>[0], undefined>['doGenerate'];
/** One answer of the mock model: `content`, ending as `reason` says. */
const finish = (reason: 'stop' | 'tool-calls', content: unknown[]) =>
  ({
    content,
    finishReason: { unified: reason, raw: undefined },
    usage: { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } },
    warnings: [],
  }) as Extract<Generated, { content: unknown }>;

const PLAYED = agentConversation(60);
const WINDOW = 16_000;
/** Windows the strategies that only clear some outputs (or move file writes out) complete in: all of 60 steps still does not fit. */
const WINDOWS: Readonly<Record<string, number>> = { offload: 48_000, 'jetbrains-masking': 32_000 };

describe('compactSteps (ctxbench/ai-sdk) as prepareStep in generateText', () => {
  // Strategies whose edits the SDK must carry: masks, removals, restarts, rewritten call arguments (offload).
  describe.each(select(['masking', 'window', 'progressive-removal', 'offload'], ['jetbrains-masking']))('$name', ({ name }) => {
    it(`a ${PLAYED.length}-step tool loop: every step's prompt is compacted, well-paired, and what bench run sends`, async () => {
      const window = WINDOWS[name] ?? WINDOW;
      const { model, prompts } = playback(PLAYED, counter);
      const kinds = new Set<string>();
      const prepareStep = compactSteps({ strategy: name, window, system: SYSTEM_PROMPT, onStep: ({ events }) => events.forEach((e) => kinds.add(e.kind)) });
      const result = await generateText({ model, tools: tools(PLAYED), system: SYSTEM_PROMPT, messages: START, prepareStep, stopWhen: stepCountIs(100) });

      expect(result.steps).toHaveLength(PLAYED.length);
      const { strategy, params } = chooseStrategy({ strategy: name });
      const { run, requests } = await recordedReplay({ scenario: conversationScenario(PLAYED), strategy, params, counter, model: 'gpt-4o', window, batchId: 'ai-sdk' });
      expect(run.summary.status).toBe('completed');
      const sent = requests.filter((r) => r.purpose === 'agent').map((r) => r.messages.map(plain));
      expect(prompts.map((p): Plain[] => p.map(plain))).toEqual(sent);

      for (const prompt of prompts) expect(checkPairing(prompt, { request: true })).toEqual([]);
      // Compacted: the history grew past the window, and no prompt did.
      const history = result.response.messages.length + START.length + 1;
      expect(Math.max(...prompts.map((p) => counter.countContext(p)))).toBeLessThanOrEqual(window);
      expect(counter.countContext(conversationScenario(PLAYED).messages)).toBeGreaterThan(window);
      expect(prompts.at(-1)!.length).toBeLessThan(history);
      expect([...kinds].filter((k) => k !== 'warning')).not.toEqual([]);
    });
  });

  it('is a prepareStep for a tool set of any type (typed tools, as users write them)', async () => {
    const bash = tool({ inputSchema: jsonSchema<{ command: string }>({ type: 'object' }), execute: async ({ command }) => `ran ${command}` });
    const model = new MockLanguageModelV3({ doGenerate: [finish('tool-calls', [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: '{"command":"ls"}' }]), finish('stop', [{ type: 'text', text: 'Done.' }])] });
    const { text, steps } = await generateText({ model, tools: { bash }, messages: START, prepareStep: compactSteps({ strategy: 'masking', window: 1000 }), stopWhen: stepCountIs(5) });
    expect([text, steps.length]).toEqual(['Done.', 2]);
    expect(model.doGenerateCalls[1]!.prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it("keeps the SDK's own message objects for what the strategy left as it was", async () => {
    const played = agentConversation(3);
    const seen: ModelMessage[][] = [];
    const compacting = compactSteps({ strategy: 'raw', window: 100_000 });
    const { model } = playback(played, counter);
    await generateText({
      model,
      tools: tools(played),
      messages: START,
      stopWhen: stepCountIs(10),
      prepareStep: async (options) => {
        const out = await compacting(options);
        seen.push(options.messages, out!.messages!);
        return out;
      },
    });
    const [given, sentBack] = seen.slice(-2) as [ModelMessage[], ModelMessage[]];
    expect(sentBack).toHaveLength(given.length);
    sentBack.forEach((m, i) => expect(m).toBe(given[i]));
  });

  it('writes summaries with the llm it is given: the request in ModelMessages, the answer in what the model receives', async () => {
    const asked: ModelMessage[][] = [];
    const { model, prompts } = playback(PLAYED, counter);
    const prepareStep = compactSteps({
      strategy: 'summarization',
      window: WINDOW,
      llm: async (messages) => (asked.push(messages), 'SUMMARY: the agent fixed modules 0 to 40.'),
    });
    // The system prompt as the first message this time (the other form the adapter reads).
    const messages: ModelMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }, ...START];
    await generateText({ model, tools: tools(PLAYED), messages, allowSystemInMessages: true, prepareStep, stopWhen: stepCountIs(100) });
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0]![0]).toMatchObject({ role: 'system' });
    expect(prompts.some((p) => p.some((m) => m.content.includes('SUMMARY: the agent fixed modules 0 to 40.')))).toBe(true);
    for (const prompt of prompts) expect(checkPairing(prompt, { request: true })).toEqual([]);
  });

  it('refuses a conversation that breaks tool-call pairing, naming the message', async () => {
    const prepareStep = compactSteps({ strategy: 'masking', window: WINDOW });
    const messages: ModelMessage[] = [...START, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'nowhere', toolName: 'bash', output: { type: 'text', value: '?' } }] }];
    const error = await Promise.resolve(prepareStep({ steps: [], stepNumber: 0, messages })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CtxbenchError);
    expect((error as Error).message).toMatch(/^messages\[1\]\.content\[0\]: breaks tool-call pairing, which no model accepts: unmatched_tool_result/);
  });
});
