/**
 * Any agent's log as Anthropic Messages API requests: `{model?, system?, messages: [...]}` whose content
 * is a string or blocks (text, tool_use {id, name, input}, tool_result {tool_use_id, content}), a bare
 * list of such messages (JSON, or JSONL one message per line), or a list of request bodies (one scenario
 * each). A user message's tool_result blocks become tool messages, in block order, then a user message
 * for any text left.
 */
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { bodyConversations, conversationScenario, type Body, type Conversation } from './conversations.js';
import { jsonText } from '../json-text.js';
import { isRecord, requireString } from './json.js';
import { mostly, runsImporter } from './runs.js';
import type { Importer } from './types.js';

const FORMAT = 'anthropic-messages';
/** Blocks only Anthropic messages have: one of them, or a top-level `system`, tells them from OpenAI chat. */
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

type Block = Record<string, unknown>;

export const anthropicMessages: Importer = {
  format: FORMAT,
  description: 'Anthropic Messages ({system?, messages} with text / tool_use / tool_result blocks, or a list of such messages): tool_use ids kept',
  ...runsImporter(conversationsOf, 'expected Anthropic messages: {system?, messages: [...]} with content blocks', convertConversation),
};

function isMessage(value: unknown): value is { role: string; content: string | Block[] } {
  if (!isRecord(value) || (value.role !== 'user' && value.role !== 'assistant')) return false;
  const { content } = value;
  return typeof content === 'string' || (Array.isArray(content) && content.every((b) => isRecord(b) && typeof b.type === 'string'));
}

/** Most of them Anthropic messages: readMessage names one that is not. */
const isMessages = (value: unknown): value is unknown[] => mostly(value, isMessage);

function hasAnthropicBlocks(messages: readonly unknown[]): boolean {
  return messages.some((m) => isRecord(m) && Array.isArray(m.content) && m.content.some((b) => isRecord(b) && ANTHROPIC_BLOCKS.has(String(b.type))));
}

/** A request body: a top-level `system` or an Anthropic-only block marks it (a plain text chat is left to openai-chat). */
function isBody(value: unknown): value is Body {
  return isRecord(value) && isMessages(value.messages) && ('system' in value || hasAnthropicBlocks(value.messages));
}

function conversationsOf(data: unknown): Conversation[] | undefined {
  if (isMessages(data) && hasAnthropicBlocks(data)) return [{ messages: data }];
  return bodyConversations(data, isBody);
}

function convertConversation(conversation: Conversation, index: number | undefined, file: string): ScenarioFile {
  const { body } = conversation;
  return conversationScenario(FORMAT, conversation, index, file, (messages, where) => {
    const system = body?.system === undefined ? '' : textOf(body.system, file, where('system'));
    return [
      ...(system === '' ? [] : [{ role: 'system' as const, content: system }]),
      ...messages.flatMap((m, i) => readMessage(m, file, `${where('messages')}[${i}]`)),
    ];
  });
}

function readMessage(raw: unknown, file: string, where: string): ScenarioFileMessage[] {
  if (!isMessage(raw)) throw scenarioInvalid(file, `${where}: expected {role: user or assistant, content}`);
  const blocks: Block[] = typeof raw.content === 'string' ? [{ type: 'text', text: raw.content }] : raw.content;
  const text = blocks
    .flatMap((b, i) => (b.type === 'text' ? [requireString(b.text, file, `${where}.content[${i}].text`)] : []))
    .join('\n');
  if (raw.role === 'assistant') {
    // thinking / redacted_thinking blocks are dropped: the API strips them from earlier turns anyway.
    const toolCalls = blocks.flatMap((b, i) =>
      b.type === 'tool_use'
        ? [
            {
              id: requireString(b.id, file, `${where}.content[${i}].id`),
              name: requireString(b.name, file, `${where}.content[${i}].name`),
              arguments: jsonText(b.input ?? {}, file, `${where}.content[${i}].input`),
            },
          ]
        : [],
    );
    return [{ role: 'assistant', content: text, toolCalls }];
  }
  const results: ScenarioFileMessage[] = blocks.flatMap((b, i) =>
    b.type === 'tool_result'
      ? [
          {
            role: 'tool' as const,
            toolCallId: requireString(b.tool_use_id, file, `${where}.content[${i}].tool_use_id`),
            content: b.content === undefined ? '' : textOf(b.content, file, `${where}.content[${i}].content`),
          },
        ]
      : [],
  );
  // Images and documents are dropped; a user message with only tool results adds no user turn.
  const userText = results.length > 0 && text.trim() === '' ? [] : [{ role: 'user' as const, content: text }];
  return [...results, ...userText];
}

/** A string, or blocks whose text blocks are joined (system prompts, tool_result content). */
function textOf(value: unknown, file: string, where: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw scenarioInvalid(file, `${where}: expected a string or a list of blocks`);
  return value
    .flatMap((b: unknown, i) => (isRecord(b) && b.type === 'text' ? [requireString(b.text, file, `${where}[${i}].text`)] : []))
    .join('\n');
}
