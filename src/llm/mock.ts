/**
 * The mock LLM: replays the recorded assistant turn and reports usage counted with the local
 * tokenizer, so a replay is fast, free and deterministic. Its assumptions are stated in every report.
 */
import { PER_MESSAGE_TOKENS, type TokenCounter } from '../core/tokens.js';
import type { Backend, ChatRequest, ChatResponse } from './types.js';

export const MOCK_ASSUMPTIONS =
  'Mock LLM: replays the recorded assistant turns (teacher forcing); prompt and completion tokens are local tokenizer counts, not a provider\'s.';

export function createMockBackend(counter: TokenCounter): Backend {
  return {
    name: 'mock',
    async complete(request: ChatRequest): Promise<ChatResponse> {
      if (!request.recorded) {
        throw new Error(`mock backend: no recorded turn for a "${request.purpose}" request`);
      }
      return {
        message: request.recorded,
        usage: {
          promptTokens: counter.countContext(request.messages),
          completionTokens: counter.countMessage(request.recorded) - PER_MESSAGE_TOKENS,
        },
        usageSource: 'local',
      };
    },
  };
}
