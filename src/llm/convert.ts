/**
 * Message[] <-> each provider's chat shapes, at the backend edge (core/messages.ts stays
 * provider-neutral).
 *
 * The two wire formats differ where it bites:
 * - OpenAI pairs a result with its call by `tool_call_id` and sends arguments as JSON text.
 * - Ollama has no call ids: a result names its tool (`tool_name`) and answers the calls in order;
 *   arguments are JSON objects both ways. Ids are therefore made up when reading Ollama messages.
 *
 * A request declares the scenario's tool definitions when it carries them; a scenario recorded
 * without them declares the tool names its context uses, each a minimal definition that accepts any
 * arguments.
 */
import type { Message as OllamaMessage, Tool as OllamaTool, ToolCall as OllamaToolCall } from 'ollama';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import type { ChatRequest } from '../core/backend.js';
import type { ToolDefinition } from '../core/tools.js';
import {
  assistantMessage,
  systemMessage,
  toolMessage,
  userMessage,
  type Message,
  type ToolCall,
} from '../core/messages.js';

/** The tool names a context uses (calls and results), in order of first use. */
export function toolNamesOf(messages: readonly Message[]): string[] {
  const names = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') m.toolCalls.forEach((c) => names.add(c.name));
    if (m.role === 'tool') names.add(m.name);
  }
  return [...names];
}

/** The tools a request declares: its own definitions, else one per tool name its context uses, with `anyArguments` as the schema. */
function declaredTools(request: Pick<ChatRequest, 'messages' | 'tools'>, anyArguments: Record<string, unknown>): readonly ToolDefinition[] {
  return request.tools ?? toolNamesOf(request.messages).map((name) => ({ name, description: name, parameters: anyArguments }));
}

const definition = ({ name, description, parameters }: ToolDefinition) => ({
  name,
  ...(description === undefined ? {} : { description }),
  ...(parameters === undefined ? {} : { parameters }),
});

export function openAiTools(request: Pick<ChatRequest, 'messages' | 'tools'>): ChatCompletionFunctionTool[] {
  return declaredTools(request, { type: 'object', properties: {}, additionalProperties: true }).map((tool) => ({ type: 'function', function: definition(tool) }));
}

/** Ollama's schema type has no `additionalProperties`; its server accepts any arguments anyway. */
export function ollamaTools(request: Pick<ChatRequest, 'messages' | 'tools'>): OllamaTool[] {
  return declaredTools(request, { type: 'object', properties: {} }).map((tool) => ({ type: 'function', function: definition(tool) as OllamaTool['function'] }));
}

// ---------------------------------------------------------------- OpenAI

export function toOpenAiMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      case 'assistant':
        if (m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
        return {
          role: 'assistant',
          // OpenAI's own shape for a pure tool-call turn is content null.
          content: m.content === '' ? null : m.content,
          tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
        };
    }
  });
}

type TextContent = string | null | undefined | ReadonlyArray<{ readonly type: string; readonly text?: string }>;

/** Text of a message whose content may be an array of parts (only text parts count). */
function textOf(content: TextContent): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

/** OpenAI's tool calls as ours: a custom tool's call (free text, not JSON) has its input as arguments. */
export function fromOpenAiToolCalls(calls: readonly ChatCompletionMessageToolCall[] | null | undefined): ToolCall[] {
  return (calls ?? []).map((c) => (c.type === 'custom' ? { id: c.id, name: c.custom.name, arguments: c.custom.input } : { id: c.id, name: c.function.name, arguments: c.function.arguments }));
}

/**
 * One OpenAI request message as ours, with id `id`. A result takes its name from the call it answers
 * (`callNames`: call id -> tool name, filled here from each assistant message's calls, in order).
 */
export function fromOpenAiMessage(p: ChatCompletionMessageParam, id: string, callNames: Map<string, string>): Message {
  switch (p.role) {
    case 'system':
    case 'developer':
      return systemMessage({ id, content: textOf(p.content) });
    case 'user':
      return userMessage({ id, content: textOf(p.content) });
    case 'assistant': {
      const toolCalls = fromOpenAiToolCalls(p.tool_calls);
      toolCalls.forEach((c) => callNames.set(c.id, c.name));
      return assistantMessage({ id, content: textOf(p.content), toolCalls });
    }
    case 'tool':
      return toolMessage({ id, toolCallId: p.tool_call_id, name: callNames.get(p.tool_call_id) ?? '', content: textOf(p.content) });
    case 'function':
      return toolMessage({ id, toolCallId: p.name, name: p.name, content: p.content ?? '' });
  }
}

/**
 * An OpenAI request's messages as ours (for servers and round trips). Message ids are
 * `${idPrefix}${index}`; a result takes its name from the call it answers.
 */
export function fromOpenAiMessages(params: readonly ChatCompletionMessageParam[], idPrefix = 'm'): Message[] {
  const callNames = new Map<string, string>();
  return params.map((p, index) => fromOpenAiMessage(p, `${idPrefix}${index}`, callNames));
}

// ---------------------------------------------------------------- Ollama

/**
 * Our JSON-text arguments as the object Ollama wants. Arguments that are not a JSON object (agents
 * do record malformed ones) are sent as `{ "input": <text> }` rather than failing the request.
 */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: wrapped below
  }
  return { input: text };
}

export function toOllamaMessages(messages: readonly Message[]): OllamaMessage[] {
  return messages.map((m): OllamaMessage => {
    switch (m.role) {
      case 'system':
      case 'user':
        return { role: m.role, content: m.content };
      case 'tool':
        return { role: 'tool', content: m.content, tool_name: m.name };
      case 'assistant':
        if (m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
        return {
          role: 'assistant',
          content: m.content,
          tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: argumentsObject(c.arguments) } })),
        };
    }
  });
}

/**
 * Ollama's tool calls as ours. Arguments arrive as objects (stringified here); some servers send
 * JSON text, kept as is. Ollama sends no call ids (newer servers may: used when present), so ids are
 * `${messageId}:call:${index}`.
 */
export function fromOllamaToolCalls(calls: readonly OllamaToolCall[] | null | undefined, messageId: string): ToolCall[] {
  return (calls ?? []).map((c, index) => {
    const args: unknown = c.function.arguments;
    const sentId = (c as { id?: unknown }).id;
    return {
      id: typeof sentId === 'string' && sentId !== '' ? sentId : `${messageId}:call:${index}`,
      name: c.function.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    };
  });
}

/**
 * An Ollama request's messages as ours (for servers and round trips). Message ids are
 * `${idPrefix}${index}`; each result answers the first unanswered call of the same tool name (else
 * the first unanswered call), the way Ollama pairs them.
 */
export function fromOllamaMessages(params: readonly OllamaMessage[], idPrefix = 'm'): Message[] {
  let pending: ToolCall[] = [];
  return params.map((p, index): Message => {
    const id = `${idPrefix}${index}`;
    const content = p.content ?? '';
    switch (p.role) {
      case 'system':
        return systemMessage({ id, content });
      case 'assistant': {
        const toolCalls = fromOllamaToolCalls(p.tool_calls, id);
        pending = [...toolCalls];
        return assistantMessage({ id, content, toolCalls });
      }
      case 'tool': {
        const call = pending.find((c) => c.name === p.tool_name) ?? pending[0];
        pending = pending.filter((c) => c !== call);
        return toolMessage({ id, toolCallId: call?.id ?? `${id}:orphan`, name: p.tool_name ?? call?.name ?? '', content });
      }
      default:
        return userMessage({ id, content });
    }
  });
}
