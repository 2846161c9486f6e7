/**
 * A StrategyInput for calling a strategy's hooks directly in unit tests, and an auxiliary LLM to put in it.
 */
import { assistantMessage, type Message, type SystemMessage } from '../../src/core/messages.js';
import type { TokenCounter } from '../../src/core/tokens.js';
import { createOffloadStore } from '../../src/core/offload-store.js';
import { AuxiliaryCallError, type AuxiliaryLlm, type AuxiliaryRequest, type StrategyInput } from '../../src/core/strategy.js';

/** Defaults: step 0 of session 1, nothing appended since a last request, no auxiliary LLM. */
export function strategyInput(counter: TokenCounter, messages: readonly Message[], window: number, extra: Partial<StrategyInput> = {}): StrategyInput {
  const systemPrompt = messages[0]?.role === 'system' ? (messages[0] as SystemMessage) : undefined;
  return {
    messages,
    step: 0,
    session: 1,
    sessionSteps: 0,
    window,
    counter,
    systemPrompt,
    appendedFrom: extra.last?.sentCount ?? 0,
    llm: () => Promise.reject(new AuxiliaryCallError('backend', 'no auxiliary LLM in this test')),
    files: createOffloadStore(),
    ...extra,
  };
}

/** An auxiliary LLM that records each request and answers with `answer` (or throws it). */
export function recordingLlm(answer: string | Error): { llm: AuxiliaryLlm; requests: AuxiliaryRequest[] } {
  const requests: AuxiliaryRequest[] = [];
  const llm: AuxiliaryLlm = async (request) => {
    requests.push(request);
    if (answer instanceof Error) throw answer;
    return { message: assistantMessage({ id: 'aux', content: answer }), text: answer, usage: {} };
  };
  return { llm, requests };
}
