/**
 * The strategy contract every strategy implements (design "Strategy contract").
 *
 * A strategy sees the session's messages (what it sent last time plus the recorded turn and results
 * appended since) and returns the messages to send. It never edits a message in place: it drops,
 * replaces (same id, new origin) or inserts, and it only cuts where core/boundaries.ts allows.
 */
import type { Message, SystemMessage } from '../core/messages.js';
import type { TokenCounter } from '../core/tokens.js';
import type { EventRecord, Params, Threshold } from '../runner/types.js';
import type { ParamSpec } from './params.js';

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
