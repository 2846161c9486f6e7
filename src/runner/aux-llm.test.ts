import { beforeAll, describe, expect, it } from 'vitest';
import type { Backend, ChatResponse } from '../core/backend.js';
import { assistantMessage, systemMessage, userMessage, type Message } from '../core/messages.js';
import { AuxiliaryCallError } from '../core/strategy.js';
import { createTokenCounter, PER_MESSAGE_TOKENS, type TokenCounter } from '../core/tokens.js';
import { createAdmit } from './admit.js';
import { auxiliaryLlm } from './aux-llm.js';
import { RunLog } from './run-log.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

const WINDOW = 1000;
/** A summary request of about `tokens` tokens: the system prompt, a span, the instruction. */
function request(tokens: number): Message[] {
  const span = 'alpha '.repeat(Math.max(0, tokens - 40));
  return [
    systemMessage({ id: 's', content: 'You are an agent.' }),
    userMessage({ id: 'span', content: span }),
    userMessage({ id: 'ask', content: 'Summarize the conversation above.' }),
  ];
}

/** A backend that answers every request with `answer`: the mock's way (local counts) or a provider's. */
function answering(answer: string, source: 'local' | 'provider'): Backend {
  return {
    name: source === 'local' ? 'mock' : 'ollama:chat:test',
    async complete(req): Promise<ChatResponse> {
      const message = assistantMessage({ id: 'reply', content: answer });
      const completionTokens = counter.countMessage(message) - PER_MESSAGE_TOKENS;
      return source === 'local'
        ? { message, usage: {}, usageSource: 'local' }
        : { message, usage: { promptTokens: counter.countContext(req.messages), completionTokens }, usageSource: 'provider' };
    },
  };
}

function call(answer: string, source: 'local' | 'provider', promptTokens: number) {
  const log = new RunLog(WINDOW, counter);
  const llm = auxiliaryLlm({ backend: answering(answer, source), counter, window: WINDOW, log, admit: createAdmit(counter, log) });
  const messages = request(promptTokens);
  return { log, prompt: counter.countContext(messages), result: llm({ messages, purpose: 'summary' }).then((r) => r, (error: unknown) => error) };
}

describe('auxiliary calls: the answer must fit the window too', () => {
  const LONG_ANSWER = 'The summary goes on. '.repeat(60); // ~300 tokens

  it('accepts an answer whose prompt plus answer fit the window', async () => {
    const { log, result } = call('## Summary\n- short', 'local', 600);
    expect(await result).toMatchObject({ text: '## Summary\n- short' });
    expect(log.steps.map((s) => s.purpose)).toEqual(['summary']);
  });

  // Regression: summary and checkpoint requests were accepted at 100.9%, 101.8% and 102.9% of the window.
  it('refuses, as a provider would, a prompt that fits whose answer does not (the mock: never billed)', async () => {
    const { log, prompt, result } = call(LONG_ANSWER, 'local', 900);
    expect(prompt).toBeLessThanOrEqual(WINDOW);
    const error = await result;
    expect(error).toBeInstanceOf(AuxiliaryCallError);
    expect((error as AuxiliaryCallError).reason).toBe('overflow');
    const [event] = log.events;
    expect(event).toMatchObject({ kind: 'aux_failed' });
    expect(event!.detail).toMatch(new RegExp(`^summary: a prompt of ${prompt} tokens plus an answer of \\d+ tokens exceeds the 1000-token window$`));
    expect(log.steps).toEqual([]);
  });

  it("keeps a provider's oversized answer as a billed step, and still refuses it", async () => {
    const { log, result } = call(LONG_ANSWER, 'provider', 900);
    expect(await result).toMatchObject({ reason: 'overflow' });
    expect(log.steps).toHaveLength(1);
    const [step] = log.steps;
    expect(step!.promptTokens + step!.completionTokens).toBeGreaterThan(WINDOW);
  });
});
