/**
 * `continuation`: end the conversation with a continuation summary, as seed 001 (Shelley) specifies.
 *
 * - After every response, the response's own usage (input + output tokens) is compared with the
 *   window: at 80% a `warned` event (once per conversation), at 90% the continuation flow starts
 *   BEFORE any tool of that response runs: its tool calls are rejected (never run, their results
 *   never appended) and named to the summarizer.
 * - The flow: one tool-less summary request (the seed's continuation prompt), the answer stored as a
 *   continuation message, the conversation ContextExhausted (read-only). A failed or overflowing
 *   summary request gives the seed's fallback summary instead; the conversation is exhausted anyway.
 * - Replay: by default the scenario goes on in a NEW conversation seeded with the summary and linked
 *   to its parent (seed REQ-BED-021, "Start New Conversation" with the summary pre-populated); with
 *   seedNewConversation=false the exhausted conversation rejects the next request and the run stops.
 * - Sub-agents (IntentionallyUnhandled) fail with ContextExhausted instead: no summary request.
 * - A manual trigger at a given step runs the very same flow (REQ-BED-023).
 *
 * The model's window is `input.window` (the runner resolves it; an unknown model gets the smallest
 * known window, core/models.ts, REQ-BED-022).
 */
import { assistantMessage, strategyOrigin, userMessage, type AssistantMessage, type Message, type ToolCall } from '../core/messages.js';
import { checkBelow } from '../core/params.js';
import {
  AuxiliaryCallError,
  defineStrategy,
  type RequestPlan,
  type ResponseInput,
  type ResponsePlan,
  type StrategyEvent,
  type StrategyInput,
} from '../core/strategy.js';
import { PER_MESSAGE_TOKENS } from '../core/tokens.js';

const NAME = 'continuation';

/** Seed 001's CONTINUATION_PROMPT, word for word (the seed keeps it generic: "specifics TBD"). */
export const CONTINUATION_PROMPT =
  'The conversation context is nearly full. Please provide a brief continuation summary that could seed a new conversation.';

/** Seed 001's fallback summary, for a summary request that fails (or overflows the window). */
export const FALLBACK_SUMMARY =
  'Context limit reached. The continuation summary could not be generated. Please start a new conversation.';

/** The sections the summary is asked for; the prompt names them too, so a live model writes them. */
export const SUMMARY_SECTIONS = ['Task', 'Progress', 'Not Executed', 'Next Steps'] as const;

/** Longest rendering of one rejected call's arguments in the prompt. */
const MAX_ARGUMENT_CHARS = 200;

// ---------------------------------------------------------------------------------------------------
// The seed's state machine, reduced to what a replay exercises. Idle / LlmRequesting / ToolExecuting
// collapse into Working (the replay drives requests and tools); UserCancel never happens (nobody is
// there to cancel). A new conversation is a new machine in its initial state, not a transition.
// ---------------------------------------------------------------------------------------------------

export type ExhaustionBehavior = 'ThresholdBasedContinuation' | 'IntentionallyUnhandled';

export type ConversationState =
  | { readonly name: 'Working'; readonly warned: boolean }
  | { readonly name: 'AwaitingContinuation'; readonly rejectedCalls: readonly ToolCall[] }
  | { readonly name: 'ContextExhausted'; readonly summary: string; readonly fallback: boolean }
  /** A sub-agent's terminal state: ErrorKind::ContextExhausted. */
  | { readonly name: 'Failed'; readonly error: 'ContextExhausted' };

export type ConversationEvent =
  | { readonly type: 'LlmResponse'; readonly usedFraction: number; readonly manual: boolean; readonly toolCalls: readonly ToolCall[] }
  | { readonly type: 'ContinuationResponse'; readonly summary: string }
  | { readonly type: 'ContinuationFailed'; readonly error: string }
  | { readonly type: 'UserMessage' };

