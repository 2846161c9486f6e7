/**
 * Token counting (design DEFINITION "Token accounting").
 *
 * A context's size is the sum of its messages' counts plus a fixed priming cost. Each message is
 * tokenized once per counter (the cache is keyed by the frozen message object, which strategies share
 * instead of copying), so a replay costs one tokenization of its unique content, not one per step.
 */
import { unchangedPrefix } from './append-only.js';
import type { Message } from './messages.js';
import { countCuts, joinParts, partsOf, type TextPart } from './composed-text.js';
import { pieceCounter } from './piece-count.js';
import { rankTable, type RankedEncoding } from './rank-table.js';
import { isWhitespace } from './whitespace.js';
import { sendsTools, toolsText, type ToolDefinition } from './tools.js';

export const ENCODINGS = ['o200k_base', 'cl100k_base', 'chars4'] as const;
export type Encoding = (typeof ENCODINGS)[number];
/** The tokenizer counts use unless told otherwise (`--encoding`). */
export const DEFAULT_ENCODING: Encoding = 'o200k_base';

/** The most tokens a window or a count may name: the results database stores them as INTEGER. */
export const MAX_TOKEN_COUNT = 2 ** 31 - 1;

/**
 * Chat-format overhead, as OpenAI documents it for its chat models: every message costs 3 tokens of
 * framing, every reply is primed with 3 more; a tool call adds its name, arguments and 3 of framing.
 */
export const PER_MESSAGE_TOKENS = 3;
export const PER_CONTEXT_TOKENS = 3;
export const PER_TOOL_CALL_TOKENS = 3;

export interface TokenCounter {
  readonly encoding: Encoding;
  countText(text: string): number;
  /** Tokens of one message in a chat request, framing included. Cached per message object. */
  countMessage(message: Message): number;
  /** Tokens of a whole request: every message plus reply priming, and the tool definitions (`toolTokens`). */
  countContext(messages: readonly Message[]): number;
  /**
   * What the tool definitions add to a request that sends them (see countRequest); 0 for a counter
   * without tools (withTools gives one with).
   */
  readonly toolTokens: number;
  /** How much text was actually tokenized (for the benchmark's "tokenize once" ratio). */
  readonly stats: { texts: number; chars: number };
}

type CountFn = (text: string) => number;

/** A BPE encoding's count: this thread's rank table (rank-table.ts), shared with the threads it starts. */
const bpeCount = (encoding: RankedEncoding): CountFn => boundedRuns(pieceCounter(rankTable(encoding)));

/**
 * The longest run of whitespace, or of anything but whitespace, that BPE sees in one piece. BPE's cost
 * grows with the square of a piece's length (100,000 spaces: 5 s; a 290,000-character line without
 * spaces: minutes), and base64, minified code, CJK text and separator lines are such pieces. Cutting
 * runs at this length keeps counting linear; each cut can split one token in two, so a count is high
 * by a few tokens per cut at most (measured: 0 on every message of the bundled scenarios, up to 5%
 * on the worst repetitive text; README "Token accounting").
 */
export const MAX_RUN_CHARS = 1024;

/**
 * The places where `text` is cut so that no run of whitespace, and no run of anything else, is longer
 * than `max`: a piece of the pre-tokenizer lies inside one such run (plus at most one leading
 * character), so none is longer than `max + 1`. Never between the two halves of a surrogate pair.
 */
export function runCuts(text: string, max = MAX_RUN_CHARS): number[] {
  const cuts: number[] = [];
  if (text.length <= max) return cuts;
  let start = 0;
  let space = isWhitespace(text.charCodeAt(0));
  for (let i = 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const isSpace = isWhitespace(code);
    if (isSpace !== space) {
      start = i;
      space = isSpace;
    } else if (i - start >= max && !(code >= 0xdc00 && code <= 0xdfff)) {
      cuts.push(i);
      start = i;
    }
  }
  return cuts;
}

