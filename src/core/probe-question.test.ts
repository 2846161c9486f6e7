import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, toolMessage, userMessage } from './messages.js';
import { checkPairing } from './pairing.js';
import { probePrompt, probeRequest, questionOf, replyHolds } from './probe-question.js';

describe('probe prompts', () => {
  it('the question a prompt asks reads back exactly, whatever it holds', () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), (question) => questionOf(probePrompt(question)) === question));
  });

  it('a summary request or a task is not a probe prompt', () => {
    expect(questionOf('Summarize the conversation so far.\n## Goal')).toBeUndefined();
    expect(questionOf('Question: what is the port?')).toBeUndefined();
  });

  it('the request is the context as sent plus the question, and stays well paired', () => {
    const context = [
      systemMessage({ id: 's', content: 'You are an agent.' }),
      userMessage({ id: 'u', content: 'Fix it.' }),
      assistantMessage({ id: 'a', content: '', toolCalls: [{ id: 'c', name: 'bash', arguments: '{}' }] }),
      toolMessage({ id: 't', toolCallId: 'c', name: 'bash', content: 'port=8421' }),
    ];
    const request = probeRequest(context, 'port', 'Which port?');
    expect(request.slice(0, 4)).toEqual(context);
    expect(request[4]).toMatchObject({ role: 'user', id: 'probe:port', content: probePrompt('Which port?') });
    expect(checkPairing(request, { request: true })).toEqual([]);
  });
});

describe('replyHolds', () => {
  it.each([
    ['It is set to 942599 in config/staging.toml.', '942599', true],
    ['`src/legacy/nimbus/sorrel_store_6289.ts`', 'src/legacy/nimbus/sorrel_store_6289.ts', true],
    ['The hash is A1B2C3D4E5F6.', 'a1b2c3d4e5f6', true],
    ['942,599', '942599', true],
    ['942 599 ms', '942599', true],
    ['unknown', '942599', false],
    ['It is 94259.', '942599', false],
    ['12,942,5990', '942599', false],
  ])('%j holds %j: %s', (reply, answer, expected) => {
    expect(replyHolds(reply, answer)).toBe(expected);
  });

  it('any reply that contains the answer holds it', () => {
    fc.assert(fc.property(fc.string(), fc.string({ minLength: 1 }).filter((a) => a.trim() !== '' && !/[`"'*]/.test(a)), fc.string(), (before, answer, after) => replyHolds(`${before} ${answer} ${after}`, answer)));
  });
});
