/**
 * The provider-neutral, immutable message model every layer shares.
 *
 * Messages are frozen once made and shared by reference between strategies and steps: a strategy
 * that changes a message makes a new one (same `id`, new `origin`), it never edits the old one.
 * Converters to provider request shapes live at the backend edge, not here.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** Where a message came from: the recorded scenario, or the strategy that made or edited it. */
export type Origin =
  | { readonly source: 'scenario' }
  | { readonly source: 'strategy'; readonly strategy: string; readonly action: string };

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** JSON text, as OpenAI sends it (Ollama's object arguments are stringified at the edge). */
  readonly arguments: string;
}

/** Provider usage recorded with an assistant turn (ground truth for the context the model saw). */
export interface RecordedUsage {
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  readonly cachedTokens?: number | undefined;
  readonly reasoningTokens?: number | undefined;
}

interface Base {
  /** Stable within a run: scenario messages keep their index-based id; edits keep the id they replace. */
  readonly id: string;
  readonly origin: Origin;
  readonly content: string;
}

export interface SystemMessage extends Base {
  readonly role: 'system';
}
export interface UserMessage extends Base {
  readonly role: 'user';
}
export interface AssistantMessage extends Base {
  readonly role: 'assistant';
  readonly toolCalls: readonly ToolCall[];
  readonly usage?: RecordedUsage | undefined;
}
export interface ToolMessage extends Base {
  readonly role: 'tool';
  readonly toolCallId: string;
  /** The tool's name, copied from its call, so placeholders can say what kind of output it was. */
  readonly name: string;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export const SCENARIO_ORIGIN: Origin = Object.freeze({ source: 'scenario' });

export function strategyOrigin(strategy: string, action: string): Origin {
  return Object.freeze({ source: 'strategy', strategy, action });
}

type Fields<M extends Message> = Omit<M, 'role' | 'origin'> & { origin?: Origin };

function freeze<M extends Message>(message: M): M {
  if (message.role === 'assistant') {
    Object.freeze(message.toolCalls);
    message.toolCalls.forEach((call) => Object.freeze(call));
    if (message.usage) Object.freeze(message.usage);
  }
  return Object.freeze(message);
}

export function systemMessage(fields: Fields<SystemMessage>): SystemMessage {
  return freeze({ role: 'system', origin: SCENARIO_ORIGIN, ...fields });
}

export function userMessage(fields: Fields<UserMessage>): UserMessage {
  return freeze({ role: 'user', origin: SCENARIO_ORIGIN, ...fields });
}

export function assistantMessage(
  fields: Omit<Fields<AssistantMessage>, 'toolCalls'> & { toolCalls?: readonly ToolCall[] },
): AssistantMessage {
  return freeze({ role: 'assistant', origin: SCENARIO_ORIGIN, ...fields, toolCalls: [...(fields.toolCalls ?? [])] });
}

export function toolMessage(fields: Fields<ToolMessage>): ToolMessage {
  return freeze({ role: 'tool', origin: SCENARIO_ORIGIN, ...fields });
}

/** A copy of `message` with new content, keeping its id and role (and tool_call_id for tool messages). */
export function withContent<M extends Message>(message: M, content: string, origin: Origin): M {
  return freeze({ ...message, content, origin });
}

export function hasToolCalls(message: Message): message is AssistantMessage {
  return message.role === 'assistant' && message.toolCalls.length > 0;
}

export function isFromScenario(message: Message): boolean {
  return message.origin.source === 'scenario';
}

/** Ids of the messages of `before` that `after` no longer has, in order: what a cut dropped (for events). */
export function droppedIds(before: readonly Message[], after: readonly Message[]): string[] {
  const kept = new Set(after.map((m) => m.id));
  return before.filter((m) => !kept.has(m.id)).map((m) => m.id);
}
