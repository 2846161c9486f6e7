/**
 * Reading OpenAI chat-completions messages, which several formats embed (tau-bench, SWE-agent, the model
 * responses inside OpenHands events, plain chat logs).
 */
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFileMessage } from '../schema.js';
import { jsonText } from '../json-text.js';
import { isRecord, requireString } from './json.js';

interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
/** Every content part type of OpenAI chat messages. Anthropic's tool_use / tool_result blocks are not among them. */
const PARTS = new Set(['text', 'image_url', 'input_audio', 'file', 'refusal']);

/**
 * True when `raw` has the shape of an OpenAI chat message: a known role, and content a string, null,
 * absent or a list of OpenAI content parts.
 */
export function isOpenAiMessage(raw: unknown): boolean {
  if (!isRecord(raw) || typeof raw.role !== 'string' || !ROLES.has(raw.role)) return false;
  const { content } = raw;
  if (content === null || content === undefined || typeof content === 'string') return true;
  return Array.isArray(content) && content.every(isPart);
}

const isPart = (part: unknown): boolean => isRecord(part) && typeof part.type === 'string' && PARTS.has(part.type);

/**
 * One OpenAI chat message. `developer` (what newer OpenAI models call the system prompt) reads as
 * system. A content part of another format (an Anthropic tool_result) is refused, not dropped.
 */
export function readOpenAiMessage(raw: unknown, file: string, where: string): ScenarioFileMessage {
  if (!isRecord(raw)) throw scenarioInvalid(file, `${where}: expected an object`);
  if (Array.isArray(raw.content)) {
    const bad = raw.content.findIndex((part) => !isPart(part));
    if (bad >= 0) throw scenarioInvalid(file, `${where}.content[${bad}].type: expected one of ${[...PARTS].join(', ')}`);
  }
  const content = readText(raw.content, file, `${where}.content`);
  switch (raw.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content };
    case 'user':
      return { role: 'user', content };
    case 'assistant':
      return { role: 'assistant', content, toolCalls: readToolCalls(raw.tool_calls, file, `${where}.tool_calls`) };
    case 'tool':
      return {
        role: 'tool',
        toolCallId: requireString(raw.tool_call_id, file, `${where}.tool_call_id`),
        // Optional in OpenAI's format; parseScenario then takes the name from the call.
        name: typeof raw.name === 'string' && raw.name !== '' ? raw.name : undefined,
        content,
      };
    default:
      throw scenarioInvalid(file, `${where}.role: expected system, developer, user, assistant or tool`);
  }
}

/** An assistant's `tool_calls` (absent or null: none). Arguments are JSON text; an object (Ollama) is stringified. */
export function readToolCalls(calls: unknown, file: string, where: string): ToolCall[] {
  if (calls === null || calls === undefined) return [];
  if (!Array.isArray(calls)) throw scenarioInvalid(file, `${where}: expected a list`);
  return calls.map((call: unknown, i) => {
    const at = `${where}[${i}]`;
    const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
    const args = fn.arguments;
    if (typeof args !== 'string' && !isRecord(args)) throw scenarioInvalid(file, `${at}.function.arguments: expected JSON text`);
    return {
      id: requireString(isRecord(call) ? call.id : undefined, file, `${at}.id`),
      name: requireString(fn.name, file, `${at}.function.name`),
      arguments: typeof args === 'string' ? args : jsonText(args, file, `${at}.function.arguments`),
    };
  });
}

/** Content as text: a string, absent/null (empty), or a list of parts whose text parts are joined (images and other parts are dropped). */
export function readText(content: unknown, file: string, where: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw scenarioInvalid(file, `${where}: expected a string or a list of parts`);
  return content
    .flatMap((part: unknown, i) => (isRecord(part) && part.type === 'text' ? [requireString(part.text, file, `${where}[${i}].text`)] : []))
    .join('\n');
}

/**
 * Makes every tool call id unique in the scenario. Recordings reuse ids: tau-bench's GPT-4o runs repeat
 * `call_...` ids across turns of one run, SWE-agent's replayed demonstrations too. Providers accept that
 * once the earlier call is answered, but the pairing check rejects it as a duplicate. A reused id gets a
 * suffix (`<id>-2`, `-3`, ...), and the results after that assistant turn are renamed to match.
 */
export function uniqueCallIds(messages: readonly ScenarioFileMessage[]): ScenarioFileMessage[] {
  const used = new Set<string>();
  // Recorded id -> the ids given to the latest assistant turn's calls with that id, in call order.
  let open = new Map<string, string[]>();
  return messages.map((m) => {
    if (m.role === 'assistant') {
      open = new Map();
      const toolCalls = (m.toolCalls ?? []).map((call) => {
        let id = call.id;
        for (let n = 2; used.has(id); n++) id = `${call.id}-${n}`;
        used.add(id);
        open.set(call.id, [...(open.get(call.id) ?? []), id]);
        return id === call.id ? call : { ...call, id };
      });
      return m.toolCalls === undefined ? m : { ...m, toolCalls };
    }
    if (m.role !== 'tool') return m;
    const id = open.get(m.toolCallId)?.shift();
    return id === undefined || id === m.toolCallId ? m : { ...m, toolCallId: id };
  });
}
