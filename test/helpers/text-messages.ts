/**
 * Messages for property tests of what the metrics find in a context: a user message, or an assistant
 * turn with up to two tool calls, every text (content, arguments) made of `unit`.
 */
import fc from 'fast-check';
import { assistantMessage, userMessage, type Message } from '../../src/core/messages.js';

export function textMessage(unit: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<Message> {
  const text = fc.string({ unit, maxLength });
  return fc.oneof(
    text.map((content) => userMessage({ id: 'u', content })),
    fc.tuple(text, fc.array(text, { maxLength: 2 })).map(([content, args]) =>
      assistantMessage({ id: 'a', content, toolCalls: args.map((a, i) => ({ id: `c${i}`, name: 'bash', arguments: a })) }),
    ),
  );
}
