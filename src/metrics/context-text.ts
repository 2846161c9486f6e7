/**
 * What the metrics search in a context: each message's content and, for an assistant, its tool
 * calls' arguments (raw JSON text, as sent).
 */
import type { Message } from '../core/messages.js';

/** Everything searchable in `context`, one part per line: build once, then search many strings. */
export function searchableText(context: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of context) {
    parts.push(m.content);
    if (m.role === 'assistant') for (const call of m.toolCalls) parts.push(call.arguments);
  }
  return parts.join('\n');
}

/** Whether `text` occurs in `message`'s content or, for an assistant, in one of its tool calls' arguments. */
export function mentions(message: Message, text: string): boolean {
  if (message.content.includes(text)) return true;
  return message.role === 'assistant' && message.toolCalls.some((call) => call.arguments.includes(text));
}
