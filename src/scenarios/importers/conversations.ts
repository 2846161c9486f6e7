/**
 * Chat logs as request bodies or bare message lists, which openai-chat and anthropic-messages read
 * alike: one conversation per body (JSONL with one request per line is a list of them), one scenario
 * per conversation.
 */
import path from 'node:path';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { uniqueCallIds } from './openai.js';
import { fileStem, runId } from './runs.js';
import { readTools } from './tools.js';

export interface Conversation {
  readonly messages: readonly unknown[];
  /** The request body, when the conversation came as one. */
  readonly body?: Record<string, unknown>;
}

export type Body = Record<string, unknown> & { messages: unknown[] };

/** `data` as one request body or a list of them, one conversation each; undefined when it is neither. */
export function bodyConversations(data: unknown, isBody: (value: unknown) => value is Body): Conversation[] | undefined {
  if (isBody(data)) return [{ messages: data.messages, body: data }];
  if (Array.isArray(data) && data.length > 0 && data.every(isBody)) return data.map((body) => ({ messages: body.messages, body }));
  return undefined;
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
  readMessages: (where: (field: string) => string) => ScenarioFileMessage[],
): ScenarioFile {
  const { body } = conversation;
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
    messages: uniqueCallIds(readMessages(where)),
  };
}
