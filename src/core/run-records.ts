/**
 * What a run produces: the records the store writes and the report reads. Plain data, no behaviour.
 */
import type { Encoding } from './tokens.js';
import type { Params } from './params.js';

/** How a run ended. Only `completed` means every recorded step was replayed as the strategy sent it. */
export type RunStatus =
  /** every step replayed */
  | 'completed'
  /**
   * every step replayed, but the provider counted far fewer prompt tokens than were sent from
   * failedStep on: it cut the prompts (Ollama past num_ctx), so the model never saw what the strategy sent
   */
  | 'truncated'
  /** a context exceeded the window: the provider would have refused it */
  | 'overflow'
  /** a context broke tool-call pairing: the provider would have refused it */
  | 'invalid_context'
  /** the strategy ended the run (e.g. max_restarts reached) */
  | 'stopped'
  /** something failed that is not the strategy's doing (backend error, bug) */
  | 'error';

/** Every RunStatus once, in the order tables list them (`satisfies` makes the compiler insist on each). */
export const RUN_STATUSES = Object.keys({ completed: 0, truncated: 0, overflow: 0, invalid_context: 0, stopped: 0, error: 0 } satisfies Record<RunStatus, 0>) as readonly RunStatus[];

/** How a replay treats a recorded turn whose strings the context lost (README "How a replay works"). */
export const REPLAY_MODES = ['forced', 'reactive'] as const;
export type ReplayMode = (typeof REPLAY_MODES)[number];

/** Caps that stop a strategy and the mock agent from re-reading in a loop; reaching one is a `reread_cap` event. */
export interface RereadCaps {
  /** Re-reads before one recorded turn (default 5). */
  readonly perTurn: number;
  /** Re-reads in a whole run (default 1,000). */
  readonly perRun: number;
}
export const DEFAULT_REREAD_CAPS: RereadCaps = Object.freeze({ perTurn: 5, perRun: 1000 });

/** A reactive replay's settings; a forced replay (teacher forcing, the default) has none. */
export interface ReactiveReplay {
  readonly mode: 'reactive';
  readonly caps: RereadCaps;
}

/** An outside strategy's file, as its runs are labelled: a changed source is a changed configuration. */
export interface StrategySource {
  /** The file, relative to the folder bench ran in, with `/` separators. */
  readonly file: string;
  /** The first 12 hex characters of the sha256 of its source. */
  readonly digest: string;
}

export interface RunConfig {
  readonly scenarioId: string;
  readonly scenarioTitle: string;
  readonly scenarioFile: string;
  readonly sourceFormat: string;
  /** A hash of the scenario's content (runner/fingerprint.ts), wherever its file lives: tells a baseline the task changed. */
  readonly scenarioDigest?: string | undefined;
  /** Recorded task outcome (resolved / unresolved / ...), when known. */
  readonly outcome?: string | undefined;
  /** What the user selected: a strategy name, or a preset name (see baseStrategy). */
  readonly strategy: string;
  /** The strategy implementation that ran: equal to `strategy` unless a preset was selected. */
  readonly baseStrategy: string;
  /** Where an outside strategy came from (`--strategy ./x.ts`); undefined for a built-in. */
  readonly strategySource?: StrategySource | undefined;
  readonly params: Params;
  /** A sweep's setting of the swept parameters ("softThreshold=0.6,carryoverTurns=3"), when one. */
  readonly variant?: string | undefined;
  readonly backend: string;
  /** The backend's own settings that shape results (the mock's recall and summary length). */
  readonly backendOptions: Params;
  readonly model: string;
  /** The context window the run used (the model's, or --window). */
  readonly window: number;
  readonly encoding: Encoding;
  /** The factor local counts were scaled by to match the provider's (token calibration), if any. */
  readonly calibrationFactor?: number | undefined;
  /** The tokens the calibration adds to every request, if any (0 or undefined: the factor alone). */
  readonly calibrationOverhead?: number | undefined;
  /**
   * The model whose prices the cost uses: --price-model, else a live backend's (its model; `local`,
   * LOCAL_PRICE_MODEL, for Ollama: $0), else the scenario's (the mock).
   */
  readonly priceModel: string;
  /** Thresholds of the strategy as fractions of the window, drawn on token curves. */
  readonly thresholds: readonly Threshold[];
  /** Reactive replay's settings; undefined: teacher forcing (`--replay forced`). */
  readonly replay?: ReactiveReplay | undefined;
}

