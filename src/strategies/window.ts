/**
 * `window`: the truncation baseline (OpenHands' `recent` / `conversation_window` condensers). When
 * the context exceeds `trigger` of the window, keep the first `keepFirst` messages and the last
 * `keepLast`, and drop everything between them. No LLM call, no placeholder.
 *
 * Defaults from the field (shared/design/anchors.md):
 * - keepFirst 2: the system prompt and the task, what the OpenHands SDK keeps (keep_first=2) and what
 *   the V0 conversation_window treats as essential (system message + first user message); V0's
 *   `recent` keeps only 1, which would drop the task.
 * - keepLast 20 messages: LangChain's summarizationMiddleware keeps 20; about the Complexity Trap's
 *   M=10 turns of an agent that makes one call per turn.
 * - trigger 0.9: inspect_ai's compaction trigger (Codex CLI compacts at 90% too). trigger=1 is
 *   OpenHands' conversation_window, which only acts once the request overflows.
 *
 * Cuts fall only between rounds (core/cut-points.ts), so a call never loses its result and the tail
 * never starts on a tool result. The prefix grows to the end of the round `keepFirst` falls in. The
 * tail holds at most `keepLast` messages, fewer when they would not fit under the trigger, and always
 * the latest round (its results are what the model must answer).
 */
import { headEnd, tailStart } from '../core/cut-points.js';
import { droppedIds, type Message } from '../core/messages.js';
import type { ParamSpecs, ParamsOf } from '../core/params.js';
import { defineStrategy } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';
import { measurePressure } from './parts/pressure.js';

const NAME = 'window';

const PARAMS = {
  keepFirst: { kind: 'integer', default: 2, min: 1, max: 1000, description: 'Leading messages always kept: the system prompt and the task by default (OpenHands SDK keep_first=2); extended to a whole round.' },
  keepLast: { kind: 'integer', default: 20, min: 1, max: 100_000, description: 'Most recent messages kept when the window applies (LangChain keeps 20); fewer if they do not fit under the trigger, the latest round always.' },
  trigger: { kind: 'fraction', default: 0.9, description: 'Apply the window when the context exceeds this share of the model window (inspect_ai: 0.9; 1 = only on overflow, like OpenHands conversation_window).' },
} as const satisfies ParamSpecs;

export type WindowParams = ParamsOf<typeof PARAMS>;

export interface Windowed {
  readonly messages: Message[];
  /** Messages kept at the start and at the end. */
  readonly head: number;
  readonly tail: number;
}

/** The windowed context within `budget` tokens, or undefined when nothing lies between the prefix and the tail. */
export function applyWindow(messages: readonly Message[], p: Omit<WindowParams, 'trigger'>, budget: number, counter: TokenCounter): Windowed | undefined {
  const head = headEnd(messages, p.keepFirst);
  const prefix = messages.slice(0, head);
  const start = tailStart(messages, counter, { budget: budget - counter.countContext(prefix), maxMessages: p.keepLast, from: head });
  if (start <= head) return undefined;
  return { messages: [...prefix, ...messages.slice(start)], head, tail: messages.length - start };
}

export const windowStrategy = defineStrategy({
  name: NAME,
  summary: 'Truncation baseline: above the trigger, keep the first K and the last N messages (OpenHands recent / conversation_window).',
  params: PARAMS,
  thresholds: (p) => [{ label: 'window (truncate)', fraction: p.trigger }],
  create(p) {
    return {
      beforeRequest(input) {
        const { messages, counter } = input;
        const limit = p.trigger * input.window;
        const tokens = measurePressure(input, 'projected').tokens;
        if (tokens <= limit) return { messages };
        const kept = applyWindow(messages, p, limit, counter);
        if (!kept) return { messages };
        const dropped = messages.length - kept.messages.length;
        const detail = `dropped ${dropped} messages, kept the first ${kept.head} and the last ${kept.tail}`;
        const event = { kind: 'removed', messageIds: droppedIds(messages, kept.messages), detail, tokensBefore: tokens, tokensAfter: counter.countContext(kept.messages) } as const;
        return { messages: kept.messages, events: [event] };
      },
    };
  },
});
