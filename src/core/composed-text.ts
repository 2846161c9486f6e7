/**
 * Text assembled from other texts: a summary request renders turns that were counted and read as
 * messages already ("USER: <content>", one turn after another). Built from parts, such a text is
 * counted (tokens.ts) and read (the mock's summaries) part by part, and a part that is a message's
 * own text is counted and read once per thread, not once per request that quotes it: every
 * summarizing strategy quotes the same scenario messages.
 *
 * Exact by construction: a BPE piece never spans a line start or a word's end (see `countCuts`), so a
 * text's count is the sum of its counts cut there, whatever surrounds them.
 */
import { userMessage, type Message, type UserMessage } from './messages.js';
import { isWhitespace } from './whitespace.js';

/**
 * A quoted text and the object it belongs to (the message whose content it is, or the tool call
 * whose arguments): what counts and facts of it are remembered by. `text` must be that object's text,
 * unchanged (a cut text is a literal part).
 */
export interface Quote {
  readonly owner: object;
  readonly text: string;
}

export type TextPart = string | Quote;

export const quote = (owner: object, text: string): Quote => ({ owner, text });

export const partText = (part: TextPart): string => (typeof part === 'string' ? part : part.text);

/** Each item's parts, `separator` between them: parts for `items.map(join).join(separator)`. */
export function joinedParts(items: readonly (readonly TextPart[])[], separator: string): TextPart[] {
  return items.flatMap((parts, i) => (i === 0 ? parts : [separator, ...parts]));
}

/** The text the parts make. */
export const joinParts = (parts: readonly TextPart[]): string => parts.map(partText).join('');

/** Messages made from parts, with their parts (weakly: the message's life). */
const composed = new WeakMap<Message, readonly TextPart[]>();

/**
 * A user message whose content is `parts` joined, remembered with its parts. The content is joined
 * when first read: counts and the mock read the parts, so a summary request's text (a whole span of
 * turns) is built only for a backend that sends it.
 */
export function composedUserMessage(fields: { readonly id: string; readonly origin: UserMessage['origin'] }, parts: readonly TextPart[]): UserMessage {
  let content: string | undefined;
  const message = { ...userMessage({ ...fields, content: '' }) };
  Object.defineProperty(message, 'content', { enumerable: true, get: () => (content ??= joinParts(parts)) });
  Object.freeze(message);
  composed.set(message, parts);
  return message;
}

/** The parts `message`'s content was made of; undefined for any other message. */
export const partsOf = (message: Message): readonly TextPart[] | undefined => composed.get(message);

/**
 * Where `text` may be cut without changing its token count (each side counted alone, with runs cut
 * at `maxRun` as tokens.ts counts), whatever text comes before and after it: the first and the last
 * such place (the same when there is one), or undefined. Two kinds of place:
 * - after an ASCII letter that whitespace follows: in the o200k_base and cl100k_base pre-tokenizer
 *   patterns a piece holding a letter is a word (letters, marks, a leading non-letter, a
 *   contraction's "'s"), which whitespace ends; the patterns look back at nothing, so the pieces
 *   from the whitespace on are the rest's own; and a run of whitespace starts there, so runs are cut
 *   alike on both sides. A summary request renders turns as "USER: <content>": only the content's
 *   first and last word join the text around it.
 * - a line start: after a "\n" that neither "/" nor whitespace holding another line break follows,
 *   where the whitespace around it is shorter than `maxRun`. Only `\s*[\r\n]+` (up to the last line
 *   break of a whitespace run) and punctuation's trailing `[\r\n/]*` (`[\r\n]*` in cl100k_base)
 *   match a piece holding a "\n" and more; neither reaches past it there. Indented lines start a
 *   piece too (the newline's piece ends before their indent).
 */
export function countCuts(text: string, maxRun: number): { readonly first: number; readonly last: number } | undefined {
  let first = -1;
  for (let i = 1; i < text.length; i++) {
    if (cutsAt(text, i, maxRun)) {
      first = i;
      break;
    }
  }
  if (first < 0) return undefined;
  for (let i = text.length - 1; i > first; i--) if (cutsAt(text, i, maxRun)) return { first, last: i };
  return { first, last: first };
}

/** Whether `text` may be cut before position `i` (see countCuts). */
function cutsAt(text: string, i: number, maxRun: number): boolean {
  const before = text.charCodeAt(i - 1);
  if (before === 0x0a) return cutsAfter(text, i - 1, maxRun);
  return ((before | 0x20) >= 0x61 && (before | 0x20) <= 0x7a) && isWhitespace(text.charCodeAt(i));
}

/** Whether `text` may be cut after the "\n" at `nl` (see countCuts). */
function cutsAfter(text: string, nl: number, maxRun: number): boolean {
  if (text.charCodeAt(nl + 1) === 0x2f) return false; // "/"
  let end = nl + 1;
  for (; end < text.length && isWhitespace(text.charCodeAt(end)); end++) {
    const code = text.charCodeAt(end);
    if (code === 0x0a || code === 0x0d || end - nl >= maxRun) return false;
  }
  let start = nl;
  while (start > 0 && isWhitespace(text.charCodeAt(start - 1)) && end - start < maxRun) start--;
  // The whitespace must end and start within `text`: what comes next to it is not known here.
  return end < text.length && start > 0 && end - start < maxRun;
}