export interface Threshold {
  readonly label: string;
  readonly fraction: number;
}

/** One LLM request. `purpose` is "agent" for replayed turns; later strategies add auxiliary ones. */
export interface StepRecord {
  readonly step: number;
  readonly session: number;
  readonly purpose: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** promptTokens / window. */
  readonly contextPct: number;
  readonly messageCount: number;
  /** Where promptTokens came from: the local tokenizer (mock) or the provider's usage. */
  readonly usageSource: 'local' | 'provider';
  /** The provider usage recorded with this turn in the scenario, when it has one. */
  readonly recordedPromptTokens?: number | undefined;
  /** What the strategy did before this request (comma-separated event kinds), or "" for nothing. */
  readonly action: string;
  /** True when a live backend's answer came from the record/replay cache (no request was made). */
  readonly cached?: boolean | undefined;
  /** The prompt tokens a live provider reported; undefined (NULL) when it reported none, or for the mock. */
  readonly providerPromptTokens?: number | undefined;
  /** Why the provider stopped answering (Ollama's done_reason, OpenAI's finish_reason), when it said. */
  readonly finishReason?: string | undefined;
}

export type EventKind =
  /** a tool output replaced by a placeholder (id kept) */
  | 'masked'
  /** tool results (with their calls) removed from the context */
  | 'removed'
  /** content moved to the offload store, a pointer left in its place */
  | 'offloaded'
  /** older messages replaced by an LLM or heuristic summary */
  | 'summarized'
  /** a checkpoint was asked for and parsed */
  | 'checkpoint'
  /** the conversation ended with a continuation summary */
  | 'continuation'
  /** tool calls of a response were rejected, not run (seed 001) */
  | 'tools_rejected'
  /** the context reached a warning threshold */
  | 'warned'
  | 'wind_down'
  | 'restart'
  /** an auxiliary request (summary, checkpoint) failed; the strategy took its fallback path */
  | 'aux_failed'
  | 'overflow'
  | 'pairing_violation'
  | 'stopped'
  /** the backend failed after its retries: the run ended with status `error` */
  | 'error'
  /** reactive replay: the agent re-read something the next recorded turn uses (runner/recovery.ts) */
  | 'reread'
  /** reactive replay: a re-read was not made because a cap was reached */
  | 'reread_cap'
  | 'warning';

export interface EventRecord {
  readonly step: number;
  readonly session: number;
  readonly kind: EventKind;
  /** The message the event concerns (masked output, inserted marker), when one. */
  readonly messageId?: string | undefined;
  /** The messages it acted on when there are several (removed, summarized, carried over), in order. */
  readonly messageIds?: readonly string[] | undefined;
  readonly detail: string;
  /** The text the strategy wrote (a summary, a checkpoint, a continuation seed), shown in the report's timeline. */
  readonly text?: string | undefined;
  readonly tokensBefore?: number | undefined;
  readonly tokensAfter?: number | undefined;
}

/** Percent errors of local token counts against the provider's: (local - recorded) / recorded. */
export interface PctErrors {
  /** Mean absolute percentage error. */
  readonly meanAbsPctError: number;
  /** Mean signed error: negative = local counts below the provider's. */
  readonly meanPctError: number;
}

/** Local token counts against the provider usage a scenario recorded (raw replays only). */
export interface UsageComparison extends PctErrors {
  readonly comparedSteps: number;
}

export interface RunSummary {
  readonly status: RunStatus;
  /** The step at which a failed run stopped; for a truncated run, the first truncated step. */
  readonly failedStep?: number | undefined;
  readonly failure?: string | undefined;
  /** Agent steps replayed (requests sent). */
  readonly steps: number;
  readonly totalSteps: number;
  readonly sessions: number;
  readonly restarts: number;
  /** Billed input: the prompt tokens of every request, auxiliary ones included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Requests sent: agent steps plus auxiliary calls (summaries, checkpoints). */
  readonly llmCalls: number;
  /** Prompt and completion tokens of auxiliary calls: the strategy's own cost. */
  readonly overheadTokens: number;
  readonly peakContextTokens: number;
  readonly peakContextPct: number;
  /** Mean prompt tokens / window over the agent requests sent. */
  readonly meanContextPct: number;
  /**
   * Prompt-cache hits in the billed input: on the mock, the tokens that repeat the previous request's
   * prefix in the same session (metrics/prompt-cache.ts); live, what the provider reported
   * (OpenAI's cached_tokens); undefined when it reported none (Ollama): unknown, never an estimate.
   */
  readonly cachedInputTokens?: number | undefined;
  /** Dollars at the price model's list prices (unknown cached input billed as fresh); undefined when its price is unknown. */
  readonly costUsd?: number | undefined;
  readonly probes: ProbeCounts;
  /** Recorded references still in the context when the recorded agent used them (design "Success"). */
  readonly referenceRecall?: { readonly present: number; readonly total: number } | undefined;
  readonly usageComparison?: UsageComparison | undefined;
  /** Reactive replay only: the re-reads the mock agent made and what its references came to. */
  readonly recovery?: RecoveryCounts | undefined;
}

