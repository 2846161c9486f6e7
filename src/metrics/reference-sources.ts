/**
 * Where what an agent uses came from: for each reference target (reference-recall.ts rules 1-2) and
 * each probe answer, the tool result it first appeared in and the call that produced it. Reactive
 * replay re-issues that call when a strategy took the string out of the context.
 */
import type { Message, ToolCall, ToolMessage } from '../core/messages.js';
import { messageFacts } from './reference-recall.js';

/** The recorded tool result a string first appeared in, and the call it answered. */
export interface ReferenceSource {
  readonly call: ToolCall;
  readonly result: ToolMessage;
}

/** The call each tool result of `messages` answered, by the result's message id. */
function callsOfResults(messages: readonly Message[]): Map<string, ReferenceSource> {
  const calls = new Map<string, ToolCall>();
  const sources = new Map<string, ReferenceSource>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const call of m.toolCalls) calls.set(call.id, call);
    if (m.role !== 'tool') continue;
    const call = calls.get(m.toolCallId);
    if (call) sources.set(m.id, { call, result: m });
  }
  return sources;
}

/**
 * The source of every fact whose first appearance in `messages` is a tool result (the reference
 * targets: rule 2 of reference-recall.ts), in one pass. A path a turn made longer (rule 4) targets
 * the suffix the tool showed, which is a fact of that tool result: it has a source here too.
 */
export function referenceSources(messages: readonly Message[]): ReadonlyMap<string, ReferenceSource> {
  const results = callsOfResults(messages);
  const seen = new Set<string>();
  const sources = new Map<string, ReferenceSource>();
  for (const m of messages) {
    for (const fact of messageFacts(m)) {
      if (seen.has(fact)) continue;
      seen.add(fact);
      const source = m.role === 'tool' ? results.get(m.id) : undefined;
      if (source) sources.set(fact, source);
    }
  }
  return sources;
}

/** The first tool result of `messages` whose content holds `answer` (a probe's planted fact), with its call. */
export function answerSource(answer: string, messages: readonly Message[]): ReferenceSource | undefined {
  const first = messages.find((m) => m.role === 'tool' && m.content.includes(answer));
  return first ? callsOfResults(messages).get(first.id) : undefined;
}
