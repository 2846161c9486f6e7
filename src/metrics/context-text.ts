/**
 * What the metrics search in a context: each message's content and, for an assistant, its tool
 * calls' arguments (raw JSON text, as sent).
 */
import type { Message } from '../core/messages.js';

/** Whether `text` occurs in `message`'s content or, for an assistant, in one of its tool calls' arguments. */
export function mentions(message: Message, text: string): boolean {
  if (message.content.includes(text)) return true;
  return message.role === 'assistant' && message.toolCalls.some((call) => call.arguments.includes(text));
}
