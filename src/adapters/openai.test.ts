import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentConversation, conversationScenario, plain } from '../../test/helpers/agent-conversation.js';
import { recordedReplay } from '../../test/helpers/replay.js';
import { CtxbenchError } from '../core/errors.js';
import { checkPairing } from '../core/pairing.js';
import { createTokenCounter, type TokenCounter } from '../core/tokens.js';
import { fromOpenAiMessages, toOpenAiMessages } from '../llm/convert.js';
import { compact, createCompactor } from './openai.js';
import { chooseStrategy } from './strategy-choice.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter('o200k_base');
});

type Chat = ChatCompletionMessageParam;

const PLAYED = agentConversation(60);
const SCENARIO = conversationScenario(PLAYED);
/** The conversation as an `openai` SDK user holds it, and where each request is sent (before each assistant turn). */
const CONVERSATION: Chat[] = toOpenAiMessages(SCENARIO.messages);
const REQUESTS = CONVERSATION.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));

const error = async (promise: Promise<unknown>): Promise<string> => {
  const e = await promise.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(CtxbenchError);
  return (e as Error).message;
};

describe('compact / createCompactor (OpenAI chat messages)', () => {
  it('an agent loop sends what bench run sends, step by step, every context well-paired', async () => {
    const window = 16_000;
    const compactor = createCompactor({ strategy: 'masking', window });
    const sent: Chat[][] = [];
    for (const end of REQUESTS) sent.push((await compactor.compact(CONVERSATION.slice(0, end))).messages);

    const { strategy, params } = chooseStrategy({ strategy: 'masking' });
    const { run, requests } = await recordedReplay({ scenario: SCENARIO, strategy, params, counter, model: 'gpt-4o', window, batchId: 'openai' });
    expect(run.summary.status).toBe('completed');
    const replayed = requests.filter((r) => r.purpose === 'agent').map((r) => r.messages.map(plain));
    expect(sent.map((messages) => fromOpenAiMessages(messages).map(plain))).toEqual(replayed);
    for (const messages of sent) expect(checkPairing(fromOpenAiMessages(messages), { request: true })).toEqual([]);
    expect(sent.some((messages, i) => messages.length < REQUESTS[i]!)).toBe(true);
  });

  it("gives back the caller's own objects for what the strategy kept, and edited copies for what it changed", async () => {
    const messages = CONVERSATION.slice(0, REQUESTS[20]);
    const result = await compact(messages, { strategy: 'clear-tool-results', params: { triggerTokens: 0, keep: 2 }, window: 100_000 });
    const masked = result.messages.filter((m) => !messages.includes(m));
    expect(masked.length).toBeGreaterThan(0);
    expect(masked.every((m) => m.role === 'tool')).toBe(true);
    for (const m of masked as Extract<Chat, { role: 'tool' }>[]) {
      const original = messages.find((o) => o.role === 'tool' && o.tool_call_id === m.tool_call_id)!;
      expect(m.content).not.toEqual(original.content);
    }
    expect(result.events.filter((e) => e.kind === 'masked')).toHaveLength(masked.length);
    expect(result.tokens).toBeLessThan(counter.countContext(fromOpenAiMessages(messages)));
  });

  it('reads content given as parts, and keeps such a message as it was (its images too)', async () => {
    const question: Chat = {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in ' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'text', text: 'this picture?' },
      ],
    };
    const result = await compact([{ role: 'system', content: 'Be brief.' }, question], { strategy: 'masking', window: 10_000 });
    expect(result.messages[1]).toBe(question);
    expect(result.tokens).toBe(counter.countContext(fromOpenAiMessages([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What is in this picture?' }])));
  });

  it('refuses options that are no object, and an llm that is no function, naming them', () => {
    expect(() => createCompactor(null as never)).toThrow('options: expected an object with strategy and window (got null)');
    expect(() => createCompactor({ strategy: 'masking', window: 1000, llm: 'nope' as never })).toThrow('llm: expected a function (got string)');
  });

  it("a conversation of the wrong shape (from plain JS) is MESSAGES_INVALID naming the path, not a TypeError or the strategy's fault", async () => {
    const call = (args: unknown) => [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: args } }] }, { role: 'tool', tool_call_id: 'a', content: 'x' }];
    const cases: [unknown, string][] = [
      ['hello', 'messages: expected a list of messages (got string)'],
      [[null], 'messages[0]: expected a message object (got null)'],
      [[{ role: 'user', content: 42 }], 'messages[0].content: expected text or a list of parts (got number)'],
      [call({ cmd: 'ls' }), 'messages[2].tool_calls[0].function.arguments: expected a JSON string (got object)'],
      [[{ role: 'user', content: 'u' }, { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'custom', custom: { name: 'apply_patch' } }] }], 'messages[1].tool_calls[0].custom.input: expected text (got undefined)'],
      // Legacy function calling pairs a result with its call by name: refused, not a pairing error.
      [[{ role: 'user', content: 'u' }, { role: 'assistant', content: null, function_call: { name: 'bash', arguments: '{}' } }], 'messages[1].function_call: legacy function calling is not supported (send tool_calls and tool messages)'],
      [[{ role: 'user', content: 'u' }, { role: 'function', name: 'bash', content: 'out' }], 'messages[1]: legacy function calling is not supported (send tool_calls and tool messages)'],
    ];
    for (const [messages, problem] of cases) {
      const error = await compact(messages as never, { strategy: 'masking', window: 1000 }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(CtxbenchError);
      expect(`${(error as CtxbenchError).code}: ${(error as CtxbenchError).message}`).toBe(`MESSAGES_INVALID: ${problem}`);
    }
  });

  it("reads a custom tool's calls (free-text input) as calls, and gives back an edited one as a custom call", async () => {
    const messages: Chat[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'Fix the bug.' }];
    for (let i = 0; i < 4; i++) {
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `p${i}`, type: 'custom', custom: { name: 'apply_patch', input: `*** Begin Patch ${i}\n${'+ line\n'.repeat(50)}*** End Patch` } }] });
      messages.push({ role: 'tool', tool_call_id: `p${i}`, content: `applied ${i}\n${'ok\n'.repeat(50)}` });
    }
    const result = await compact(messages, { strategy: 'clear-tool-results', params: { triggerTokens: 0, keep: 1, clearToolInputs: true }, window: 100_000 });
    const calls = result.messages.flatMap((m) => (m.role === 'assistant' ? m.tool_calls ?? [] : []));
    expect(calls.map((c) => c.type)).toEqual(['custom', 'custom', 'custom', 'custom']);
    const inputs = calls.map((c) => (c.type === 'custom' ? c.custom.input : ''));
    expect(inputs.slice(0, 3)).toEqual(['{}', '{}', '{}']); // cleared, as clear_tool_inputs clears
    expect(inputs[3]).toBe((messages[8] as { tool_calls: { custom: { input: string } }[] }).tool_calls[0]!.custom.input);
    expect(result.messages[8]).toBe(messages[8]); // the last call kept: the caller's own object
    expect(checkPairing(fromOpenAiMessages(result.messages), { request: true })).toEqual([]);
  });

  it('two compactions at once on one compactor give what the same two give one after the other', async () => {
    const a: ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are an agent.' }, { role: 'user', content: 'conversation A' }];
    const b: ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are an agent.' }, { role: 'user', content: 'conversation B' }];
    const together = createCompactor({ strategy: 'masking', window: 2000 });
    const both = await Promise.all([together.compact(a), together.compact(b)]);
    const inTurn = createCompactor({ strategy: 'masking', window: 2000 });
    const first = await inTurn.compact(a);
    const second = await inTurn.compact(b);
    expect(both).toEqual([first, second]);
    expect(both[1].messages).toEqual(b);
  });

  it('hands the strategy the usage the provider reported for the previous request', async () => {
    const compactor = createCompactor({ strategy: 'masking', params: { measure: 'last-prompt' }, window: 16_000 });
    await compactor.compact(CONVERSATION.slice(0, REQUESTS[0]));
    // A provider that counted the whole window: masking's last-prompt measure masks at once.
    const next = await compactor.compact(CONVERSATION.slice(0, REQUESTS[3]), { usage: { prompt_tokens: 16_000, completion_tokens: 20, total_tokens: 16_020 } });
    expect(next.events.map((e) => e.kind)).toContain('wind_down');
    const bad = await createCompactor({ strategy: 'raw', window: 16_000 });
    await bad.compact(CONVERSATION.slice(0, REQUESTS[0]));
    const warned = await bad.compact(CONVERSATION.slice(0, REQUESTS[1]), { usage: { prompt_tokens: -1, completion_tokens: 2, total_tokens: 1 } });
    expect(warned.events.map((e) => e.detail)).toEqual([expect.stringMatching(/^usage\.prompt_tokens = -1 is not a token count .*: ignored, ctxbench's count used$/)]);
  });

  it('asks the llm it is given for summaries, in OpenAI messages', async () => {
    const asked: Chat[][] = [];
    const compactor = createCompactor({ strategy: 'summarization', window: 16_000, llm: async (messages) => (asked.push(messages), 'SUMMARY: all modules checked.') });
    let last: Chat[] = [];
    for (const end of REQUESTS) last = (await compactor.compact(CONVERSATION.slice(0, end))).messages;
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0]![0]).toMatchObject({ role: 'system' });
    expect(last.some((m) => typeof m.content === 'string' && m.content.includes('SUMMARY: all modules checked.'))).toBe(true);
  });

  describe('bad input is one line naming it', () => {
    it.each([
      [[{ role: 'system', content: 'x' }, { role: 'bot', content: 'hi' }], 'messages[1]: role "bot" is not one of system, developer, user, assistant, tool, function'],
      [[{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'nowhere', content: '?' }], 'messages[1]: breaks tool-call pairing, which no model accepts: unmatched_tool_result at [1]: no call with id nowhere in the context'],
    ])('%j', async (messages, message) => {
      expect(await error(compact(messages as Chat[], { strategy: 'masking', window: 1000 }))).toBe(message);
    });

    it('an unknown strategy or parameter', async () => {
      expect(await error(compact([], { strategy: 'maskng', window: 1000 }))).toMatch(/^strategy: unknown strategy "maskng"/);
      expect(await error(compact([], { strategy: 'masking', params: { softThreshold: 2 }, window: 1000 }))).toBe('params.softThreshold: 2 is not a fraction in (0, 1]');
    });
  });
});
