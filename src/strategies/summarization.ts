/**
 * `summarization`: seed 002's tier 3, the lossy last resort, after its reversible tiers 1-2
 * (offload-tiers.ts) when `offloadFirst` is on, as the seed's manage_context runs them.
 *
 * Above 95% of the window: the conversation is saved to the offload store (JSON and markdown), an LLM
 * writes a structured summary (the seed's template: intent, progress, decisions, state, next steps,
 * details), and the context becomes the system prompt, the summary and the most recent whole rounds
 * within 20% of the window. `template` picks whose summary it is (parts/summarizers/: the seed's,
 * Goose's, Codex's or deepagents': request, failure path, archive, where the summary goes) and `keep`
 * what stays verbatim (the recent rounds, the user's own messages as Codex keeps them, or the latest
 * user message as Goose re-sends it).
 *
 * Differences from the seed, on purpose (README "Strategies"):
 * - Sizes come from the run's token counter, tool-call arguments and framing included.
 * - The kept tail is cut only between rounds (core/cut-points.ts), never between a call and its result;
 *   the latest round is always kept (the model has not seen its results yet), even over the budget.
 * - The LLM summarizes the span it replaces, not the kept tail too (no duplicate, less overhead).
 * - A failed or tool-call summary answer falls back to the seed's heuristic summary (the seed uses it
 *   when no summarizer is configured; seed 004 does the same on error) instead of raising.
 * - Files are named by step, not by wall-clock time, so replays are deterministic.
 */
import { tailStart } from '../core/cut-points.js';
import { isFromScenario, type Message } from '../core/messages.js';
import type { ParamSpecs, ParamsOf } from '../core/params.js';
import { defineStrategy, type StrategyEvent, type StrategyInput } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';
import { applyOffloadTiers, OFFLOAD_PARAMS, tierMemory, withRecoveryPrompt, type TierOutcome } from './parts/offload-tiers.js';
import { isSummaryArtifact, type Summarizer } from './parts/summarizer.js';
import { codexSummarizer } from './parts/summarizers/codex.js';
import { deepagentsSummarizer } from './parts/summarizers/deepagents.js';
import { gooseSummarizer } from './parts/summarizers/goose.js';
import { valisSummarizer } from './parts/summarizers/valis.js';

const NAME = 'summarization';

const PARAMS = {
  summarizationThreshold: { kind: 'fraction', default: 0.95, description: 'Summarize above this share of the window (tier 3).' },
  keepFraction: { kind: 'fraction', default: 0.2, description: 'keep=recent: the most recent whole rounds kept verbatim, as a share of the window.' },
  keep: {
    kind: 'choice',
    default: 'recent',
    values: ['recent', 'user-messages', 'last-user-message'],
    description: "What stays verbatim besides the summary: the most recent rounds (seed), the user's own messages (Codex), or the latest user message with text only, re-sent after the summary (Goose).",
  },
  keepUserTokens: { kind: 'integer', default: 20_000, min: 0, description: 'keep=user-messages: most tokens of user messages kept, most recent first.' },
  template: {
    kind: 'choice',
    default: 'valis',
    values: ['valis', 'goose', 'codex', 'deepagents'],
    description: "Whose summary: its prompt, its request and what it does when that overflows, where it saves the history, where the summary goes (the seed's, Goose's, Codex's or deepagents').",
  },
  offloadFirst: { kind: 'boolean', default: true, description: 'Run the reversible tiers 1-2 before summarizing, as the seed\'s manage_context does.' },
  ...OFFLOAD_PARAMS,
} as const satisfies ParamSpecs;

export type SummarizationParams = ParamsOf<typeof PARAMS>;
export type TemplateName = SummarizationParams['template'];

/** Each template's summarizer. */
export const SUMMARIZERS: Readonly<Record<TemplateName, Summarizer>> = {
  valis: valisSummarizer,
  goose: gooseSummarizer,
  codex: codexSummarizer,
  deepagents: deepagentsSummarizer,
};

/** Codex: the user's own messages, most recent first, while they fit in `budget` tokens; in order. */
function recentUserMessages(body: readonly Message[], counter: TokenCounter, budget: number): Message[] {
  const kept: Message[] = [];
  let used = 0;
  for (let i = body.length - 1; i >= 0; i--) {
    const m = body[i]!;
    if (m.role !== 'user' || !isFromScenario(m)) continue;
    const cost = counter.countMessage(m);
    if (used + cost > budget) break;
    used += cost;
    kept.unshift(m);
  }
  return kept;
}

