/**
 * The strategy contract every strategy implements (design "Strategy contract").
 *
 * A strategy sees the session's messages (what it sent last time plus the recorded turn and results
 * appended since) and returns the messages to send. It never edits a message in place: it drops,
 * replaces (same id, new origin) or inserts, and it only cuts where core/boundaries.ts allows.
 */
import type { AssistantMessage, Message, SystemMessage } from './messages.js';
import type { TokenCounter } from './tokens.js';
import type { ExpectedAnswer, Usage } from './backend.js';
import type { OffloadStore } from './offload-store.js';
import type { EventRecord, Threshold } from './run-records.js';
import type { Params, ParamSpec } from './params.js';

export interface LastRequest {
  /** Prompt tokens the backend reported for the previous request; undefined if it reported none. */
  readonly promptTokens?: number | undefined;
  /** How many of `messages` were in that request: the rest were appended since. */
  readonly sentCount: number;
}

export interface StrategyInput {
  /** The session's messages: the last context sent plus everything appended since. */
  readonly messages: readonly Message[];
  /** 0-based index of the agent request about to be sent. */
  readonly step: number;
  /** 1-based session number. */
  readonly session: number;
  /** Agent requests sent in this session so far. */
  readonly sessionSteps: number;
  readonly window: number;
  readonly counter: TokenCounter;
  /** The previous request of this session, if there was one. */
  readonly last?: LastRequest | undefined;
  /** The scenario's system prompt, which a new session re-reads (seed 000 Pitfall 5). */
  readonly systemPrompt?: SystemMessage | undefined;
  /** Index in `messages` where the recorded messages appended since the last request begin. */
  readonly appendedFrom: number;
  /** Auxiliary LLM calls (summaries, checkpoints): sent, counted and recorded by the runner. */
  readonly llm: AuxiliaryLlm;
  /** The run's offload store (large results, originals of what was summarized). */
  readonly files: OffloadStore;
}

export interface AuxiliaryRequest {
  readonly messages: readonly Message[];
  /** "summary", "checkpoint", ...: stored with the step, so its tokens count as overhead. */
  readonly purpose: string;
  /** The template the prompt asks for; the mock writes it. */
  readonly expect?: ExpectedAnswer | undefined;
}

export interface AuxiliaryResponse {
  readonly message: AssistantMessage;
  /** The answer's text (never empty: an empty answer is an AuxiliaryCallError). */
  readonly text: string;
  readonly usage: Usage;
}

export type AuxiliaryLlm = (request: AuxiliaryRequest) => Promise<AuxiliaryResponse>;

/**
 * An auxiliary call that produced no usable text. The strategy takes its seed's fallback path; the
 * runner has already recorded an `aux_failed` event.
 */
export class AuxiliaryCallError extends Error {
  constructor(
    readonly reason: 'overflow' | 'invalid_context' | 'backend' | 'tool_call' | 'empty',
    message: string,
  ) {
    super(message);
    this.name = 'AuxiliaryCallError';
  }
}

/** What a strategy sees after the backend answered, before the answer's tool calls run. */
export interface ResponseInput extends Omit<StrategyInput, 'last' | 'appendedFrom'> {
  /** The context that was sent. */
  readonly sent: readonly Message[];
  /** The assistant turn (recorded, under teacher forcing). */
  readonly response: AssistantMessage;
  readonly usage: Usage;
}

/**
 * A strategy's decision after a response. Undefined = carry on: the turn and its tool results are
 * appended. A plan replaces the session's messages instead: the turn's tool calls are NOT run and
 * its results never appended (seed 001 rejects them).
 */
export interface ResponsePlan {
  readonly messages: readonly Message[];
  readonly events?: readonly StrategyEvent[];
  readonly newSession?: boolean;
  readonly stop?: string;
}

/** An event as a strategy reports it; the runner adds step and session. */
export type StrategyEvent = Omit<EventRecord, 'step' | 'session'>;

export interface RequestPlan {
  /** The context to send; it also becomes the session's messages for the next step. */
  readonly messages: readonly Message[];
  readonly events?: readonly StrategyEvent[];
  /** True when `messages` starts a new session (restart, continuation). */
  readonly newSession?: boolean;
  /** Set when the strategy ends the run instead of sending (e.g. max_restarts reached). */
  readonly stop?: string;
}

/** One run's instance of a strategy: may keep state between steps, never shared between runs. */
export interface StrategyRun {
  beforeRequest(input: StrategyInput): RequestPlan | Promise<RequestPlan>;
  afterResponse?(input: ResponseInput): ResponsePlan | undefined | Promise<ResponsePlan | undefined>;
}

export interface StrategyDefinition {
  readonly name: string;
  readonly summary: string;
  /** The seed document it implements, when it has one. */
  readonly seed?: string;
  readonly params: readonly ParamSpec[];
  /** Cross-parameter checks; returns a message naming the parameters, or undefined when valid. */
  readonly checkParams?: (params: Params) => string | undefined;
  /** Its thresholds as fractions of the window, for token curves. */
  thresholds(params: Params): Threshold[];
  create(params: Params): StrategyRun;
}
