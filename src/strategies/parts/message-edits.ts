/**
 * Edits of assistant tool calls, the counterpart of core/messages.ts `withContent` for tool calls.
 * Shared: any strategy that shortens tool-call arguments (seed 002's tier 2, a `clear_tool_inputs`
 * style strategy) needs it.
 */
import { assistantMessage, type AssistantMessage, type Origin, type ToolCall } from '../../core/messages.js';

/**
 * A copy of `message` (same id) whose calls carry the arguments `argumentsOf` returns. Each call keeps
 * its id and name by construction, so the results that answer it still pair with it.
 */
export function withToolArguments(message: AssistantMessage, argumentsOf: (call: ToolCall) => string, origin: Origin): AssistantMessage {
  const toolCalls = message.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: argumentsOf(call) }));
  return assistantMessage({ id: message.id, content: message.content, usage: message.usage, toolCalls, origin });
}

/** A call's arguments as an object; {} when they are not a JSON object. */
export function argumentsObject(call: ToolCall | undefined): Record<string, unknown> {
  if (!call) return {};
  try {
    const value: unknown = JSON.parse(call.arguments);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
