/**
 * Seed 002's record of a conversation before it is summarized: the messages as JSON (complete, so the
 * step can be undone) and as markdown (readable, searchable with grep), in the offload store under
 * /conversation_history/. Shared by any strategy that replaces history and wants it recoverable.
 */
import { joinedParts, joinParts, partText, quote, type Quote, type TextPart } from '../../core/composed-text.js';
import type { Message } from '../../core/messages.js';
import type { OffloadStore } from '../../core/offload-store.js';

/** Seed: each message is cut here in the markdown (the JSON keeps everything). */
const MARKDOWN_MESSAGE_CHARS = 2000;

/** A message's text: its content, and for an assistant its tool calls (the seed printed the parts). */
function messageParts(m: Message): TextPart[] {
  const calls = m.role === 'assistant' ? m.toolCalls.map((c): TextPart[] => [`[tool call ${c.name} (${c.id}): `, quote(c, c.arguments), ']']) : [];
  return joinedParts([...(m.content === '' ? [] : [[quote(m, m.content)]]), ...calls], '\n');
}

/**
 * A message's text cut at 2,000 characters, kept with the message: every summary request that renders
 * the message quotes the same text, counted and read once per thread (composed-text.ts).
 */
const cutTexts = new WeakMap<Message, Quote>();
function cutText(m: Message, parts: readonly TextPart[]): Quote {
  let cut = cutTexts.get(m);
  if (cut === undefined) cutTexts.set(m, (cut = quote({}, joinParts(parts).slice(0, MARKDOWN_MESSAGE_CHARS))));
  return cut;
}

/** Seed 002's _messages_to_markdown: a heading per message, each cut at 2,000 characters. */
export function conversationMarkdownParts(messages: readonly Message[]): TextPart[] {
  const lines: TextPart[][] = [['# Conversation History\n']];
  messages.forEach((m, i) => {
    const parts = messageParts(m);
    const length = parts.reduce((n, p) => n + partText(p).length, 0);
    lines.push([`## Message ${i + 1} (${m.role})\n`]);
    if (length <= MARKDOWN_MESSAGE_CHARS) lines.push(parts);
    else lines.push([cutText(m, parts)], ['\n[truncated...]']);
    lines.push(['\n']);
  });
  return joinedParts(lines, '\n');
}

/** conversationMarkdownParts' text. */
export const conversationMarkdown = (messages: readonly Message[]): string => joinParts(conversationMarkdownParts(messages));

export interface ArchivedConversation {
  readonly json: string;
  readonly markdown: string;
}

/** Each message's JSON as an item of an array printed with 2-space indents, kept with the message. */
const jsonItems = new WeakMap<Message, Quote>();
function jsonItem(m: Message): Quote {
  let item = jsonItems.get(m);
  // JSON strings hold no raw line break: each line of the item's own text is indented once more.
  if (item === undefined) jsonItems.set(m, (item = quote({}, JSON.stringify(m, null, 2).replaceAll('\n', '\n  '))));
  return item;
}

/** `JSON.stringify(messages, null, 2)` as parts: each message's JSON quoted, so an index searches it once. */
export function conversationJsonParts(messages: readonly Message[]): TextPart[] {
  if (messages.length === 0) return ['[]'];
  return ['[\n  ', ...joinedParts(messages.map((m) => [jsonItem(m)]), ',\n  '), '\n]'];
}

/** Writes `messages` as /conversation_history/<name>.json and .md; returns the two store paths. */
export function archiveConversation(files: OffloadStore, name: string, messages: readonly Message[]): ArchivedConversation {
  const json = conversationJsonParts(messages);
  const markdown = conversationMarkdownParts(messages);
  return {
    json: files.write(`/conversation_history/${name}.json`, json),
    markdown: files.write(`/conversation_history/${name}.md`, markdown),
  };
}
