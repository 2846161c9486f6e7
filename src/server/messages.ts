/**
 * Incoming request messages (OpenAI's and Ollama's wire shapes) to the core Message model, so the
 * server counts tokens and checks pairing with the same code as the runner. A message the protocol
 * would reject throws BadRequest with the provider's wording where we know it.
 */
import { assistantMessage, systemMessage, toolMessage, userMessage, type Message, type ToolCall } from '../core/messages.js';
import type { ToolDefinition } from '../core/tools.js';
import { isRecord } from './http.js';

export class BadRequest extends Error {
  constructor(
    message: string,
    /** OpenAI's `param` of the error body, e.g. "messages.[2].role". */
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'BadRequest';
  }
}

/** OpenAI content: a string, null, or an array of parts of which the text parts count. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
  return '';
}

/** Arguments as JSON text: OpenAI sends a string already, Ollama an object. */
const argumentsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

function messagesArray(raw: unknown): unknown[] {
  if (!Array.isArray(raw)) throw new BadRequest("Missing required parameter: 'messages'.", 'messages');
  return raw;
}

/** Tool names by call id, so a tool message can carry its call's name (the wire shapes may omit it). */
function namer(): { add(calls: readonly ToolCall[]): void; nameOf(id: string): string } {
  const names = new Map<string, string>();
  return { add: (calls) => calls.forEach((c) => names.set(c.id, c.name)), nameOf: (id) => names.get(id) ?? '' };
}

const OPENAI_ROLES = "Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.";

export function fromOpenAi(raw: unknown): Message[] {
  const names = namer();
  return messagesArray(raw).map((m, i): Message => {
    const id = `m${i}`;
    if (!isRecord(m)) throw new BadRequest(`Invalid type for 'messages.[${i}]': expected an object, but got ${typeof m} instead.`, `messages.[${i}]`);
    const content = textOf(m['content']);
    switch (m['role']) {
      case 'system':
      case 'developer':
        return systemMessage({ id, content });
      case 'user':
        return userMessage({ id, content });
      case 'assistant': {
        const calls = Array.isArray(m['tool_calls']) ? m['tool_calls'] : [];
        const toolCalls = calls.map((c: unknown, j): ToolCall => {
          const fn = isRecord(c) && isRecord(c['function']) ? c['function'] : undefined;
          if (!isRecord(c) || typeof c['id'] !== 'string' || typeof fn?.['name'] !== 'string') {
            throw new BadRequest(`Missing required parameter: 'messages.[${i}].tool_calls.[${j}].id'.`, `messages.[${i}].tool_calls.[${j}].id`);
          }
          return { id: c['id'], name: fn['name'], arguments: argumentsText(fn['arguments']) };
        });
        names.add(toolCalls);
        return assistantMessage({ id, content, toolCalls });
      }
      case 'tool': {
        const callId = m['tool_call_id'];
        if (typeof callId !== 'string') {
          throw new BadRequest("Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.", `messages.[${i}].tool_call_id`);
        }
        return toolMessage({ id, content, toolCallId: callId, name: names.nameOf(callId) });
      }
      default:
        throw new BadRequest(`Invalid value: '${String(m['role'])}'. ${OPENAI_ROLES}`, `messages.[${i}].role`);
    }
  });
}

/**
 * Ollama's shape: tool_calls carry no id (arguments are objects), tool messages name their tool
 * (`tool_name`). Ollama does not check pairing, so calls get positional ids only for counting.
 */
export function fromOllama(raw: unknown): Message[] {
  const names = namer();
  return messagesArray(raw).map((m, i): Message => {
    const id = `m${i}`;
    if (!isRecord(m)) throw new BadRequest(`messages[${i}]: expected an object`);
    const content = typeof m['content'] === 'string' ? m['content'] : '';
    switch (m['role']) {
      case 'system':
        return systemMessage({ id, content });
      case 'user':
        return userMessage({ id, content });
      case 'assistant': {
        const calls = Array.isArray(m['tool_calls']) ? m['tool_calls'] : [];
        const toolCalls = calls.map((c: unknown, j): ToolCall => {
          const fn = isRecord(c) && isRecord(c['function']) ? c['function'] : {};
          const callId = isRecord(c) && typeof c['id'] === 'string' ? c['id'] : `call_${i}_${j}`;
          return { id: callId, name: typeof fn['name'] === 'string' ? fn['name'] : '', arguments: argumentsText(fn['arguments']) };
        });
        names.add(toolCalls);
        return assistantMessage({ id, content, toolCalls });
      }
      case 'tool': {
        const callId = typeof m['tool_call_id'] === 'string' ? m['tool_call_id'] : '';
        const name = typeof m['tool_name'] === 'string' ? m['tool_name'] : names.nameOf(callId);
        return toolMessage({ id, content, toolCallId: callId, name });
      }
      default:
        throw new BadRequest(`messages[${i}]: invalid role '${String(m['role'])}'`);
    }
  });
}

/**
 * A request's `tools` (the function tools both protocols send: `{type: 'function', function: {name,
 * description, parameters}}`) as the definitions the server counts in the prompt, as a provider does;
 * anything else in the list is left out.
 */
export function toolsOf(raw: unknown): ToolDefinition[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((tool: unknown) => {
    const fn = isRecord(tool) && isRecord(tool['function']) ? tool['function'] : undefined;
    if (typeof fn?.['name'] !== 'string') return [];
    return [{ name: fn['name'], description: typeof fn['description'] === 'string' ? fn['description'] : undefined, parameters: isRecord(fn['parameters']) ? fn['parameters'] : undefined }];
  });
}