/** The purpose of a reactive replay's re-read request: billed and counted, apart from the recorded turns and the helper calls. */
export const REREAD_PURPOSE = 'reread';

/** What forgetting cost a reactive replay (runner/recovery.ts). */
export interface RecoveryCounts {
  /** Requests the agent made to get back what the next recorded turn used (extra steps). */
  readonly rereads: number;
  /** Prompt tokens of those requests (part of the billed input). */
  readonly rereadInputTokens: number;
  /** References the context held only in a strategy's text (summary, checkpoint): trusted, not re-read. */
  readonly summaryReferences: number;
  /** References neither held nor recovered when their turn went ahead (no source, a failed re-read, a cap). */
  readonly lostReferences: number;
  /** Times a cap stopped a re-read. */
  readonly capHits: number;
}

export type ProbeOutcome = 'verbatim' | 'summary' | 'recoverable' | 'lost' | 'unreached';

export interface ProbeCounts {
  readonly total: number;
  readonly verbatim: number;
  readonly summary: number;
  readonly recoverable: number;
  /** Lost from the context, or never asked because the run failed before its step. */
  readonly lost: number;
  /**
   * Live runs that ask the model each probe question: answers that contained the expected fact.
   * Undefined when the probes were judged on the context only (the mock).
   */
  readonly answered?: number | undefined;
}

export interface ProbeRecord {
  readonly probeId: string;
  readonly step: number;
  readonly answer: string;
  /** How the answer was still reachable at that step; `unreached` when the run ended before it. */
  readonly how: ProbeOutcome;
  /** The offload-store file that holds it, when recoverable. */
  readonly file?: string | undefined;
  /** What the model answered to the probe question, when it was asked (live runs); "" when it did not fit. */
  readonly reply?: string | undefined;
  /** Whether the reply held the expected fact; undefined when the question was not asked. */
  readonly answered?: boolean | undefined;
}

export interface RunResult {
  readonly runId: string;
  readonly batchId: string;
  /** Position in the matrix it ran in (scenario-major), set by the matrix: the order runs are listed in. */
  readonly matrixIndex?: number | undefined;
  readonly config: RunConfig;
  readonly summary: RunSummary;
  readonly steps: readonly StepRecord[];
  readonly events: readonly EventRecord[];
  readonly probes: readonly ProbeRecord[];
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

/** One `bench run` invocation. */
export interface BatchInfo {
  readonly batchId: string;
  readonly createdAt: Date;
  readonly command: string;
  readonly version: string;
  /** The matrix fingerprint (runner/fingerprint.ts), when known. */
  readonly fingerprint?: string | undefined;
  /** The ctxbench commit that ran it, when run from a git checkout ("-dirty" when it had local changes). */
  readonly gitSha?: string | undefined;
}

/** Where a batch's calibration of a model came from: fitted on its scenarios, built in, or a --calibration file. */
export type CalibrationSource = 'fitted' | 'built-in' | 'file';

/** The token calibration a batch counted one model's tokens with (metrics/calibration.ts). */
export interface CalibrationRecord {
  readonly batchId: string;
  /** The model as the registry resolves it. */
  readonly model: string;
  readonly encoding: string;
  readonly factor: number;
  /** Tokens added to every request (0: the factor alone). */
  readonly overhead: number;
  readonly source: CalibrationSource;
  /** Recorded requests, and their scenarios, the errors are over: fitted on them, or (stored) checked on them; 0 when none. */
  readonly samples: number;
  readonly scenarios: number;
  /** Errors of the uncalibrated and calibrated counts on those requests (in sample when fitted); undefined without any. */
  readonly before?: PctErrors | undefined;
  readonly after?: PctErrors | undefined;
  /** Fitted: the errors out of sample (each scenario's requests estimated by a fit on other scenarios). */
  readonly outOfSample?: PctErrors | undefined;
}
