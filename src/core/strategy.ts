/**
 * The strategy contract (design "Strategy contract"), the same for the built-in strategies and for
 * outside ones: `defineStrategy` with typed parameters, and the hooks a run calls.
 *
 * A strategy sees the session's messages (what it sent last time plus the recorded turn and results
 * appended since) and returns the messages to send. It never edits a message in place: it drops,
 * replaces (same id, new origin) or inserts, and it only cuts where core/cut-points.ts allows.
 */
import { CtxbenchError } from './errors.js';
import type { AssistantMessage, Message, SystemMessage } from './messages.js';
import type { TokenCounter } from './tokens.js';
import type { ExpectedAnswer, Usage } from './backend.js';
import type { OffloadStore } from './offload-store.js';
import type { EventRecord, Threshold } from './run-records.js';
import { parseAssignment, resolveParams, specProblem, type Params, type ParamSpecs, type ParamsOf } from './params.js';

export interface LastRequest {
  /** Prompt tokens the backend reported for the previous request; undefined if it reported none. */
  readonly promptTokens?: number | undefined;
  /** How many of `messages` were in that request: the rest were appended since. */
  readonly sentCount: number;
}

export interface StrategyInput {
  /**
   * The session's messages: the last context sent plus everything appended since. When that context
   * was this same array, the runner appended to it in place (a shared append-only history, not a copy
   * per step): its first messages never change, but a strategy that keeps it across steps and needs
   * its length then must keep that length (or a slice). Never change it in place (return a new array
   * with the edits): counts and checks take what they saw of it as unchanged (append-only.ts).
   */
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

/**
 * A strategy as the runner, the registry and `bench strategies` see it. `P` is the type of its
 * parameter values; the registry holds definitions as `StrategyDefinition` (any parameters).
 */
export interface StrategyDefinition<P extends Params = Params> {
  readonly name: string;
  readonly summary: string;
  /** The seed document it implements, when it has one. */
  readonly seed?: string | undefined;
  /** Its parameters, keyed by name, each with its default, range and description. */
  readonly params: ParamSpecs;
  /** Cross-parameter checks; returns a message naming the parameters, or undefined when valid. */
  checkParams?(params: P): string | undefined;
  /** Its thresholds as fractions of the window, for token curves. */
  thresholds(params: P): Threshold[];
  /** One run's instance: called once per run, with every parameter present and in range. */
  create(params: P): StrategyRun;
}

/** The parameter values a defined strategy's hooks receive: `StrategyParams<typeof maskingStrategy>`. */
export type StrategyParams<D> = D extends StrategyDefinition<infer P> ? P : never;

/** What `defineStrategy` takes: a definition whose hooks receive the values of `params`, typed. */
export interface StrategySpec<S extends ParamSpecs> {
  readonly name: string;
  /** One line for `bench strategies`: what it does, with its main thresholds. */
  readonly summary: string;
  readonly seed?: string | undefined;
  /** Default: none. */
  readonly params?: S;
  checkParams?(params: ParamsOf<S>): string | undefined;
  /** Default: no thresholds drawn. */
  thresholds?(params: ParamsOf<S>): Threshold[];
  create(params: ParamsOf<S>): StrategyRun;
}

/**
 * Defines a strategy. The parameter specs give the type of the values every hook receives (a
 * `choice` of 'a' | 'b' arrives as 'a' | 'b', an `integer` with `unlimited` as number | 'unlimited'),
 * and are checked here once: a default outside its own range is a bug in the definition.
 */
export function defineStrategy<const S extends ParamSpecs = Record<never, never>>(spec: StrategySpec<S>): StrategyDefinition<ParamsOf<S>> {
  // What the types promise, checked for a definition written in plain JS: it fails here, named, not
  // at its first run.
  if (typeof spec !== 'object' || spec === null) throw new CtxbenchError('STRATEGY_INVALID', 'defineStrategy: expected a strategy ({ name, summary, params, create })');
  if (typeof spec.name !== 'string' || !/^[A-Za-z][\w-]*$/.test(spec.name)) {
    throw new CtxbenchError('STRATEGY_INVALID', `defineStrategy: name ${JSON.stringify(spec.name)} must start with a letter and hold only letters, digits, _ and -`);
  }
  if (typeof spec.create !== 'function') throw new CtxbenchError('STRATEGY_INVALID', `strategy ${spec.name}: create must be a function (params) => { beforeRequest, afterResponse? }`);
  const params: ParamSpecs = spec.params ?? {};
  for (const [name, param] of Object.entries(params)) {
    const problem = specProblem(name, param);
    if (problem !== undefined) throw new CtxbenchError('STRATEGY_INVALID', `strategy ${spec.name}: parameter ${problem}`);
  }
  return Object.freeze({ ...spec, params: Object.freeze({ ...params }), thresholds: spec.thresholds ?? noThresholds });
}

const noThresholds = (): Threshold[] => [];

/**
 * `strategy`'s parameters: its defaults with `assignments` (`--param` style, `keepLast=5`) on top,
 * each checked against its spec and the strategy's cross-parameter checks, typed as its hooks take them.
 */
export function resolveStrategyParams<P extends Params>(strategy: StrategyDefinition<P>, assignments: readonly string[] = []): P {
  // resolveParams checked every value against its spec: they are the strategy's P.
  return resolveParams([strategy], assignments.map(parseAssignment)).get(strategy.name) as P;
}