/** `count` over `text` cut at runCuts: linear in the text's length whatever its runs. */
function boundedRuns(count: CountFn): CountFn {
  return (text) => {
    const cuts = runCuts(text);
    if (cuts.length === 0) return count(text);
    let total = 0;
    let from = 0;
    for (const cut of cuts) {
      total += count(text.slice(from, cut));
      from = cut;
    }
    return total + count(text.slice(from));
  };
}

/** The documented fallback when no tokenizer fits: one token per four characters, rounded up. */
export const charsPerFour: CountFn = (text) => Math.ceil(text.length / 4);

/**
 * A counter for `encoding` (default DEFAULT_ENCODING), with its per-message cache: `known`, when given,
 * which the caller may fill with counts made elsewhere (a worker thread gets the main thread's counts of
 * the scenario it is sent, instead of tokenizing it again).
 */
export async function createTokenCounter(encoding: Encoding = DEFAULT_ENCODING, known?: WeakMap<Message, number>): Promise<TokenCounter> {
  const count = encoding === 'chars4' ? charsPerFour : bpeCount(encoding);
  return counterFrom(encoding, count, known);
}

export function counterFrom(encoding: Encoding, count: CountFn, cache = new WeakMap<Message, number>()): TokenCounter {
  const stats = { texts: 0, chars: 0 };
  const countText = (text: string): number => {
    if (text.length === 0) return 0;
    stats.texts += 1;
    stats.chars += text.length;
    return count(text);
  };
  // One token per four characters is not a sum over parts: chars4 counts the joined text.
  const countParts = encoding === 'chars4' ? (parts: readonly TextPart[]) => countText(joinParts(parts)) : partCounting(countText, (owner, text) => contentTokens(owner, text));
  const countMessage = (message: Message): number => {
    const cached = cache.get(message);
    if (cached !== undefined) return cached;
    const parts = partsOf(message);
    let tokens = PER_MESSAGE_TOKENS + (parts === undefined ? countText(message.content) : countParts(parts));
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) {
        tokens += PER_TOOL_CALL_TOKENS + countText(call.name) + countText(call.arguments);
      }
    }
    cache.set(message, tokens);
    return tokens;
  };
  /** A message's content tokens from its count (counted already, or in another thread), when its content is all it counts. */
  const contentTokens = (owner: object, text: string): number | undefined => {
    const m = owner as Partial<Message>;
    if (m.content !== text || m.role === undefined || (m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0)) return undefined;
    return countMessage(m as Message) - PER_MESSAGE_TOKENS;
  };
  return { encoding, countText, countMessage, ...contextCounting(countMessage), toolTokens: 0, stats };
}

/**
 * The count of parts joined (composed-text.ts), each quote's text between its first and last cut
 * (countCuts: a line start or a word's end) counted once per owner: the rest (literals, and what of
 * each quote lies before its first cut and after its last, which joins the text around it) is
 * counted as the text it makes, cut there.
 */
function partCounting(countText: CountFn, contentTokens: (owner: object, text: string) => number | undefined): (parts: readonly TextPart[]) => number {
  const inner = new WeakMap<object, { readonly first: number; readonly last: number; readonly tokens: number } | null>();
  // The inner text's count: a message's content count (usually known: every scenario message is
  // counted before its replay) less what lies outside its cuts, else counted.
  const innerTokens = (owner: object, text: string, first: number, last: number): number => {
    const whole = contentTokens(owner, text);
    return whole === undefined ? countText(text.slice(first, last)) : whole - countText(text.slice(0, first)) - countText(text.slice(last));
  };
  const innerOf = (owner: object, text: string) => {
    let known = inner.get(owner);
    if (known === undefined) {
      const cuts = countCuts(text, MAX_RUN_CHARS);
      known = cuts === undefined ? null : { ...cuts, tokens: innerTokens(owner, text, cuts.first, cuts.last) };
      inner.set(owner, known);
    }
    return known;
  };
  return (parts) => {
    let total = 0;
    let pending = ''; // text since the last cut
    for (const part of parts) {
      if (typeof part === 'string') {
        pending += part;
        continue;
      }
      const cut = innerOf(part.owner, part.text);
      if (cut === null) {
        pending += part.text;
        continue;
      }
      total += countText(pending + part.text.slice(0, cut.first)) + cut.tokens;
      pending = part.text.slice(cut.last);
    }
    return total + countText(pending);
  };
}

