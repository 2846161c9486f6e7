/**
 * Any agent's log as OpenAI chat-completions messages: a JSON list of messages, a request body
 * `{model?, messages: [...]}`, or JSONL with one message per line. A list of `{messages}` objects (JSONL
 * with one conversation per line, as in fine-tuning sets) is one scenario per conversation. The generic
 * fallback: tried after every format with a shape of its own (importers/index.ts).
 */
import type { ScenarioFile } from '../schema.js';
import { bodyConversations, conversationScenario, type Body, type Conversation } from './conversations.js';
import { isRecord } from './json.js';
import { isOpenAiMessage, readOpenAiMessage } from './openai.js';
import { mostly, runsImporter } from './runs.js';
import type { Importer } from './types.js';

const FORMAT = 'openai-chat';

export const openaiChat: Importer = {
  format: FORMAT,
  description: 'OpenAI chat messages (a JSON list, {messages: [...]}, or JSONL one message per line): tool_calls ids kept',
  ...runsImporter(conversationsOf, 'expected OpenAI chat messages: a list of {role, content}, or {messages: [...]}', convertConversation),
};

/** Most of them OpenAI messages: readOpenAiMessage names the role or content of one that is not. */
const isMessages = (value: unknown): value is unknown[] => mostly(value, isOpenAiMessage);

/** A request body; a top-level `system` makes it an Anthropic request (anthropic-messages), not this. */
function isBody(value: unknown): value is Body {
  return isRecord(value) && isMessages(value.messages) && !('system' in value);
}

function conversationsOf(data: unknown): Conversation[] | undefined {
  if (isMessages(data)) return [{ messages: data }];
  return bodyConversations(data, isBody);
}

/** `index` is the conversation's place when the file holds several. */
function convertConversation(conversation: Conversation, index: number | undefined, file: string): ScenarioFile {
  return conversationScenario(FORMAT, conversation, index, file, (messages, where) =>
    messages.map((m, i) => readOpenAiMessage(m, file, `${where('messages')}[${i}]`)),
  );
}
