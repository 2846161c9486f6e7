/**
 * A summarizer: how one system writes the summary that replaces part of the context (tier 3 of
 * `summarization`, `template=...`): the request it sends, what it does when that fails, where it saves
 * what the summary replaces, and where the summary goes in the new context. One file per system in
 * summarizers/.
 */
import { composedUserMessage, type TextPart } from '../../core/composed-text.js';
import { strategyOrigin, systemMessage, userMessage, type Message } from '../../core/messages.js';
import type { StrategyInput } from '../../core/strategy.js';

/** What a summarizer is given at the threshold. */
export interface SummaryCall {
  readonly input: StrategyInput;
  /** The strategy, which names the messages it writes (ids, origins). */
  readonly strategy: string;
  /** The system prompt, which every request starts with; empty when there is none. */
  readonly prefix: readonly Message[];
  /** The messages the summary replaces. */
  readonly span: readonly Message[];
  /** The whole context at the threshold, the system prompt included. */
  readonly context: readonly Message[];
}

export interface SummaryOutcome {
  /** The summary; undefined when the system gives up (the context is then sent as it is). */
  readonly text: string | undefined;
  /** How it was written or why there is none, for the event: "LLM summary", "heuristic summary (...)". */
  readonly how: string;
}

export interface Summarizer {
  /** Section headings the prompt asks for, in order (the mock writes them). */
  readonly sections: readonly string[];
  /** Saves what the summary replaces where the agent can read it back; the store paths. */
  archive?(call: SummaryCall): readonly string[];
  /** Asks for the summary; on failure, the system's fallback (never throws an AuxiliaryCallError). */
  summarize(call: SummaryCall): Promise<SummaryOutcome>;
  /** The new context: the system prompt, the summary's message(s) and the kept messages, in the system's order. */
  compose(call: SummaryCall, summary: string, kept: readonly Message[], archived: readonly string[]): Message[];
}

/** Actions of the messages a summarizer puts in a context: a later summary replaces them, never keeps them. */
const SUMMARY_ACTIONS: ReadonlySet<string> = new Set(['summary', 'summary-continuation']);

/** Whether a summarizer wrote `m` (the summary, or what goes with it). */
export const isSummaryArtifact = (m: Message): boolean => m.origin.source === 'strategy' && SUMMARY_ACTIONS.has(m.origin.action);

/** The message that carries the summary, as `role`: its id names the strategy and the step. */
export function summaryMessage({ strategy, input }: SummaryCall, role: 'system' | 'user', content: string): Message {
  const fields = { id: `${strategy}:summary:${input.step}`, content, origin: strategyOrigin(strategy, 'summary') };
  return role === 'system' ? systemMessage(fields) : userMessage(fields);
}

/**
 * A user message of the summary request (`part`: "summary-input", "summary-prompt"); its content as
 * parts when it quotes messages (core/composed-text.ts: counted and read once per message).
 */
export function requestMessage({ strategy, input }: SummaryCall, part: string, content: string | readonly TextPart[]): Message {
  const fields = { id: `${strategy}:${part}:${input.step}`, origin: strategyOrigin(strategy, 'summary-request') };
  return typeof content === 'string' ? userMessage({ ...fields, content }) : composedUserMessage(fields, content);
}
