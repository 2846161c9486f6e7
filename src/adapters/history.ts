/**
 * An agent's history, in whatever shape its framework keeps messages, read into ctxbench's message
 * model with ids that stay the same from one request to the next, so a strategy's edits (a masked
 * result keeps its id) apply to the messages they were made for. An id is the message's place in the
 * history (`m12`; the parts of one framework message that are several of ours, `m12.1`): the history
 * only grows. An item read before, at the same place, is not read again: the same messages come back.
 *
 * Going back, each message of a context is the item it was read from when the strategy left it as it
 * was (the agent's own object: images, reasoning, provider options intact), an edit of that item when
 * the strategy changed it (same id), or a new item when the strategy wrote it.
 */
import { CtxbenchError } from '../core/errors.js';
import type { Message } from '../core/messages.js';

/** One of our messages read from an item of the history. */
export interface ReadMessage<T> {
  readonly message: Message;
  /** The history's item it was read from. */
  readonly item: T;
  /** Which of the item's parts it is (an AI SDK tool message holds several results); 0 otherwise. */
  readonly part: number;
  /** How the agent's caller names it in an error: `messages[3]`, `messages[3].content[1]`. */
  readonly label: string;
}

/** Reads one item at `index`; `callNames` (call id -> tool name) has every call of the items before it, and takes this one's. */
export type ReadItem<T> = (item: T, index: number, callNames: Map<string, string>) => readonly Omit<ReadMessage<T>, 'item'>[];

/** A history read: our messages in order, and where each came from. */
export interface ReadHistory<T> {
  readonly messages: readonly Message[];
  /** The label of `messages[i]`. */
  label(index: number): string;
  /** Where the history message with this id came from; undefined for a message a strategy wrote. */
  source(id: string): ReadMessage<T> | undefined;
}

/** The same message, as an agent may rebuild it between requests (a JSON round trip, a new object). */
export function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.content !== b.content) return false;
  if (a.role === 'tool' && b.role === 'tool') return a.toolCallId === b.toolCallId && a.name === b.name;
  if (a.role === 'assistant' && b.role === 'assistant') {
    return a.toolCalls.length === b.toolCalls.length && a.toolCalls.every((c, i) => c.id === b.toolCalls[i]!.id && c.name === b.toolCalls[i]!.name && c.arguments === b.toolCalls[i]!.arguments);
  }
  return true;
}

/** Reads histories of items of type T with `readItem`, remembering what it read (by item object and place). */
export function createHistoryReader<T extends object>(readItem: ReadItem<T>): (items: readonly T[]) => ReadHistory<T> {
  const cache = new WeakMap<T, { index: number; read: readonly ReadMessage<T>[] }>();
  return (items) => {
    // What the framework's types promise, checked: a caller in plain JS can pass anything.
    if (!Array.isArray(items)) throw new CtxbenchError('MESSAGES_INVALID', `messages: expected a list of messages (got ${items === null ? 'null' : typeof items})`);
    const callNames = new Map<string, string>();
    const read: ReadMessage<T>[] = [];
    items.forEach((item, index) => {
      if (typeof item !== 'object' || item === null) throw new CtxbenchError('MESSAGES_INVALID', `messages[${index}]: expected a message object (got ${item === null ? 'null' : typeof item})`);
      let hit = cache.get(item);
      if (hit?.index === index) {
        for (const { message } of hit.read) if (message.role === 'assistant') message.toolCalls.forEach((c) => callNames.set(c.id, c.name));
      } else {
        hit = { index, read: readItem(item, index, callNames).map((r) => ({ ...r, item })) };
        cache.set(item, hit);
      }
      read.push(...hit.read);
    });
    const byId = new Map(read.map((r) => [r.message.id, r]));
    return {
      messages: read.map((r) => r.message),
      label: (index) => read[index]?.label ?? `messages[${index}]`,
      source: (id) => byId.get(id),
    };
  };
}

/**
 * What became of a message of a context: `kept` (the strategy left the history's message as it
 * was: send the agent's own item), `edited` (same id, new content or arguments), or `new`.
 */
export type Fate<T> =
  | { readonly kind: 'kept'; readonly source: ReadMessage<T> }
  | { readonly kind: 'edited'; readonly source: ReadMessage<T> }
  | { readonly kind: 'new' };

export function fateOf<T>(history: ReadHistory<T>, message: Message): Fate<T> {
  const source = history.source(message.id);
  if (!source || source.message.role !== message.role) return { kind: 'new' };
  return { kind: sameMessage(source.message, message) ? 'kept' : 'edited', source };
}
