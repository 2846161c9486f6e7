/**
 * Tool definitions: what an agent's requests declare it may call (OpenAI function tools, Anthropic
 * tools). Providers bill them with every request that sends them, so they are part of a request's
 * size (design DEFINITION "Token accounting").
 */
import type { Message } from './messages.js';

/** A tool the agent may call, as a request declares it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  /** The JSON Schema of its arguments. */
  readonly parameters?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The definitions as ctxbench counts them: the JSON of each `{name, description, parameters}` (absent
 * fields left out), one a line. Providers render them their own way (OpenAI as a TypeScript-like
 * namespace, Anthropic with a tool-use system prompt): calibration fits what differs.
 */
export function toolsText(tools: readonly ToolDefinition[]): string {
  return tools.map(({ name, description, parameters }) => JSON.stringify({ name, description, parameters })).join('\n');
}

/**
 * Whether a request sends the tool definitions: an agent request always (its answer may call one); any
 * other request (a summary, a checkpoint, a probe question) only when its messages hold a tool call or
 * result, which Anthropic refuses without the definitions. A summary request of plain text sends none.
 */
export function sendsTools(messages: readonly Message[], purpose: string): boolean {
  return purpose === 'agent' || messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls.length > 0));
}
