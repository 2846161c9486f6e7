/**
 * `summarization`: seed 002's tier 3, the lossy last resort, after its reversible tiers 1-2
 * (offload-tiers.ts) when `offloadFirst` is on, as the seed's manage_context runs them.
 *
 * Above 95% of the window: the conversation is saved to the offload store (JSON and markdown), an LLM
 * writes a structured summary (the seed's template: intent, progress, decisions, state, next steps,
 * details), and the context becomes the system prompt, the summary and the most recent whole rounds
 * within 20% of the window. `keep=user-messages` keeps the user's own messages instead (Codex);
 * `template` picks the sections (the seed's, Goose's, or a handoff summary).
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
import { isFromScenario, strategyOrigin, systemMessage, userMessage, type Message } from '../core/messages.js';
import type { ParamSpecs, ParamsOf } from '../core/params.js';
import { AuxiliaryCallError, defineStrategy, type StrategyEvent, type StrategyInput } from '../core/strategy.js';
import type { TokenCounter } from '../core/tokens.js';
import { archiveConversation, conversationMarkdown } from './parts/conversation-archive.js';
import { argumentsObject } from './parts/message-edits.js';
import { applyOffloadTiers, OFFLOAD_PARAMS, withRecoveryPrompt, type TierOutcome } from './parts/offload-tiers.js';

const NAME = 'summarization';

const PARAMS = {
  summarizationThreshold: { kind: 'fraction', default: 0.95, description: 'Summarize above this share of the window (tier 3).' },
  keepFraction: { kind: 'fraction', default: 0.2, description: 'keep=recent: the most recent whole rounds kept verbatim, as a share of the window.' },
  keep: { kind: 'choice', default: 'recent', values: ['recent', 'user-messages'], description: 'What stays verbatim besides the summary: the most recent rounds (seed), or the user\'s own messages (Codex).' },
  keepUserTokens: { kind: 'integer', default: 20_000, min: 0, description: 'keep=user-messages: most tokens of user messages kept, most recent first.' },
  template: { kind: 'choice', default: 'valis', values: ['valis', 'goose', 'handoff'], description: 'Summary sections: the seed\'s (valis), Goose\'s, or a Codex-style handoff.' },
  offloadFirst: { kind: 'boolean', default: true, description: 'Run the reversible tiers 1-2 before summarizing, as the seed\'s manage_context does.' },
  ...OFFLOAD_PARAMS,
} as const satisfies ParamSpecs;

export type SummarizationParams = ParamsOf<typeof PARAMS>;
export type TemplateName = SummarizationParams['template'];

interface SummaryTemplate {
  readonly prompt: string;
  readonly sections: readonly string[];
}

/** Seed 002's summary prompt (_generate_summary), word for word. */
export const VALIS_SUMMARY_PROMPT = `Summarize this conversation into a structured format:

## Session Intent
What is the user trying to accomplish?

## Progress So Far
What has been completed? What artifacts were created?

## Key Decisions
What important decisions were made?

## Current State
Where did we leave off?

## Next Steps
What remains to be done?

## Important Details
Any specific values, paths, or configurations that must be remembered.

Be concise but preserve critical information needed to continue the task.`;

/** Goose's checkpoint sections (shared/design/anchors.md), asked for in our words. */
const GOOSE_SUMMARY_PROMPT = `Summarize the conversation above into a checkpoint another model will use to continue the work. Use exactly these sections:

## Goal
What the user wants done (several items if the session covers several tasks).

## Constraints
Requirements and preferences the user stated, or "(none)".

## Progress
What is done (with file paths), what is in progress, what is blocked.

## Key Decisions
Each decision and its reason.

## Next Steps
What should happen next, in order.

## Critical Context
Data, error messages and references needed to continue, or "(none)".

Keep file paths, function names and error messages exact; leave out what can be re-read from files.`;

/** A Codex-style handoff summary (shared/design/anchors.md), asked for in our words. */
const HANDOFF_SUMMARY_PROMPT = `Write a handoff summary of the conversation above for another model that will take over the task:

## Goal
The user's objective.

## Progress
What is done, and the decisions made on the way.

## Constraints
Context, requirements and user preferences that still apply.

## Next Steps
What remains to be done.

## References
Data, examples, paths and names needed to continue.

Be concise and structured: the next model should continue without redoing work.`;

