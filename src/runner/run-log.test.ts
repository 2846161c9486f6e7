import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../core/backend.js';
import { assistantMessage } from '../core/messages.js';
import { createTokenCounter, PER_MESSAGE_TOKENS } from '../core/tokens.js';
import { RunEnded, RunLog } from './run-log.js';

const counter = await createTokenCounter('o200k_base');
const message = assistantMessage({ id: 'a1', content: 'Done: the test passes now.' });
const WINDOW = 1000;

/** A log at step 3 of session 2. */
function logAt(): RunLog {
  const log = new RunLog(WINDOW, counter);
  log.step = 3;
  log.session = 2;
  return log;
}

describe('RunLog', () => {
  describe('answered', () => {
    it('counts a local answer with the run counter, the prompt as the local count', () => {
      const log = logAt();
      const response: ChatResponse = { message, usage: { promptTokens: 1, completionTokens: 1 }, usageSource: 'local' };
      const usage = log.answered({ purpose: 'summary', localTokens: 400, response, messageCount: 5, action: '' });
      expect(usage).toEqual({ promptTokens: 400, completionTokens: counter.countMessage(message) - PER_MESSAGE_TOKENS });
      expect(log.steps).toEqual([
        expect.objectContaining({ step: 3, session: 2, purpose: 'summary', promptTokens: 400, contextPct: 0.4, usageSource: 'local', cached: undefined, providerPromptTokens: undefined }),
      ]);
    });

    it("keeps a provider's numbers as reported, and falls back to the local count (stored as local) when the prompt count is missing", () => {
      const log = logAt();
      const reported: ChatResponse = { message, usage: { promptTokens: 420, completionTokens: 7 }, usageSource: 'provider', finishReason: 'stop' };
      expect(log.answered({ purpose: 'agent', localTokens: 400, response: reported, messageCount: 5, action: 'mask', recordedPrompt: 410 })).toBe(reported.usage);
      const missing: ChatResponse = { message, usage: { completionTokens: 7 }, usageSource: 'provider' };
      log.answered({ purpose: 'agent', localTokens: 400, response: missing, messageCount: 5, action: '' });
      expect(log.steps.map((s) => [s.promptTokens, s.usageSource, s.providerPromptTokens, s.cached, s.recordedPromptTokens, s.action])).toEqual([
        [420, 'provider', 420, false, 410, 'mask'],
        [400, 'local', undefined, false, undefined, ''],
      ]);
    });
  });

  it('records events at its step and session, and how the run ended as the last event', () => {
    const log = logAt();
    log.record([{ kind: 'restart', detail: 'new session' }]);
    log.addStep({ purpose: 'agent', promptTokens: 1200, usage: undefined, messageCount: 9, source: 'local', action: '' });
    log.end(new RunEnded('overflow', 'context of 1200 tokens exceeds the 1000-token window'));
    log.end(new RunEnded('invalid_context', 'agent request: ...'));
    expect(log.events).toEqual([
      { kind: 'restart', detail: 'new session', step: 3, session: 2 },
      { kind: 'overflow', detail: 'context of 1200 tokens exceeds the 1000-token window', tokensBefore: 1200, step: 3, session: 2 },
      { kind: 'pairing_violation', detail: 'agent request: ...', tokensBefore: undefined, step: 3, session: 2 },
    ]);
  });
});
