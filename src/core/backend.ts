/**
 * The backend interface: what the runner sends to a model and what comes back. The mock and the live
 * clients (src/llm) implement it; strategies see it only through their auxiliary calls.
 */
import type { AssistantMessage, Message } from './messages.js';
import type { Params } from './params.js';
import type { ToolDefinition } from './tools.js';

export interface ChatRequest {
  /** As sent: a replay appends to its history array after the call, so keep a copy to hold it. */
  readonly messages: readonly Message[];
  /** "agent" for replayed turns; auxiliary calls (summaries, checkpoints) name their purpose. */
  readonly purpose: string;
  /**
   * The tool definitions the request declares (the scenario's; tools.ts sendsTools says which requests
   * send them). Live backends send them; without them they declare the tools the context names.
   */
  readonly tools?: readonly ToolDefinition[] | undefined;
  /** The recorded turn at this step: the mock replays it; live backends ignore it. */
  readonly recorded?: AssistantMessage | undefined;
  /**
   * The shape of text an auxiliary request asks for (its prompt says the same in words). The mock
   * writes it; live backends ignore it and follow the prompt.
   */
  readonly expect?: ExpectedAnswer | undefined;
  /** Live backends: the context window to ask for (Ollama's num_ctx, which it would otherwise
   * default small and silently truncate to). The mock ignores it. */
  readonly window?: number | undefined;
  /** Live backends: the most tokens to generate (1 in `--live measure`); undefined = no limit. */
  readonly maxOutputTokens?: number | undefined;
}

export interface ExpectedAnswer {
  /** Section headings of the template, in order (e.g. seed 003's Goal, Completed Work, ...). */
  readonly sections: readonly string[];
  /** A tag to wrap the answer in, e.g. "checkpoint" for `<checkpoint>...</checkpoint>`. */
  readonly wrap?: string | undefined;
}

export interface Usage {
  /** Undefined when the provider did not report it (never 0 for "unknown"). */
  readonly promptTokens?: number | undefined;
  readonly completionTokens?: number | undefined;
  /**
   * The part of promptTokens the provider served from its prompt cache (OpenAI's
   * prompt_tokens_details.cached_tokens); undefined when it reports none (Ollama).
   */
  readonly cachedTokens?: number | undefined;
}

/** A usage field a provider (or a cache entry) sent that is not a token count: dropped, never used. */
export interface InvalidUsage {
  /** The field as the provider names it: "usage.prompt_tokens", "prompt_eval_count". */
  readonly field: string;
  /** What is wrong with it, value included: "-190 is not a token count (...)". */
  readonly problem: string;
}

export interface ChatResponse {
  readonly message: AssistantMessage;
  readonly usage: Usage;
  /** Where the usage numbers come from. */
  readonly usageSource: 'local' | 'provider';
  /** Why the provider stopped (Ollama's done_reason, OpenAI's finish_reason: "stop", "length"...). */
  readonly finishReason?: string | undefined;
  /** True when the answer was replayed from the record/replay cache (llm/cache.ts), not asked for. */
  readonly cached?: boolean | undefined;
  /** Usage fields that were sent but were no token count (llm/usage.ts): left out of `usage`. */
  readonly invalidUsage?: readonly InvalidUsage[] | undefined;
}

export interface Backend {
  /** Provider string as users write it: "mock", later "ollama:chat:<model>", "openai:chat:<model>". */
  readonly name: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
}

/** A backend and the settings that shape its answers (stored with each run as backendOptions). */
export interface ConfiguredBackend extends Backend {
  readonly options: Params;
}

/** A backend that talks to a server. */
export interface LiveBackend extends ConfiguredBackend {
  /** The server's URL as printed in messages and stored (no credentials). */
  readonly url: string;
  readonly model: string;
  /**
   * Whose list prices a run on it costs (unless --price-model says otherwise): the served model, or
   * LOCAL_PRICE_MODEL for a model that runs on the user's own machine (Ollama): $0.
   */
  readonly priceModel: string;
  /**
   * One cheap request, no retries, before the first request of a run: throws the BackendError the
   * runs would end with when the server is down, lacks the model or refuses the key, so the CLI can
   * stop with one line at the start.
   */
  preflight(): Promise<ServerInfo>;
}

export interface ServerInfo {
  /** The model's context length (Ollama's /api/show; an OpenAI-compatible server's model list), when the server says. */
  readonly contextLength?: number | undefined;
}