export type Effect =
  | { readonly kind: 'Warn' }
  | { readonly kind: 'RequestContinuation'; readonly rejectedCalls: readonly ToolCall[] }
  | { readonly kind: 'NotifyContextExhausted'; readonly summary: string }
  | { readonly kind: 'Reject'; readonly error: string };

export interface MachineSettings {
  readonly continuationThreshold: number;
  readonly warningThreshold: number;
  readonly behavior: ExhaustionBehavior;
}

export interface Transition {
  readonly state: ConversationState;
  readonly effects: readonly Effect[];
}

export const INITIAL_STATE: ConversationState = Object.freeze({ name: 'Working', warned: false });

/** The seed's transition table (plus the 80% warning). Pure: no I/O, effects are returned. */
export function transition(state: ConversationState, event: ConversationEvent, settings: MachineSettings): Transition {
  const unchanged: Transition = { state, effects: [] };
  switch (state.name) {
    case 'Working': {
      if (event.type !== 'LlmResponse') return unchanged;
      const warn = !state.warned && event.usedFraction >= settings.warningThreshold;
      const effects: Effect[] = warn ? [{ kind: 'Warn' }] : [];
      const triggered = event.manual || event.usedFraction >= settings.continuationThreshold;
      if (!triggered) return { state: warn ? { name: 'Working', warned: true } : state, effects };
      if (settings.behavior === 'IntentionallyUnhandled') return { state: { name: 'Failed', error: 'ContextExhausted' }, effects };
      const rejectedCalls = event.toolCalls;
      return { state: { name: 'AwaitingContinuation', rejectedCalls }, effects: [...effects, { kind: 'RequestContinuation', rejectedCalls }] };
    }
    case 'AwaitingContinuation': {
      if (event.type !== 'ContinuationResponse' && event.type !== 'ContinuationFailed') return unchanged;
      const fallback = event.type === 'ContinuationFailed';
      const summary = fallback ? FALLBACK_SUMMARY : event.summary;
      return { state: { name: 'ContextExhausted', summary, fallback }, effects: [{ kind: 'NotifyContextExhausted', summary }] };
    }
    case 'ContextExhausted':
      return event.type === 'UserMessage' ? { state, effects: [{ kind: 'Reject', error: 'context exhausted' }] } : unchanged;
    case 'Failed':
      return unchanged;
  }
}

// ---------------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------------

/** The summary request's instruction: the seed's prompt, the sections, and the rejected calls. */
export function continuationInstruction(rejected: readonly ToolCall[]): string {
  const lines = [CONTINUATION_PROMPT, `Use these sections: ${SUMMARY_SECTIONS.join(', ')}.`];
  if (rejected.length > 0) {
    lines.push(
      'The last response requested these tool calls; they were NOT executed because the context is full (list them under Not Executed):',
      ...rejected.map((c) => `- ${c.name} ${c.arguments.length > MAX_ARGUMENT_CHARS ? `${c.arguments.slice(0, MAX_ARGUMENT_CHARS)}...` : c.arguments}`),
    );
  }
  return lines.join('\n');
}

/** The first message of a conversation seeded from an exhausted one (linked by its number). */
export function seedText(parentConversation: number, summary: string): string {
  return `[This conversation continues conversation ${parentConversation}, whose context window was exhausted. Its continuation summary follows.]\n\n${summary}`;
}

/**
 * The triggering response as it is persisted (seed: "preserves what LLM said"): its text without the
 * rejected calls, same id; nothing when it was only calls. Keeps the summary request well-paired.
 */
export function withoutToolCalls(response: AssistantMessage): AssistantMessage[] {
  if (response.toolCalls.length === 0) return [response];
  if (response.content.trim() === '') return [];
  return [assistantMessage({ id: response.id, content: response.content, origin: strategyOrigin(NAME, 'tools-rejected') })];
}

