/**
 * Replays one scenario through one strategy (design DEFINITION "Replay semantics").
 *
 * Teacher forcing: at each step the strategy builds the context, the backend answers, and the
 * RECORDED assistant turn and its results are appended, whatever the backend said. A context that
 * exceeds the window or breaks tool-call pairing fails the run at that step, as a provider would.
 * Auxiliary calls (summaries, checkpoints) go through the same backend and the same checks; their
 * tokens are billed and counted as overhead.
 */
import type { Message } from '../core/messages.js';
import { createPairingGuard, describeViolations } from '../core/pairing.js';
import { PER_MESSAGE_TOKENS, type TokenCounter } from '../core/tokens.js';
import type { Backend, ChatResponse, Usage } from '../core/backend.js';
import { prelude, turns, type Scenario } from '../scenarios/scenario.js';
import { createOffloadStore } from '../core/offload-store.js';
import {
  AuxiliaryCallError,
  type AuxiliaryLlm,
  type LastRequest,
  type StrategyDefinition,
  type StrategyEvent,
} from '../core/strategy.js';
import { suspectTruncation } from '../llm/truncation.js';
import { costUsd, priceFor } from '../metrics/cost.js';
import { PROBE_MAX_OUTPUT_TOKENS, PROBE_PURPOSE, probeRequest, replyHolds } from '../core/probe-question.js';
import { judgeProbe } from '../metrics/probe-verdict.js';
import { sharedPrefixTokens } from '../metrics/prompt-cache.js';
import { presentInContext, referenceTargets } from '../metrics/reference-recall.js';
import { runId, runLabel } from '../core/run-names.js';
import { compareUsage } from './usage-comparison.js';
import type { EventRecord, ProbeRecord, RunConfig, RunResult, RunStatus, StepRecord } from '../core/run-records.js';
import type { Params } from '../core/params.js';

export interface ReplayOptions {
  readonly scenario: Scenario;
  readonly sourceFormat: string;
  readonly strategy: StrategyDefinition;
  /** The name the user selected, when it is a preset of `strategy`. */
  readonly preset?: string | undefined;
  /** A sweep's parameter setting ("softThreshold=0.6,carryoverTurns=3"): tells apart the run ids of one strategy's settings. */
  readonly variant?: string | undefined;
  readonly params: Params;
  readonly backend: Backend;
  /** The backend settings that shape results (stored with the run). */
  readonly backendOptions?: Params;
  /** Counts tokens; already scaled when the run is calibrated (see calibrationFactor). */
  readonly counter: TokenCounter;
  /** The token calibration factor `counter` applies, recorded with the run. */
  readonly calibrationFactor?: number | undefined;
  readonly model: string;
  /** Whose prices the cost uses (default: `model`). */
  readonly priceModel?: string | undefined;
  readonly window: number;
  /** Live `measure` mode: ask for this many output tokens on agent steps (the recorded turn is used anyway). */
  readonly maxOutputTokens?: number | undefined;
  /**
   * Ask the backend each probe question at its step and pass the probe when the answer holds the fact
   * (live runs); otherwise a probe is judged on the context alone.
   */
  readonly askProbes?: boolean | undefined;
  readonly batchId: string;
  /** Called after every step (progress bars). */
  readonly onStep?: (step: number, total: number, promptTokens: number) => void;
}

/** Reference targets depend on the scenario only: computed once, shared by every strategy's run. */
const referenceCache = new WeakMap<Scenario, ReturnType<typeof referenceTargets>>();
function targetsOf(scenario: Scenario): ReturnType<typeof referenceTargets> {
  let targets = referenceCache.get(scenario);
  if (!targets) referenceCache.set(scenario, (targets = referenceTargets(scenario)));
  return targets;
}



/** Thrown inside the loop to end the run at a step; carries how it ended. */
class RunEnded extends Error {
  constructor(
    readonly status: RunStatus,
    readonly failure: string,
  ) {
    super(failure);
  }
}

