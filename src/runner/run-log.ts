/**
 * What a replay records as it goes: every request it sent (or refused for overflow) as a step, and
 * every event, each at the step and session the replay is at; the prompt-cache hits providers
 * reported; and how a run ends early (RunEnded, recorded as the run's last event).
 */
import type { ChatResponse, InvalidUsage, Usage } from '../core/backend.js';
import { PROBE_PURPOSE } from '../core/probe-question.js';
import type { EventRecord, RunStatus, StepRecord } from '../core/run-records.js';
import type { StrategyEvent } from '../core/strategy.js';
import { PER_MESSAGE_TOKENS, type TokenCounter } from '../core/tokens.js';

/** Thrown inside the replay to end the run at a step; carries how it ended. */
export class RunEnded extends Error {
  constructor(
    readonly status: RunStatus,
    readonly failure: string,
  ) {
    super(failure);
  }
}

/** A request as a step records it. */
export interface StepEntry {
  readonly purpose: string;
  readonly promptTokens: number;
  readonly usage: Usage | undefined;
  readonly messageCount: number;
  readonly source: 'local' | 'provider';
  /** The kinds of the events the strategy reported for the request, comma-separated. */
  readonly action: string;
  /** The prompt size the recorded agent was billed for this step, when it recorded one. */
  readonly recordedPrompt?: number | undefined;
  readonly response?: ChatResponse | undefined;
}

/** A request the backend answered; its usage is worked out from the response (see RunLog.answered). */
export type AnsweredEntry = Omit<StepEntry, 'promptTokens' | 'usage' | 'source'> & {
  /** The runner's own count of the request. */
  readonly localTokens: number;
  readonly response: ChatResponse;
};

export class RunLog {
  readonly steps: StepRecord[] = [];
  readonly events: EventRecord[] = [];
  /** The agent step the replay is at, from 0. */
  step = 0;
  /** The session the replay is in, from 1: a restart or a continuation starts the next. */
  session = 1;
  /** A provider (a live backend) answered some request: the run's cached input is then only what providers reported. */
  providerAnswered = false;
  /** Prompt tokens providers reported serving from their prompt cache, over the billed requests; undefined while none reported any. */
  providerCachedTokens: number | undefined;
  /** Usage fields already warned about: one warning per field and run. */
  private readonly invalidFields = new Set<string>();

  constructor(
    private readonly window: number,
    private readonly counter: TokenCounter,
  ) {}

  /** Records the strategy's events at the current step and session. */
  record(list: readonly StrategyEvent[]): void {
    for (const e of list) this.events.push({ ...e, step: this.step, session: this.session });
  }

  /** Records a request at the current step. */
  addStep({ purpose, promptTokens, usage, messageCount, source, action, recordedPrompt, response }: StepEntry): void {
    this.steps.push({
      step: this.step,
      session: this.session,
      purpose,
      promptTokens,
      completionTokens: usage?.completionTokens ?? 0,
      contextPct: promptTokens / this.window,
      messageCount,
      usageSource: source,
      recordedPromptTokens: recordedPrompt,
      action,
      // A live answer is either from the cache or not; the mock has no cache to speak of.
      cached: response?.cached ?? (response?.usageSource === 'provider' ? false : undefined),
      providerPromptTokens: response?.usageSource === 'provider' ? response.usage.promptTokens : undefined,
      finishReason: response?.finishReason,
    });
  }

  /**
   * Records a request the backend answered, with the usage the step records: a provider's numbers as
   * reported (a missing prompt count falls back to the local count, stored as local; a missing
   * completion count to the local count of the reply, never 0), else the runner's own count, so a
   * calibrated counter applies to it too. Warns about usage fields the provider sent that were no
   * count. Returns that usage.
   */
  answered({ localTokens, response, purpose, messageCount, action, recordedPrompt }: AnsweredEntry): Usage {
    const usage = this.usageOf(response, localTokens);
    const source = usage.promptTokens === undefined ? 'local' : response.usageSource;
    if (response.invalidUsage) this.warnInvalid(response.invalidUsage);
    if (response.usageSource !== 'local') this.addProviderCached(purpose, usage.cachedTokens);
    // Fields named, not spread: a step's record is built once per request (a rest copy cost more).
    this.addStep({ purpose, messageCount, action, recordedPrompt, promptTokens: usage.promptTokens ?? localTokens, usage, source, response });
    return usage;
  }

  /** The usage a step of `response` records (see `answered`), without recording it. */
  usageOf(response: ChatResponse, localTokens: number): Usage {
    const reply = (): number => this.counter.countMessage(response.message) - PER_MESSAGE_TOKENS;
    if (response.usageSource === 'local') return { promptTokens: localTokens, completionTokens: reply() };
    return response.usage.completionTokens === undefined ? { ...response.usage, completionTokens: reply() } : response.usage;
  }

  /** Probe questions are the benchmark's, not billed: their cache hits are not the run's. */
  private addProviderCached(purpose: string, cached: number | undefined): void {
    this.providerAnswered = true;
    if (purpose !== PROBE_PURPOSE && cached !== undefined) this.providerCachedTokens = (this.providerCachedTokens ?? 0) + cached;
  }

  private warnInvalid(invalid: readonly InvalidUsage[]): void {
    for (const { field, problem } of invalid) {
      if (this.invalidFields.has(field)) continue;
      this.invalidFields.add(field);
      this.record([{ kind: 'warning', detail: `${field} = ${problem}: ignored, stored as unknown (NULL)` }]);
    }
  }

  /** Records how the run ended early, as its last event. */
  end({ status, failure }: RunEnded): void {
    const kind = status === 'overflow' ? 'overflow' : status === 'invalid_context' ? 'pairing_violation' : status === 'error' ? 'error' : 'stopped';
    this.record([{ kind, detail: failure, tokensBefore: kind === 'overflow' ? this.steps.at(-1)?.promptTokens : undefined }]);
  }
}
