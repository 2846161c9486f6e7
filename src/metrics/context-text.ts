/**
 * What the metrics search in a context: each message's content and, for an assistant, its tool
 * calls' arguments (raw JSON text, as sent).
 */
import type { Message } from '../core/messages.js';
import { ownedSearch, type OwnedSearch } from './owned-search.js';

/** Whether `text` occurs in `message`'s content or, for an assistant, in one of its tool calls' arguments. */
export function mentions(message: Message, text: string): boolean {
  if (message.content.includes(text)) return true;
  return message.role === 'assistant' && message.toolCalls.some((call) => call.arguments.includes(text));
}

/** `mentions`, answered from what each message was found to hold. */
export type Mentions = (message: Message, text: string) => boolean;

const NONE: ReadonlySet<number> = new Set();

/**
 * `mentions` for strings out of `all` (a scenario's probe answers and reference targets): each
 * message is searched once for all of them (core/multi-search.ts) and what it holds is kept with it,
 * so asking whether a message holds one is a lookup, not a read of its text. Messages are shared by a
 * scenario's runs: a message is read once per thread, whichever strategy's context holds it, and over
 * `shared` (an OwnedSearch holding `all`) once for the offload store's index too. Any other string is
 * searched as `mentions` does.
 */
export function mentionsIndex(all: Iterable<string>, shared?: OwnedSearch): Mentions {
  const search = shared ?? ownedSearch(all);
  const held = new WeakMap<Message, ReadonlySet<number>>();
  const holds = (m: Message): ReadonlySet<number> => {
    let found = held.get(m);
    if (found === undefined) {
      found = search.ofOwner(m, m.content);
      if (m.role === 'assistant' && m.toolCalls.length > 0) {
        const set = new Set(found);
        for (const call of m.toolCalls) for (const p of search.ofOwner(call, call.arguments)) set.add(p);
        found = set.size === 0 ? NONE : set;
      }
      held.set(m, found);
    }
    return found;
  };
  return (message, text) => {
    const index = search.indexOf.get(text);
    return index === undefined ? mentions(message, text) : holds(message).has(index);
  };
}
