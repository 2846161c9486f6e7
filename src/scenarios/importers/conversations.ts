/**
 * Chat logs as request bodies or bare message lists, which openai-chat and anthropic-messages read
 * alike: one conversation per body (JSONL with one request per line is a list of them), one scenario
 * per conversation.
 */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { uniqueCallIds } from './openai.js';
import { isRecord } from './json.js';
import { fileStem, mostly, runId } from './runs.js';
import { readTools } from './tools.js';

export interface Conversation {
  /** Undefined for an item of a list of bodies that is not one: reading it names the item. */
  readonly messages?: readonly unknown[];
  /** The request body, when the conversation came as one. */
  readonly body?: Record<string, unknown>;
}

export type Body = Record<string, unknown> & { messages: unknown[] };

/**
 * `data` as one request body or a list of them (most of them bodies: see `mostly`), one conversation
 * each; undefined when it is neither.
 */
export function bodyConversations(data: unknown, isBody: (value: unknown) => value is Body): Conversation[] | undefined {
  if (isBody(data)) return [{ messages: data.messages, body: data }];
  if (!mostly(data, isBody)) return undefined;
  return data.map((item) => (isRecord(item) && Array.isArray(item.messages) ? { messages: item.messages, body: item } : {}));
}

/**
 * The scenario of `conversation`, `index` being its place when the file holds several, with the tool
 * definitions its body sent. `readMessages` reads its messages; `where(field)` names a field of the
 * body in errors ('' for a bare message list).
 */
export function conversationScenario(
  format: string,
  conversation: Conversation,
  index: number | undefined,
  file: string,
  readMessages: (messages: readonly unknown[], where: (field: string) => string) => ScenarioFileMessage[],
): ScenarioFile {
  const { body, messages } = conversation;
  if (!messages) throw scenarioInvalid(file, `[${index ?? 0}]: expected a request body {messages: [...]}`);
  const where = (field: string): string => (body ? (index === undefined ? field : `[${index}].${field}`) : '');
  const id = index === undefined ? fileStem(file) : runId(file, index);
  const tools = readTools(body?.tools, file, where('tools'));
  return {
    ctxbench: 1,
    id,
    title: id,
    source: { format, file: path.basename(file) },
    model: { name: typeof body?.model === 'string' && body.model !== '' ? body.model : 'unknown' },
    ...(tools ? { tools } : {}),
    messages: uniqueCallIds(readMessages(messages, where)),
  };
}
