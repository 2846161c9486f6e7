/**
 * Any agent's log as OpenAI chat-completions messages: a JSON list of messages, a request body
 * `{model?, messages: [...]}`, or JSONL with one message per line. A list of `{messages}` objects (JSONL
 * with one conversation per line, as in fine-tuning sets) is one scenario per conversation. The generic
 * fallback: tried after every format with a shape of its own (importers/index.ts).
 */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile } from '../schema.js';
import { isRecord } from './json.js';
import { isOpenAiMessage, readOpenAiMessage, uniqueCallIds } from './openai.js';
import { fileStem, onlyRun, runId } from './runs.js';
import type { Importer } from './types.js';

const FORMAT = 'openai-chat';

interface Conversation {
  readonly messages: readonly unknown[];
  /** The request body, when the conversation came as one. */
  readonly body?: Record<string, unknown>;
}

export const openaiChat: Importer = {
  format: FORMAT,
  description: 'OpenAI chat messages (a JSON list, {messages: [...]}, or JSONL one message per line): tool_calls ids kept',
  detect: (data) => conversationsOf(data) !== undefined,
  convert: async (data, file) => convertConversation(onlyRun(requireConversations(data, file), file), undefined, file),
  convertMany: async (data, file) => {
    const conversations = requireConversations(data, file);
    return conversations.map((c, i) => convertConversation(c, conversations.length > 1 ? i : undefined, file));
  },
};

function isMessages(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0 && value.every(isOpenAiMessage);
}

/** A request body; a top-level `system` makes it an Anthropic request (anthropic-messages), not this. */
function isBody(value: unknown): value is Record<string, unknown> & { messages: unknown[] } {
  return isRecord(value) && isMessages(value.messages) && !('system' in value);
}

function conversationsOf(data: unknown): Conversation[] | undefined {
  if (isMessages(data)) return [{ messages: data }];
  if (isBody(data)) return [{ messages: data.messages, body: data }];
  if (Array.isArray(data) && data.length > 0 && data.every(isBody)) return data.map((body) => ({ messages: body.messages, body }));
  return undefined;
}

function requireConversations(data: unknown, file: string): Conversation[] {
  const conversations = conversationsOf(data);
  if (!conversations) throw scenarioInvalid(file, 'expected OpenAI chat messages: a list of {role, content}, or {messages: [...]}');
  return conversations;
}

/** `index` is the conversation's place when the file holds several. */
function convertConversation(conversation: Conversation, index: number | undefined, file: string): ScenarioFile {
  const { messages, body } = conversation;
  const where = body ? (index === undefined ? 'messages' : `[${index}].messages`) : '';
  const id = index === undefined ? fileStem(file) : runId(file, index);
  return {
    ctxbench: 1,
    id,
    title: id,
    source: { format: FORMAT, file: path.basename(file) },
    model: { name: typeof body?.model === 'string' && body.model !== '' ? body.model : 'unknown' },
    messages: uniqueCallIds(messages.map((m, i) => readOpenAiMessage(m, file, `${where}[${i}]`))),
  };
}
