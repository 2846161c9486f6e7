/**
 * The backend interface every LLM backend implements (mock now; ollama and openai at the edge later).
 */
import type { AssistantMessage, Message } from '../core/messages.js';

export interface ChatRequest {
  readonly messages: readonly Message[];
  /** "agent" for replayed turns; auxiliary calls (summaries, checkpoints) name their purpose. */
  readonly purpose: string;
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
}

export interface Backend {
  /** Provider string as users write it: "mock", later "ollama:chat:<model>", "openai:chat:<model>". */
  readonly name: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
}
