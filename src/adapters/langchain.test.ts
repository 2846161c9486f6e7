/**
 * The LangChain middleware in a real `createAgent` loop on LangChain's fake chat model, which plays a
 * long recorded conversation back; the tools return the recorded outputs. What the model receives at
 * each call must be compacted, well-paired, and what `bench run`'s replay of the same conversation
 * sends, call by call.
 */
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentConversation, conversationScenario, plain, SYSTEM_PROMPT, TASK } from '../../test/helpers/agent-conversation.js';
import { playback, tools } from '../../test/helpers/langchain-playback.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { compactionMiddleware } from './langchain.js';
import { chooseStrategy } from './strategy-choice.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const PLAYED = agentConversation(60);

describe('compactionMiddleware (ctxbench/langchain) in createAgent', () => {
  describe.each([
    ['masking', 16_000],
    ['progressive-removal', 16_000],
    ['offload', 48_000],
  ])('%s', (name, window) => {
    it(`a ${PLAYED.length}-call agent loop: every call's messages are compacted, well-paired, and what bench run sends`, async () => {
      const { model, prompts } = playback(PLAYED, counter);
      const kinds = new Set<string>();
      const middleware = compactionMiddleware({ strategy: name, window, onStep: ({ events }) => events.forEach((e) => kinds.add(e.kind)) });
      const agent = createAgent({ model, tools: tools(PLAYED), systemPrompt: SYSTEM_PROMPT, middleware: [middleware] });
      const state = await agent.invoke({ messages: [new HumanMessage(TASK)] }, { recursionLimit: 1000 });

      expect(prompts).toHaveLength(PLAYED.length);
      const { strategy, params } = chooseStrategy({ strategy: name });
      const { run, requests } = await recordedReplay({ scenario: conversationScenario(PLAYED), strategy, params, counter, model: 'gpt-4o', window, batchId: 'langchain' });
      expect(run.summary.status).toBe('completed');
      const sent = requests.filter((r) => r.purpose === 'agent').map((r) => r.messages.map(plain));
      expect(prompts.map((p) => p.map(plain))).toEqual(sent);

      for (const prompt of prompts) expect(checkPairing(prompt, { request: true })).toEqual([]);
      // The agent's state keeps the whole conversation (all but the system prompt); the model got less of it.
      const whole = conversationScenario(PLAYED).messages;
      expect(state.messages.map((m) => m.text)).toEqual(whole.slice(1).map((m) => m.content));
      expect(counter.countContext(prompts.at(-1)!)).toBeLessThan(counter.countContext(whole));
      expect(Math.max(...prompts.map((p) => counter.countContext(p)))).toBeLessThanOrEqual(window);
      expect(counter.countContext(whole)).toBeGreaterThan(window);
      expect([...kinds].filter((k) => k !== 'warning')).not.toEqual([]);
    });
  });

  it('writes summaries with the llm it is given, in LangChain messages', async () => {
    const asked: BaseMessage[][] = [];
    const { model, prompts } = playback(PLAYED, counter);
    const middleware = compactionMiddleware({ strategy: 'summarization', window: 16_000, llm: async (messages) => (asked.push(messages), 'SUMMARY: modules 0 to 40 fixed.') });
    await createAgent({ model, tools: tools(PLAYED), systemPrompt: SYSTEM_PROMPT, middleware: [middleware] }).invoke({ messages: [new HumanMessage(TASK)] }, { recursionLimit: 1000 });
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0]![0]!.type).toBe('system');
    expect(prompts.some((p) => p.some((m) => m.content.includes('SUMMARY: modules 0 to 40 fixed.')))).toBe(true);
    for (const prompt of prompts) expect(checkPairing(prompt, { request: true })).toEqual([]);
  });

  it('fails the model call, naming the message, on a conversation that breaks tool-call pairing', async () => {
    const { model } = playback(PLAYED, counter);
    const agent = createAgent({ model, tools: tools(PLAYED), middleware: [compactionMiddleware({ strategy: 'masking', window: 16_000 })] });
    const orphan = { role: 'tool', content: '?', tool_call_id: 'nowhere' };
    const error = await agent.invoke({ messages: [new HumanMessage(TASK), orphan] }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/messages\[1\]: breaks tool-call pairing, which no model accepts: unmatched_tool_result/);
  });
});