/** What stays verbatim, by `keep`, and what the summary replaces: everything else but the system prompt. */
function partition(body: readonly Message[], input: StrategyInput, p: SummarizationParams): { kept: Message[]; span: readonly Message[] } {
  if (p.keep === 'recent') {
    // The most recent whole rounds within the seed's ~20% of the window; the span is what they leave out.
    const cut = tailStart(body, input.counter, { budget: p.keepFraction * input.window });
    return { kept: body.slice(cut), span: body.slice(0, cut) };
  }
  // Codex and Goose summarize everything, and keep the user's words besides.
  if (p.keep === 'user-messages') return { kept: recentUserMessages(body, input.counter, p.keepUserTokens), span: body };
  const last = body.findLast((m) => m.role === 'user' && !isSummaryArtifact(m));
  return { kept: last ? [last] : [], span: body };
}

/** Tier 3: the context becomes the system prompt, the summary and what `keep` keeps, as the template places them. */
async function summarize(input: StrategyInput, messages: readonly Message[], tokens: number, p: SummarizationParams): Promise<{ messages: readonly Message[]; events: StrategyEvent[] }> {
  const head = messages[0] !== undefined && messages[0].id === input.systemPrompt?.id ? 1 : 0; // the system prompt stays first
  const { kept, span } = partition(messages.slice(head), input, p);
  if (!span.some((m) => !isSummaryArtifact(m) && !kept.includes(m))) {
    return { messages, events: [{ kind: 'warning', detail: 'summary threshold reached but nothing outside the kept messages to summarize' }] };
  }
  const summarizer = SUMMARIZERS[p.template];
  const call = { input, strategy: NAME, prefix: messages.slice(0, head), span, context: messages };
  const archived = summarizer.archive?.(call) ?? [];
  const { text, how } = await summarizer.summarize(call);
  if (text === undefined) return { messages, events: [{ kind: 'warning', detail: `no summary: ${how}; the context is sent as it is`, tokensBefore: tokens }] };
  const next = summarizer.compose(call, text, kept, archived);
  const summary = next.find((m) => m.id === `${NAME}:summary:${input.step}`)!;
  const event: StrategyEvent = {
    kind: 'summarized',
    messageId: summary.id,
    messageIds: span.map((m) => m.id),
    detail: `${span.length} messages summarized (${how}), ${kept.length} kept${archived.length > 0 ? `; conversation saved to ${archived.join(' and ')}` : ''}`,
    text: summary.content,
    tokensBefore: tokens,
    tokensAfter: input.counter.countContext(next),
  };
  return { messages: next, events: [event] };
}

/** offloadFirst=false: the context as it is, with the recovery segment when asked for. */
function withoutTiers(input: StrategyInput, recoveryPrompt: boolean): TierOutcome {
  const messages = recoveryPrompt ? withRecoveryPrompt(input, NAME, input.messages) : input.messages;
  return { messages, tokens: input.counter.countContext(messages), events: [] };
}

export const summarizationStrategy = defineStrategy({
  name: NAME,
  seed: '002',
  summary: 'Seed 002 tier 3: above 95%, an LLM summary (intent, progress, decisions, state, next steps, details) plus the most recent 20% of the window; originals saved; tiers 1-2 first.',
  params: PARAMS,
  checkParams(p) {
    const threshold = p.summarizationThreshold;
    if (p.keepFraction >= threshold) return `keepFraction (${p.keepFraction}) must be below summarizationThreshold (${threshold})`;
    if (p.offloadFirst && p.offloadStyle === 'valis' && p.compactionThreshold > threshold) {
      return `compactionThreshold (${p.compactionThreshold}) must not exceed summarizationThreshold (${threshold}) when offloadFirst=true`;
    }
    return undefined;
  },
  thresholds: (p) => [
    ...(p.offloadFirst && p.offloadStyle === 'valis' ? [{ label: 'compact (tier 2)', fraction: p.compactionThreshold }] : []),
    { label: 'summarize (tier 3)', fraction: p.summarizationThreshold },
  ],
  create(p) {
    const memory = tierMemory();
    return {
      async beforeRequest(input) {
        const first = p.offloadFirst ? applyOffloadTiers(input, NAME, p, memory) : withoutTiers(input, p.recoveryPrompt);
        // The seed compares with ">" (manage_context).
        if (first.tokens <= p.summarizationThreshold * input.window) return { messages: first.messages, events: first.events };
        const summarized = await summarize(input, first.messages, first.tokens, p);
        return { messages: summarized.messages, events: [...first.events, ...summarized.events] };
      },
    };
  },
});
