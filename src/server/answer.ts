/**
 * What the server answers, and what it counts: deterministic text (summaries written by the mock's
 * summarizer, probe answers from the context, "ok" for agent steps), token caps, and Ollama's silent truncation to num_ctx.
 */
import type { Message } from '../core/messages.js';
import type { TokenCounter } from '../core/tokens.js';
import { MOCK_DEFAULTS, writeSummary } from '../llm/mock.js';
import { answerProbeRequest } from '../llm/probe-answerer.js';
import type { ExpectedAnswer } from '../core/backend.js';
import type { Truncation } from './types.js';

/** An agent step's answer: the replay appends the recorded turn whatever the model says. */
export const AGENT_STEP_ANSWER = 'ok';

export interface Completion {
  readonly content: string;
  readonly completionTokens: number;
  /** 'length' when the token cap cut the answer. */
  readonly finish: 'stop' | 'length';
}

/**
 * The section headings (`## Heading` lines) an instruction asks for, and the tag its template is
 * wrapped in (`<checkpoint>` ... `</checkpoint>`), so a summary has the shape the prompt describes.
 * Undefined when the prompt names no headings (the summarizer then writes one "Summary" section).
 */
export function expectFromPrompt(prompt: string): ExpectedAnswer | undefined {
  const sections = [...prompt.matchAll(/^##[ \t]+(.+?)[ \t]*$/gm)].map((m) => m[1]!);
  if (sections.length === 0) return undefined;
  const tag = /^<([\w-]+)>[ \t]*$/m.exec(prompt)?.[1];
  const wrap = tag !== undefined && new RegExp(`^</${tag}>[ \\t]*$`, 'm').test(prompt) ? tag : undefined;
  return { sections, wrap };
}

/**
 * A request whose last message is a user instruction is a probe question (answered from the context,
 * llm/probe-answer.ts) or a summary (or checkpoint) request, which the mock's summarizer answers.
 * Anything else is an agent step, answered with a short text.
 */
export function complete(messages: readonly Message[], maxTokens: number | undefined, counter: TokenCounter): Completion {
  const last = messages.at(-1);
  const text = last?.role === 'user' ? (answerProbeRequest(messages) ?? writeSummary(messages, expectFromPrompt(last.content), counter, MOCK_DEFAULTS)) : AGENT_STEP_ANSWER;
  const content = maxTokens === undefined ? text : capTokens(text, maxTokens, counter);
  return { content, completionTokens: counter.countText(content), finish: content === text ? 'stop' : 'length' };
}

/** The longest prefix of `text` (whole code points, at least one) that is at most `max` tokens. */
export function capTokens(text: string, max: number, counter: TokenCounter): string {
  if (counter.countText(text) <= max) return text;
  const chars = Array.from(text);
  let [low, high] = [1, chars.length - 1]; // countText is monotone enough on prefixes for a bisection
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (counter.countText(chars.slice(0, mid).join('')) <= max) low = mid;
    else high = mid - 1;
  }
  return chars.slice(0, low).join('');
}

export interface Fitted {
  readonly kept: readonly Message[];
  readonly promptTokens: number;
  readonly truncation?: Truncation | undefined;
}

/**
 * Ollama's chatPrompt (server/prompt.go): when the prompt is longer than num_ctx, keep the most recent
 * messages that fit, plus every system message of the dropped front, and always the last message;
 * no error, HTTP 200. When even that is too long Ollama's runner cuts the tokens themselves, so the
 * count it reports is num_ctx at most.
 */
export function fitContext(messages: readonly Message[], numCtx: number, counter: TokenCounter): Fitted {
  const fullTokens = counter.countContext(messages);
  if (fullTokens <= numCtx) return { kept: messages, promptTokens: fullTokens };
  const from = (start: number): Message[] => [...messages.slice(0, start).filter((m) => m.role === 'system'), ...messages.slice(start)];
  let start = messages.length - 1;
  while (start > 0 && counter.countContext(from(start - 1)) <= numCtx) start -= 1;
  const kept = from(start);
  const promptTokens = Math.min(counter.countContext(kept), numCtx);
  const droppedMessages = messages.length - kept.length;
  return { kept, promptTokens, truncation: { numCtx, fullTokens, keptTokens: promptTokens, droppedMessages } };
}
