/**
 * Safe cut points: where a strategy may cut a context without separating a tool call from its result.
 * Strategies only cut at these (style.md: "a condenser only cuts where all invariants agree").
 */
import type { Message } from './messages.js';

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