export const TEMPLATES: Readonly<Record<TemplateName, SummaryTemplate>> = {
  valis: { prompt: VALIS_SUMMARY_PROMPT, sections: ['Session Intent', 'Progress So Far', 'Key Decisions', 'Current State', 'Next Steps', 'Important Details'] },
  goose: { prompt: GOOSE_SUMMARY_PROMPT, sections: ['Goal', 'Constraints', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context'] },
  handoff: { prompt: HANDOFF_SUMMARY_PROMPT, sections: ['Goal', 'Progress', 'Constraints', 'Next Steps', 'References'] },
};

/** Seed 002's wrapper around the summary, inserted as a system message after the system prompt. */
export function summaryMessageText(summary: string): string {
  return (
    '\n[CONVERSATION SUMMARY]\n' +
    'The following is a summary of the conversation so far. The full conversation \n' +
    'has been saved to /conversation_history/ and can be searched with grep().\n\n' +
    `${summary}\n\n[END SUMMARY]\n`
  );
}

/** Seed 002's _extract_summary_heuristic: the first user request, tools used, paths touched. */
export function heuristicSummary(messages: readonly Message[]): string {
  const intent = messages.find((m) => m.role === 'user')?.content.slice(0, 500) ?? 'Unknown';
  const tools = new Set<string>();
  const files = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const call of m.toolCalls) {
      tools.add(call.name);
      const path = argumentsObject(call)['path'];
      if (path !== undefined) files.add(String(path));
    }
  }
  return `## Session Intent
${intent}

## Tools Used
${tools.size > 0 ? [...tools].join(', ') : 'None'}

## Files Created/Modified
${files.size > 0 ? [...files].join('\n') : 'None'}

## Note
This is an automatic summary. Full conversation saved to /conversation_history/
`;
}

const isSummary = (m: Message): boolean => m.origin.source === 'strategy' && m.origin.action === 'summary';

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

/**
 * The LLM summary of `span`, or the seed's heuristic when the request fails (never throws for that).
 * `prefix` is the system prompt, which every request starts with.
 */
async function summaryOf(input: StrategyInput, prefix: readonly Message[], span: readonly Message[], context: readonly Message[], template: SummaryTemplate): Promise<{ text: string; how: string }> {
  const origin = strategyOrigin(NAME, 'summary-request');
  // Tool-less and pairing-free: the span goes as text (the seed's markdown), then the instruction.
  const request = [
    ...prefix,
    userMessage({ id: `${NAME}:summary-input:${input.step}`, content: conversationMarkdown(span), origin }),
    userMessage({ id: `${NAME}:summary-prompt:${input.step}`, content: template.prompt, origin }),
  ];
  try {
    const answer = await input.llm({ messages: request, purpose: 'summary', expect: { sections: template.sections } });
    return { text: answer.text, how: 'LLM summary' };
  } catch (error) {
    if (!(error instanceof AuxiliaryCallError)) throw error;
    return { text: heuristicSummary(context), how: `heuristic summary (the summary request failed: ${error.reason})` };
  }
}

/** Tier 3: the context becomes the system prompt, the summary and what `keep` keeps. */
async function summarize(input: StrategyInput, messages: readonly Message[], tokens: number, p: SummarizationParams): Promise<{ messages: readonly Message[]; events: StrategyEvent[] }> {
  const { counter, window, step } = input;
  const head = messages[0] !== undefined && messages[0].id === input.systemPrompt?.id ? 1 : 0; // the system prompt stays first
  const body = messages.slice(head);
  const recent = p.keep === 'recent';
  // Recent: the most recent whole rounds within the seed's ~20% of the window.
  const kept = recent ? body.slice(tailStart(body, counter, { budget: p.keepFraction * window })) : recentUserMessages(body, counter, p.keepUserTokens);
  // Recent: the span is what the tail leaves out. User messages (Codex): everything is summarized.
  const span = recent ? body.slice(0, body.length - kept.length) : body;
  if (!span.some((m) => !isSummary(m) && !kept.includes(m))) {
    return { messages, events: [{ kind: 'warning', detail: 'summary threshold reached but nothing outside the kept messages to summarize' }] };
  }
  const saved = archiveConversation(input.files, `conversation_step${step}`, messages);
  const { text, how } = await summaryOf(input, messages.slice(0, head), span, messages, TEMPLATES[p.template]);
  const summary = systemMessage({ id: `${NAME}:summary:${step}`, content: summaryMessageText(text), origin: strategyOrigin(NAME, 'summary') });
  // Codex puts its summary after the kept user messages; the seed puts it before the recent ones.
  const next = [...messages.slice(0, head), ...(recent ? [summary, ...kept] : [...kept, summary])];
  const event: StrategyEvent = {
    kind: 'summarized',
    messageId: summary.id,
    messageIds: span.map((m) => m.id),
    detail: `${span.length} messages summarized (${how}), ${kept.length} kept; conversation saved to ${saved.json} and ${saved.markdown}`,
    text: summary.content,
    tokensBefore: tokens,
    tokensAfter: counter.countContext(next),
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
    if (p.offloadFirst && p.compactionThreshold > threshold) {
      return `compactionThreshold (${p.compactionThreshold}) must not exceed summarizationThreshold (${threshold}) when offloadFirst=true`;
    }
    return undefined;
  },
  thresholds: (p) => [
    ...(p.offloadFirst ? [{ label: 'compact (tier 2)', fraction: p.compactionThreshold }] : []),
    { label: 'summarize (tier 3)', fraction: p.summarizationThreshold },
  ],
  create(p) {
    return {
      async beforeRequest(input) {
        const first = p.offloadFirst ? applyOffloadTiers(input, NAME, p) : withoutTiers(input, p.recoveryPrompt);
        // The seed compares with ">" (manage_context).
        if (first.tokens <= p.summarizationThreshold * input.window) return { messages: first.messages, events: first.events };
        const summarized = await summarize(input, first.messages, first.tokens, p);
        return { messages: summarized.messages, events: [...first.events, ...summarized.events] };
      },
    };
  },
});