/**
 * `counter` for the requests of a scenario that declares `tools`: every context it counts includes
 * their text, counted here once (providers bill the definitions with each request that sends them, a
 * fixed cost per request). It shares the counter's per-message cache and running totals; without tools
 * it is the counter itself.
 */
export function withTools(counter: TokenCounter, tools: readonly ToolDefinition[] | undefined): TokenCounter {
  if (tools === undefined || tools.length === 0) return counter;
  const added = counter.countText(toolsText(tools));
  return { ...counter, countContext: (messages) => counter.countContext(messages) + added, toolTokens: counter.toolTokens + added };
}

/**
 * Tokens of one request as sent: its context, less the tool definitions when it does not send them
 * (an auxiliary request of plain text: tools.ts sendsTools).
 */
export function countRequest(counter: TokenCounter, messages: readonly Message[], purpose: string): number {
  const tokens = counter.countContext(messages);
  return sendsTools(messages, purpose) ? tokens : tokens - counter.toolTokens;
}

/**
 * Context counts over a per-message count, remembering the messages of the last two contexts counted
 * and their running totals. A replay counts one context per step, and consecutive contexts share most
 * messages in place (the same objects: the history plus appended turns, or the same with a few
 * edits); the next count then costs a pointer comparison per shared message and a lookup per new
 * one, not a lookup per message. Two, because a strategy that edits the history counts both at each
 * step (the history it was given, the context it sends), and summary requests come in between: each
 * context goes on from whichever of the two shares the longer prefix with it. The messages are
 * remembered as they were (not the array, which a caller may change in place), so the totals are
 * always the plain sums; the same append-only array again (append-only.ts: the replay's history) is
 * not compared, only its appended messages counted. `fixedTokens` is what every request costs
 * besides its messages (default PER_CONTEXT_TOKENS, the reply priming).
 */
export function contextCounting(countMessage: (message: Message) => number, fixedTokens = PER_CONTEXT_TOKENS): Pick<TokenCounter, 'countContext'> {
  // Only ever grown, never cut: the first `size` entries of `seen` are the context's. (Cutting an
  // array's length gives its memory back, and the next longer context would have to allocate it again.)
  const slot = (): ContextSlot => ({ seen: [], totals: [0], size: 0, last: undefined });
  let [recent, other] = [slot(), slot()];
  return {
    countContext: (messages) => {
      let into = recent;
      let shared: number;
      if (messages === recent.last) shared = sharedPrefix(recent, messages);
      else {
        // Into the other slot, which keeps the recent context; from whichever shares more with it.
        const fromOther = sharedPrefix(other, messages);
        const fromRecent = sharedPrefix(recent, messages);
        shared = Math.max(fromOther, fromRecent);
        if (fromRecent > fromOther) {
          for (let i = 0; i < fromRecent; i++) [other.seen[i], other.totals[i + 1]] = [recent.seen[i]!, recent.totals[i + 1]!];
        }
        [into, recent, other] = [other, other, recent];
      }
      const { seen, totals } = into;
      for (let i = shared; i < messages.length; i++) {
        seen[i] = messages[i]!;
        totals[i + 1] = totals[i]! + countMessage(messages[i]!);
      }
      [into.size, into.last] = [messages.length, messages];
      return fixedTokens + totals[into.size]!;
    },
  };
}

/** A context counted: its messages as they were (the first `size` of `seen`), totals[i] the tokens of the first i, and the array it came in. */
interface ContextSlot {
  readonly seen: Message[];
  readonly totals: number[];
  size: number;
  last: readonly Message[] | undefined;
}

/** How many leading messages of `messages` are `slot`'s. */
function sharedPrefix(slot: ContextSlot, messages: readonly Message[]): number {
  const limit = Math.min(slot.size, messages.length);
  let shared = unchangedPrefix(messages, slot.last, slot.size);
  while (shared < limit && messages[shared] === slot.seen[shared]) shared++;
  return shared;
}
