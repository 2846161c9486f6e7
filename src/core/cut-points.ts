/**
 * Safe cut points, the one place that knows where a context may be cut (style.md: "a condenser only
 * cuts where all invariants agree"). Every strategy cuts with these and never re-implements them:
 * - rounds: an assistant turn with all its results, or any other single message; a cut between two
 *   rounds never separates a call from its result (the pairing INVARIANT);
 * - cycles: from a user/system message to the next assistant text (what a restart carries);
 * - turns: an assistant message and everything up to the next one (a recorded agent step);
 * - unseen results: those after the latest assistant turn, which the model has not read yet, so no
 *   strategy masks, clears, offloads or removes them;
 * - the spans a strategy keeps or takes: the head, the most recent rounds within a budget, the tool
 *   rounds a removal may take, a session without its unanswered calls.
 */
import { hasToolCalls, type Message } from './messages.js';
import type { TokenCounter } from './tokens.js';

/** A half-open range [start, end) of message indices. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Splits messages[from..] into rounds: an assistant message together with all the tool results that
 * answer it, or any other single message. Cutting between rounds never splits a call from its result.
 */
export function rounds(messages: readonly Message[], from = 0): Span[] {
  const spans: Span[] = [];
  let start = -1;
  for (let i = from; i < messages.length; i++) {
    if (messages[i]!.role === 'tool' && start >= 0) continue;
    if (start >= 0) spans.push({ start, end: i });
    start = i;
  }
  if (start >= 0) spans.push({ start, end: messages.length });
  return spans;
}

export interface Cycle extends Span {
  /** A cycle is complete once an assistant message without tool calls closes it. */
  readonly complete: boolean;
}

/**
 * Splits messages[from..] into interaction cycles (design "Words"): from a user or system message
 * through every tool call and result to the next assistant text without tool calls. Consecutive
 * user/system messages (a system prompt and the task, say) open one cycle together: a new cycle starts
 * at a user/system message only once the current one holds an assistant or tool message. Messages
 * before the first user/system message form a cycle of their own.
 */
export function cycles(messages: readonly Message[], from = 0): Cycle[] {
  const out: Cycle[] = [];
  let start = from;
  let complete = false;
  let answered = false; // the current cycle holds an assistant or tool message
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    const opens = m.role === 'user' || m.role === 'system';
    if (opens && answered) {
      out.push({ start, end: i, complete });
      start = i;
      complete = false;
      answered = false;
    }
    if (!opens) answered = true;
    if (m.role === 'assistant') complete = m.toolCalls.length === 0;
  }
  if (start < messages.length) out.push({ start, end: messages.length, complete });
  return out;
}

/**
 * Splits messages[from..] into turns: an assistant message and every message after it up to the next
 * assistant message (its results, a user follow-up). Messages before the first assistant message
 * form a turn of their own. Cutting between turns never splits a call from its result.
 */
export function turns(messages: readonly Message[], from = 0): Span[] {
  const spans: Span[] = [];
  let start = from;
  for (let i = from + 1; i < messages.length; i++) {
    if (messages[i]!.role !== 'assistant') continue;
    spans.push({ start, end: i });
    start = i;
  }
  if (start < messages.length) spans.push({ start, end: messages.length });
  return spans;
}

/** Index after the last assistant message: the results from there on are unseen by the model. */
export function unseenFrom(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'assistant') return i + 1;
  return messages.length;
}

/**
 * The first cut at or after message `count`: where a head of at least `count` messages ends without
 * splitting a round (the whole context when `count` reaches past it).
 */
export function headEnd(messages: readonly Message[], count: number): number {
  const spans = rounds(messages);
  return spans.find((s) => s.end >= count)?.end ?? spans.at(-1)?.end ?? 0;
}

export interface TailLimits {
  /** Tokens the tail may hold (whole rounds, framing included). */
  readonly budget: number;
  /** Messages the tail may hold. Default: no limit. */
  readonly maxMessages?: number;
  /** The tail never starts before this index. Default: 0. */
  readonly from?: number;
}

/**
 * Where the most recent whole rounds begin that fit the limits. The latest round is always kept,
 * over the limits if need be: its results are what the model answers next.
 */
export function tailStart(messages: readonly Message[], counter: TokenCounter, { budget, maxMessages = Infinity, from = 0 }: TailLimits): number {
  let start = messages.length;
  let left = budget;
  for (const span of rounds(messages, from).reverse()) {
    let cost = 0;
    for (let i = span.start; i < span.end; i++) cost += counter.countMessage(messages[i]!);
    const first = start === messages.length;
    if (!first && (messages.length - span.start > maxMessages || cost > left)) break;
    start = span.start;
    left -= cost;
  }
  return start;
}

/**
 * Where the last `keep` messages begin, moved back to the start of their round so the kept part never
 * starts on a tool result (it then holds more than `keep`). Never before `from`.
 */
export function recentStart(messages: readonly Message[], keep: number, from = 0): number {
  const naive = messages.length - keep;
  if (naive <= from) return from;
  if (naive >= messages.length) return messages.length; // keep 0: nothing
  return rounds(messages, from).find((s) => s.start <= naive && naive < s.end)!.start;
}

/**
 * The tool rounds a strategy may take out, oldest first: each assistant turn with tool calls together
 * with all its results. The latest assistant turn's round is not among them: its results are unseen.
 */
export function seenToolRounds(messages: readonly Message[]): Span[] {
  const latest = unseenFrom(messages) - 1;
  return rounds(messages).filter((s) => hasToolCalls(messages[s.start]!) && s.start !== latest);
}

/**
 * The messages up to the last answered call: a trailing assistant whose calls have no results yet
 * is left out, so a request built on them (a checkpoint or summary request) stays well-paired.
 */
export function withoutPendingCalls(messages: readonly Message[]): readonly Message[] {
  const last = messages.at(-1);
  return last && hasToolCalls(last) ? messages.slice(0, -1) : messages;
}