export async function replayScenario(options: ReplayOptions): Promise<RunResult> {
  const { scenario, strategy, params, backend, counter, window } = options;
  const startedAt = new Date();
  const label = options.preset ?? strategy.name;
  const config: RunConfig = {
    scenarioId: scenario.id,
    scenarioTitle: scenario.title,
    scenarioFile: scenario.file,
    sourceFormat: options.sourceFormat,
    outcome: scenario.outcome,
    strategy: label,
    baseStrategy: strategy.name,
    params,
    variant: options.variant,
    backend: backend.name,
    backendOptions: options.backendOptions ?? {},
    model: options.model,
    window,
    encoding: counter.encoding,
    calibrationFactor: options.calibrationFactor,
    priceModel: options.priceModel ?? options.model,
    thresholds: strategy.thresholds(params),
  };
  const recorded = turns(scenario);
  const first = prelude(scenario);
  const systemPrompt = first[0]?.role === 'system' ? first[0] : undefined;
  const run = strategy.create(params);
  const files = createOffloadStore();
  const steps: StepRecord[] = [];
  const events: EventRecord[] = [];
  const exactSteps = new Set<number>(); // steps that sent the recorded history unchanged
  let exact = true; // the session's messages are still the recorded history, untouched
  const targets = targetsOf(scenario);
  const scenarioIds = new Set(scenario.messages.map((m) => m.id));
  const probesAt = new Map<number, (typeof scenario.probes)[number][]>(); // by step: no scan of every probe at every step
  for (const probe of scenario.probes) probesAt.set(probe.step, [...(probesAt.get(probe.step) ?? []), probe]);
  const probes: ProbeRecord[] = [];
  const reference = { present: 0, total: 0 };
  let cachedInputTokens = 0;
  let previousContext: readonly Message[] | undefined; // the last agent request of this session
  let warnedNoUsage = false;
  const checkPairing = createPairingGuard(); // consecutive contexts: checked in time linear in what changed

  let messages: readonly Message[] = first;
  let appendedFrom = 0;
  let last: LastRequest | undefined;
  let session = 1;
  let sessionSteps = 0;
  let step = 0;
  let status: RunStatus = 'completed';
  let failure: string | undefined;
  let failedStep: number | undefined;

  const record = (list: readonly StrategyEvent[]): void => {
    for (const e of list) events.push({ ...e, step, session });
  };
  const startSession = (): void => {
    session += 1;
    sessionSteps = 0;
    previousContext = undefined;
  };
  const addStep = (purpose: string, promptTokens: number, usage: Usage | undefined, messageCount: number, source: 'local' | 'provider', action: string, recordedPrompt?: number, response?: ChatResponse): void => {
    steps.push({
      step,
      session,
      purpose,
      promptTokens,
      completionTokens: usage?.completionTokens ?? 0,
      contextPct: promptTokens / window,
      messageCount,
      usageSource: source,
      recordedPromptTokens: recordedPrompt,
      action,
      // A live answer is either from the cache or not; the mock has no cache to speak of.
      cached: response?.cached ?? (response?.usageSource === 'provider' ? false : undefined),
      providerPromptTokens: response?.usageSource === 'provider' ? response.usage.promptTokens : undefined,
      finishReason: response?.finishReason,
    });
  };

  /**
   * The usage a step records. A provider's numbers are kept as reported (missing stays undefined);
   * "local" usage is the runner's own count, so a calibrated counter applies to it too.
   */
  const usageOf = (response: ChatResponse, localPrompt: number): Usage =>
    response.usageSource === 'local'
      ? { promptTokens: localPrompt, completionTokens: counter.countMessage(response.message) - PER_MESSAGE_TOKENS }
      : response.usage;

  /** Checks a context as the provider would; throws RunEnded (agent) or AuxiliaryCallError. */
  const admit = (context: readonly Message[], purpose: string, recordedPrefix = false): number => {
    // A prefix of the recorded history was validated when the scenario was loaded.
    const violations = recordedPrefix ? [] : checkPairing(context, { request: true });
    if (violations.length > 0) {
      const detail = `${purpose} request: ${describeViolations(violations)}`;
      if (purpose === 'agent') throw new RunEnded('invalid_context', detail);
      record([{ kind: 'pairing_violation', detail }]);
      throw new AuxiliaryCallError('invalid_context', detail);
    }
    return counter.countContext(context);
  };

  /**
   * Puts a probe's question to the backend on top of the context sent at its step. A question that no
   * longer fits the window goes unanswered; a backend failure ends the run like any other request's.
   */
  const askProbe = async (context: readonly Message[], probe: Scenario['probes'][number]): Promise<Pick<ProbeRecord, 'reply' | 'answered'>> => {
    const messages = probeRequest(context, probe.id, probe.question);
    const local = counter.countContext(messages);
    if (local > window) {
      record([{ kind: 'warning', detail: `probe ${probe.id}: the question does not fit the window (${local} tokens): counted as not answered` }]);
      return { reply: '', answered: false };
    }
    const response = await backend.complete({ messages, purpose: PROBE_PURPOSE, window, maxOutputTokens: PROBE_MAX_OUTPUT_TOKENS }).catch((error: unknown) => {
      throw new RunEnded('error', `${backend.name}: probe ${probe.id}: ${(error as Error).message}`);
    });
    const usage = usageOf(response, local);
    addStep(PROBE_PURPOSE, usage.promptTokens ?? local, usage, messages.length, usage.promptTokens === undefined ? 'local' : response.usageSource, '', undefined, response);
    const reply = response.message.content.trim();
    return { reply, answered: replyHolds(reply, probe.answer) };
  };

  const llm: AuxiliaryLlm = async (request) => {
    const fail = (reason: AuxiliaryCallError['reason'], detail: string): never => {
      record([{ kind: 'aux_failed', detail: `${request.purpose}: ${detail}` }]);
      throw new AuxiliaryCallError(reason, detail);
    };
    const local = admit(request.messages, request.purpose);
    if (local > window) fail('overflow', `context of ${local} tokens exceeds the ${window}-token window`);
    let response;
    try {
      response = await backend.complete({ messages: request.messages, purpose: request.purpose, expect: request.expect, window });
    } catch (error) {
      return fail('backend', (error as Error).message);
    }
    const usage = usageOf(response, local);
    addStep(request.purpose, usage.promptTokens ?? local, usage, request.messages.length, usage.promptTokens === undefined ? 'local' : response.usageSource, '', undefined, response);
    if (response.message.toolCalls.length > 0) fail('tool_call', 'answered with a tool call instead of text');
    const text = response.message.content.trim();
    if (text === '') fail('empty', 'answered with no text');
    return { message: response.message, text, usage };
  };

  try {
    for (const turn of recorded) {
      const plan = await run.beforeRequest({ messages, step, session, sessionSteps, window, counter, last, systemPrompt, appendedFrom, llm, files });
      if (plan.newSession) startSession();
      record(plan.events ?? []);
      if (plan.stop !== undefined) throw new RunEnded('stopped', plan.stop);
      const context = plan.messages;
      exact = exact && context === messages;
      const action = [...new Set((plan.events ?? []).map((e) => e.kind))].join(',');
      const localTokens = admit(context, 'agent', exact);
      if (localTokens > window) {
        addStep('agent', localTokens, undefined, context.length, 'local', action, turn.assistant.usage?.promptTokens);
        throw new RunEnded('overflow', `context of ${localTokens} tokens exceeds the ${window}-token window`);
      }
      for (const probe of probesAt.get(step) ?? []) {
        const verdict = judgeProbe(probe.answer, context, files, scenarioIds);
        const asked = options.askProbes ? await askProbe(context, probe) : {};
        probes.push({ probeId: probe.id, step, answer: probe.answer, how: verdict.how, file: verdict.file, ...asked });
      }
      const used = targets.get(step) ?? [];
      // The recorded history unchanged holds every target: each first appeared in a tool output before
      // this step (reference-recall.test.ts checks it on every bundled scenario). No search needed.
      reference.present += exact ? used.length : presentInContext(used, context);
      reference.total += used.length;
      cachedInputTokens += sharedPrefixTokens(previousContext, context, counter, localTokens);
      previousContext = context;
      const request = { messages: context, purpose: 'agent', recorded: turn.assistant, window, maxOutputTokens: options.maxOutputTokens };
      const response = await backend.complete(request).catch((error: unknown) => {
        // Retries are the backend's job: what reaches here ends this run, not the matrix.
        throw new RunEnded('error', `${backend.name}: ${(error as Error).message}`);
      });
      const usage = usageOf(response, localTokens);
      const source = usage.promptTokens === undefined ? 'local' : response.usageSource;
      if (usage.promptTokens === undefined && !warnedNoUsage) {
        warnedNoUsage = true;
        record([{ kind: 'warning', detail: `${backend.name} reported no usage: the local count is used (stored as local, never as 0)` }]);
      }
      addStep('agent', usage.promptTokens ?? localTokens, usage, context.length, source, action, turn.assistant.usage?.promptTokens, response);
      if (response.usageSource === 'provider' && suspectTruncation(localTokens, usage.promptTokens)) {
        // Ollama cuts the front of a prompt longer than num_ctx without an error: the only tell.
        record([{ kind: 'warning', detail: `suspected truncation: the provider counted ${usage.promptTokens} prompt tokens, the local estimate is ${localTokens}` }]);
      }
      if (exact) exactSteps.add(step);
      last = { promptTokens: usage.promptTokens, sentCount: context.length };
      sessionSteps += 1;

      const decision = await run.afterResponse?.({ messages: context, sent: context, response: turn.assistant, usage, step, session, sessionSteps, window, counter, systemPrompt, llm, files });
      if (decision) {
        record(decision.events ?? []);
        if (decision.stop !== undefined) throw new RunEnded('stopped', decision.stop);
        if (decision.newSession) startSession();
        messages = decision.messages;
        appendedFrom = messages.length;
        last = undefined;
        exact = false;
      } else {
        messages = context.concat([turn.assistant, ...turn.after]); // a copy several times faster than a spread
        appendedFrom = context.length;
      }
      step += 1;
      options.onStep?.(step, recorded.length, usage.promptTokens ?? localTokens);
    }
  } catch (error) {
    if (!(error instanceof RunEnded)) throw error;
    [status, failure, failedStep] = [error.status, error.failure, step];
    const kind = error.status === 'overflow' ? 'overflow' : error.status === 'invalid_context' ? 'pairing_violation' : error.status === 'error' ? 'error' : 'stopped';
    record([{ kind, detail: error.failure, tokensBefore: kind === 'overflow' ? steps.at(-1)?.promptTokens : undefined }]);
  }

  const finishedAt = new Date();
  // The overflowing request was never sent: it is on the curve but not billed. Probe questions are the
  // benchmark's measurement, not the strategy's doing: stored as steps, left out of its cost.
  const sent = steps.filter((s) => s.purpose !== PROBE_PURPOSE && !(status === 'overflow' && s.step === failedStep && s.purpose === 'agent'));
  const agentSteps = sent.filter((s) => s.purpose === 'agent');
  const auxiliary = sent.filter((s) => s.purpose !== 'agent');
  const peak = steps.reduce((max, s) => (s.purpose === PROBE_PURPOSE ? max : Math.max(max, s.promptTokens)), 0);
  const asked = new Set(probes.map((p) => p.probeId));
  for (const probe of scenario.probes) {
    if (!asked.has(probe.id)) probes.push({ probeId: probe.id, step: probe.step, answer: probe.answer, how: 'unreached', ...(options.askProbes ? { answered: false } : {}) });
  }
  const count = (how: ProbeRecord['how']): number => probes.filter((p) => p.how === how).length;
  const inputTokens = sent.reduce((sum, s) => sum + s.promptTokens, 0);
  const outputTokens = sent.reduce((sum, s) => sum + s.completionTokens, 0);
  return {
    runId: runId(options.batchId, runLabel(label, config.variant), scenario.id),
    batchId: options.batchId,
    config,
    summary: {
      status,
      failedStep,
      failure,
      steps: agentSteps.length,
      totalSteps: recorded.length,
      sessions: session,
      restarts: events.filter((e) => e.kind === 'restart').length,
      inputTokens,
      outputTokens,
      llmCalls: sent.length,
      overheadTokens: auxiliary.reduce((sum, s) => sum + s.promptTokens + s.completionTokens, 0),
      peakContextTokens: peak,
      peakContextPct: peak / window,
      meanContextPct: agentSteps.length === 0 ? 0 : agentSteps.reduce((sum, s) => sum + s.contextPct, 0) / agentSteps.length,
      cachedInputTokens,
      costUsd: costUsd(priceFor(config.priceModel), { input: inputTokens, cachedInput: cachedInputTokens, output: outputTokens }),
      probes: {
        total: probes.length,
        verbatim: count('verbatim'),
        summary: count('summary'),
        recoverable: count('recoverable'),
        lost: count('lost') + count('unreached'),
        answered: options.askProbes ? probes.filter((p) => p.answered).length : undefined,
      },
      referenceRecall: reference.total === 0 ? undefined : reference,
      usageComparison: compareUsage(steps.filter((s) => s.purpose === 'agent' && exactSteps.has(s.step))),
    },
    steps,
    events,
    probes: probes.sort((a, b) => a.step - b.step || a.probeId.localeCompare(b.probeId)),
    startedAt,
    finishedAt,
  };
}
