/**
 * Shared fixtures for the core tests (pairing, cut points): draft builders for hand-made histories and
 * a fast-check arbitrary for well-formed histories. Lives outside src/, so it is never built into dist.
 */
import fc from 'fast-check';
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message } from '../../src/core/messages.js';

// ---------------------------------------------------------------------------------------------------
// Fixture builders: a draft becomes a message once `history` gives it its index-based id (m0, m1, ...).
// ---------------------------------------------------------------------------------------------------

export type Draft = (id: string) => Message;

export const sys =
  (content = 'You are a careful coding agent.'): Draft =>
  (id) =>
    systemMessage({ id, content });
export const user =
  (content: string): Draft =>
  (id) =>
    userMessage({ id, content });
export const say =
  (content: string): Draft =>
  (id) =>
    assistantMessage({ id, content });
/** An assistant message making the given (parallel) `bash` calls. */
export const call =
  (...callIds: string[]): Draft =>
  (id) =>
    assistantMessage({
      id,
      content: '',
      toolCalls: callIds.map((c) => ({ id: c, name: 'bash', arguments: JSON.stringify({ command: `echo ${c}` }) })),
    });
export const result =
  (callId: string, content = `output of ${callId}`): Draft =>
  (id) =>
    toolMessage({ id, toolCallId: callId, name: 'bash', content });

export const history = (...drafts: Draft[]): Message[] => drafts.map((draft, i) => draft(`m${i}`));

// ---------------------------------------------------------------------------------------------------
// Generated well-formed histories (for the properties).
// ---------------------------------------------------------------------------------------------------

const contentArb = fc.oneof(
  fc.constant(''),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('<|endoftext|>', '{"path":"/tmp/ünïcødé 😀"}', '\u0000\n\t'),
);

type Block =
  | { readonly kind: 'user'; readonly content: string }
  | { readonly kind: 'text'; readonly content: string }
  | { readonly kind: 'calls'; readonly content: string; readonly results: readonly string[]; readonly order: readonly number[] };

const callsBlockArb: fc.Arbitrary<Block> = fc.integer({ min: 1, max: 4 }).chain((n) =>
  fc.record({
    kind: fc.constant('calls' as const),
    content: contentArb,
    results: fc.array(contentArb, { minLength: n, maxLength: n }),
    order: fc.shuffledSubarray(
      Array.from({ length: n }, (_, i) => i),
      { minLength: n, maxLength: n },
    ),
  }),
);

const blockArb: fc.Arbitrary<Block> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), content: contentArb }),
  fc.record({ kind: fc.constant('text' as const), content: contentArb }),
  callsBlockArb,
);

export interface Generated {
  readonly messages: readonly Message[];
  /** True when the history ends on an assistant whose calls are still running (no results). */
  readonly trailingCalls: boolean;
}

/**
 * Well-formed histories: an optional system prompt, then user messages, assistant texts and parallel
 * calls each followed by all their results (in any order), maybe ending on calls still running.
 */
export const wellFormedArb: fc.Arbitrary<Generated> = fc
  .record({
    system: fc.option(contentArb, { nil: undefined }),
    blocks: fc.array(blockArb, { maxLength: 12 }),
    trailing: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    idPrefix: fc.string({ unit: 'grapheme', maxLength: 6 }),
    toolName: fc.string({ unit: 'grapheme', maxLength: 10 }),
  })
  .map(({ system, blocks, trailing, idPrefix, toolName }) => {
    const messages: Message[] = [];
    let calls = 0;
    const id = (): string => `m${messages.length}`;
    const newCalls = (n: number): { id: string; name: string; arguments: string }[] =>
      Array.from({ length: n }, () => ({ id: `${idPrefix}${calls++}`, name: toolName, arguments: JSON.stringify({ n: calls }) }));
    if (system !== undefined) messages.push(systemMessage({ id: id(), content: system }));
    for (const block of blocks) {
      if (block.kind === 'user') messages.push(userMessage({ id: id(), content: block.content }));
      else if (block.kind === 'text') messages.push(assistantMessage({ id: id(), content: block.content }));
      else {
        const toolCalls = newCalls(block.results.length);
        messages.push(assistantMessage({ id: id(), content: block.content, toolCalls }));
        for (const i of block.order) {
          messages.push(toolMessage({ id: id(), toolCallId: toolCalls[i]!.id, name: toolName, content: block.results[i]! }));
        }
      }
    }
    if (trailing !== undefined) messages.push(assistantMessage({ id: id(), content: '', toolCalls: newCalls(trailing) }));
    return { messages, trailingCalls: trailing !== undefined };
  });

/** The same well-formed histories, as bare message lists. */
export const wellFormedMessagesArb: fc.Arbitrary<readonly Message[]> = wellFormedArb.map(({ messages }) => messages);