/** Input + output tokens of the response (seed check_continuation_threshold); local counts when unreported. */
function responseTokens(input: ResponseInput): { used: number; estimated: boolean } {
  const { usage, counter } = input;
  const prompt = usage.promptTokens ?? counter.countContext(input.sent);
  const output = usage.completionTokens ?? counter.countMessage(input.response) - PER_MESSAGE_TOKENS;
  return { used: prompt + output, estimated: usage.promptTokens === undefined || usage.completionTokens === undefined };
}

const percent = (fraction: number): string => `${Math.round(fraction * 100)}%`;

// ---------------------------------------------------------------------------------------------------
// The strategy
// ---------------------------------------------------------------------------------------------------

export const continuationStrategy = defineStrategy({
  name: NAME,
  seed: '001',
  summary: 'Seed 001: at 90% (input + output of a response) reject its tool calls, summarize, and continue in a new conversation seeded with the summary.',
  params: {
    continuationThreshold: { kind: 'fraction', default: 0.9, description: 'Start the continuation flow when a response\'s input + output tokens reach this share of the window.' },
    warningThreshold: { kind: 'fraction', default: 0.8, description: 'Record a `warned` event (once per conversation) at this share of the window.' },
    manualTriggerAtStep: {
      kind: 'integer',
      default: 'unlimited',
      min: 0,
      unlimited: true,
      description: 'Run the continuation flow after the response of this step (0-based), as a user\'s manual trigger; "unlimited" (or "none") = never.',
    },
    subAgent: { kind: 'boolean', default: false, description: 'Sub-agent mode (IntentionallyUnhandled): stop with ContextExhausted instead of summarizing.' },
    seedNewConversation: {
      kind: 'boolean',
      default: true,
      description: 'Go on in a new conversation seeded with the summary; false stops the run at the next request (the exhausted conversation rejects it).',
    },
  },
  checkParams: checkBelow('warningThreshold', 'continuationThreshold'),
  thresholds: (p) => [
    { label: 'warning', fraction: p.warningThreshold },
    { label: 'continuation', fraction: p.continuationThreshold },
  ],
  create(p) {
    const settings: MachineSettings = {
      continuationThreshold: p.continuationThreshold,
      warningThreshold: p.warningThreshold,
      behavior: p.subAgent ? 'IntentionallyUnhandled' : 'ThresholdBasedContinuation',
    };
    let state: ConversationState = INITIAL_STATE;
    /** Where the current conversation was exhausted (seedNewConversation=false). */
    let exhaustedAt: { session: number; step: number } | undefined;
    /** Events decided after a response that changed nothing: they go out with the next request. */
    let pending: StrategyEvent[] = [];
    let warnedMissingUsage = false;

    const takePending = (): StrategyEvent[] => {
      const out = pending;
      pending = [];
      return out;
    };

    /** Summary request, then ContextExhausted; the new conversation (or the read-only one) as the plan. */
    const summarize = async (input: ResponseInput, rejected: readonly ToolCall[], trigger: string, used: number, events: StrategyEvent[]): Promise<ResponsePlan> => {
      const { step, session, counter } = input;
      const kept = withoutToolCalls(input.response);
      const instruction = userMessage({
        id: `${NAME}:prompt:${step}`,
        content: continuationInstruction(rejected),
        origin: strategyOrigin(NAME, 'continuation-prompt'),
      });
      let outcome: Transition;
      try {
        // Tool-less: plain messages ending on the instruction, no unanswered call (the sent context
        // was admitted, the response's calls are stripped).
        const answer = await input.llm({ messages: [...input.sent, ...kept, instruction], purpose: 'summary', expect: { sections: SUMMARY_SECTIONS } });
        outcome = transition(state, { type: 'ContinuationResponse', summary: answer.text }, settings);
      } catch (error) {
        if (!(error instanceof AuxiliaryCallError)) throw error;
        outcome = transition(state, { type: 'ContinuationFailed', error: error.message }, settings);
        events.push({ kind: 'warning', detail: `continuation summary unavailable (${error.reason}): using the seed's fallback summary` });
      }
      const exhausted = outcome.state;
      if (exhausted.name !== 'ContextExhausted') throw new Error(`continuation: bug: ${exhausted.name} after the summary request`);
      state = exhausted;
      const source = exhausted.fallback ? 'fallback' : 'LLM';

      if (!p.seedNewConversation) {
        exhaustedAt = { session, step };
        const stored = assistantMessage({ id: `${NAME}:summary:${step}`, content: exhausted.summary, origin: strategyOrigin(NAME, 'continuation') });
        events.push({ kind: 'continuation', messageId: stored.id, detail: `conversation ${session} exhausted (${trigger}), ${source} summary stored; it is read-only now`, tokensBefore: used, text: exhausted.summary });
        return { messages: [...input.sent, ...kept, stored], events };
      }
      const seed = userMessage({ id: `${NAME}:seed:${step}`, content: seedText(session, exhausted.summary), origin: strategyOrigin(NAME, 'continuation') });
      const messages: Message[] = input.systemPrompt ? [input.systemPrompt, seed] : [seed];
      events.push({
        kind: 'continuation',
        messageId: seed.id,
        detail: `conversation ${session + 1} continues conversation ${session} (${trigger}), seeded with the ${source} summary`,
        text: exhausted.summary,
        tokensBefore: used,
        tokensAfter: counter.countContext(messages),
      });
      state = INITIAL_STATE; // the new conversation's own machine
      return { messages, events, newSession: true };
    };

    return {
      beforeRequest(input: StrategyInput): RequestPlan {
        const events = takePending();
        // Every request carries the scenario's next message: an exhausted conversation rejects it.
        const rejection = transition(state, { type: 'UserMessage' }, settings).effects.find((e) => e.kind === 'Reject');
        if (rejection?.kind !== 'Reject' || !exhaustedAt) return { messages: input.messages, events };
        return {
          messages: input.messages,
          events,
          stop:
            `ContextExhausted: conversation ${exhaustedAt.session} was exhausted at step ${exhaustedAt.step} and rejects further messages ` +
            `(${rejection.error}); start a new conversation from its summary (seedNewConversation=true)`,
        };
      },

      async afterResponse(input: ResponseInput): Promise<ResponsePlan | undefined> {
        const { window, response } = input;
        const { used, estimated } = responseTokens(input);
        if (estimated && !warnedMissingUsage) {
          warnedMissingUsage = true;
          pending.push({ kind: 'warning', detail: 'the backend reported no usage for a response: using the local count' });
        }
        const manual = p.manualTriggerAtStep === input.step;
        const event: ConversationEvent = { type: 'LlmResponse', usedFraction: used / window, manual, toolCalls: response.toolCalls };
        const { state: next, effects } = transition(state, event, settings);
        state = next;
        for (const effect of effects) {
          if (effect.kind === 'Warn') {
            pending.push({ kind: 'warned', detail: `context at ${percent(used / window)} of the ${window}-token window after step ${input.step} (warning at ${percent(p.warningThreshold)})`, tokensBefore: used });
          }
        }
        const request = effects.find((e) => e.kind === 'RequestContinuation');
        // Nothing to change: a plan would drop the turn's results, so events wait for the next request
        // (a `warned` event is recorded at the step after the response that crossed the threshold).
        if (!request && state.name !== 'Failed') return undefined;

        const events = takePending();
        const trigger = manual ? 'manual trigger' : `${percent(used / window)} of the ${window}-token window`;
        const calls = response.toolCalls;
        if (calls.length > 0) {
          events.push({ kind: 'tools_rejected', messageId: response.id, detail: `not run (${trigger}): ${calls.map((c) => c.name).join(', ')}` });
        }
        if (request?.kind !== 'RequestContinuation') {
          return {
            messages: input.sent,
            events,
            stop: `ContextExhausted: sub-agent context exhausted (${trigger}; IntentionallyUnhandled: no continuation summary); the parent can spawn a replacement sub-agent`,
          };
        }
        return summarize(input, request.rejectedCalls, trigger, used, events);
      },
    };
  },
});
