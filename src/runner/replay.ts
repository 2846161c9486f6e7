/**
 * Replays one scenario through one strategy (design DEFINITION "Replay semantics").
 *
 * Teacher forcing: at each step the strategy builds the context, the backend answers, and the
 * RECORDED assistant turn and its results are appended, whatever the backend said. A context that
 * exceeds the window or breaks tool-call pairing fails the run at that step, as a provider would. A
 * provider that counts far fewer prompt tokens than were sent cut the prompt (Ollama past num_ctx):
 * the replay goes on to the end, and a run that would have completed ends as `truncated`.
 * Auxiliary calls (summaries, checkpoints) go through the same backend and the same checks; their
 * tokens are billed and counted as overhead (aux-llm.ts).
 */
import { appendOnlyCopy, prefixFollower } from '../core/append-only.js';
import type { ChatResponse, Usage } from '../core/backend.js';
import type { Message } from '../core/messages.js';
import { createOffloadStore } from '../core/offload-store.js';
import { REREAD_PURPOSE, type ProbeRecord, type RunResult, type RunStatus } from '../core/run-records.js';
import type { LastRequest, StrategyRun } from '../core/strategy.js';
import { suspectTruncation } from '../llm/truncation.js';
import { answerSearch, indexStore, type AnswerSearch } from '../metrics/answer-index.js';
import { judgeProbe } from '../metrics/probe-verdict.js';
import { prefixTokens } from '../metrics/prompt-cache.js';
import { followRun, referenceTargets, targetsPresent } from '../metrics/reference-recall.js';
import { mentionsIndex, type Mentions } from '../metrics/context-text.js';
import { ownedSearch, withEscaped, type OwnedSearch } from '../metrics/owned-search.js';
import type { Scenario } from '../scenarios/scenario.js';
import { prelude, turns } from '../scenarios/turns.js';
import { createAdmit } from './admit.js';
import { createReactiveAgent, type Exchange } from './reactive-agent.js';
import { auxiliaryLlm, probeAsker } from './aux-llm.js';
import { runConfig, type ReplayOptions } from './run-config.js';
import { RunEnded, RunLog } from './run-log.js';
import { runResult } from './run-summary.js';
import { createStrategyGuard, DEFAULT_STRATEGY_TIMEOUT_SECONDS } from './strategy-guard.js';

/** Reference targets depend on the scenario only: computed once, shared by every strategy's run. */
const referenceCache = new WeakMap<Scenario, ReturnType<typeof referenceTargets>>();
function targetsOf(scenario: Scenario): ReturnType<typeof referenceTargets> {
  let targets = referenceCache.get(scenario);
  if (!targets) referenceCache.set(scenario, (targets = referenceTargets(scenario)));
  return targets;
}

/**
 * One search of a scenario's probe answers and reference targets (as written and JSON-escaped) per
 * thread: each message's text is read once for both indexes below, whichever asks first.
 */
const stringSearches = new WeakMap<Scenario, OwnedSearch>();
function searchOf(scenario: Scenario): OwnedSearch {
  let search = stringSearches.get(scenario);
  if (!search) stringSearches.set(scenario, (search = ownedSearch(withEscaped([...probeAnswers(scenario), ...allTargets(scenario)]))));
  return search;
}

/**
 * Which of a scenario's probe answers and reference targets each message holds, each message searched
 * once per thread for all of them: shared by every strategy's run (reference recall, probe verdicts, a
 * reactive agent's needs).
 */
const mentionIndexes = new WeakMap<Scenario, Mentions>();
function mentionsOf(scenario: Scenario): Mentions {
  let index = mentionIndexes.get(scenario);
  if (!index) mentionIndexes.set(scenario, (index = mentionsIndex([...probeAnswers(scenario), ...allTargets(scenario)], searchOf(scenario))));
  return index;
}

const probeAnswers = (scenario: Scenario): string[] => scenario.probes.map((p) => p.answer);
/** Every turn's reference targets, one list. */
const allTargets = (scenario: Scenario): string[] => [...targetsOf(scenario).values()].flat();

/**
 * The search of what a replay looks for in its offload store, shared by every run of the scenario (a
 * message archived by several runs is searched once): the probe answers; with the reference targets
 * too for a reactive replay, whose agent looks for those before every turn.
 */
const answerSearches = new WeakMap<Scenario, AnswerSearch>();
const reactiveSearches = new WeakMap<Scenario, AnswerSearch>();
function answersOf(scenario: Scenario, reactive: boolean): AnswerSearch {
  const searches = reactive ? reactiveSearches : answerSearches;
  let search = searches.get(scenario);
  if (!search) searches.set(scenario, (search = answerSearch(reactive ? [...probeAnswers(scenario), ...allTargets(scenario)] : probeAnswers(scenario), searchOf(scenario))));
  return search;
}

/** Probes by the step they are judged at: no scan of every probe at every step. */
function probesByStep(scenario: Scenario): Map<number, Scenario['probes'][number][]> {
  const probesAt = new Map<number, Scenario['probes'][number][]>();
  for (const probe of scenario.probes) probesAt.set(probe.step, [...(probesAt.get(probe.step) ?? []), probe]);
  return probesAt;
}

/** The answers of the probes judged at each step: what a reactive replay's agent needs there too. */
function answersByStep(probesAt: ReadonlyMap<number, readonly Scenario['probes'][number][]>): Map<number, string[]> {
  return new Map([...probesAt].map(([step, probes]) => [step, probes.map((p) => p.answer)]));
}

/** Replays `options.scenario` through `options.strategy` on `options.backend`; the run ends at the first refused request. */
export async function replayScenario(options: ReplayOptions): Promise<RunResult> {
  const { scenario, strategy, params, backend, counter, window } = options;
  const startedAt = new Date();
  const config = runConfig(options);
  const recorded = turns(scenario);
  const first = prelude(scenario);
  const systemPrompt = first[0]?.role === 'system' ? first[0] : undefined;
  const guard = createStrategyGuard({
    strategy: strategy.name,
    timeoutMs: 1000 * (options.strategyTimeout ?? DEFAULT_STRATEGY_TIMEOUT_SECONDS),
    clock: options.hookClock,
    preempted: options.preempted,
  });
  const files = indexStore(createOffloadStore(), answersOf(scenario, options.replay !== undefined));
  const log = new RunLog(window, counter);
  const admit = createAdmit(counter, log);
  const llm = guard.llm(auxiliaryLlm({ backend, counter, window, log, admit, tools: scenario.tools }));
  const askProbe = probeAsker({ backend, counter, window, log, tools: scenario.tools });
  const exactSteps = new Set<number>(); // steps that sent the recorded history unchanged
  let exact = true; // the session's messages are still the recorded history, untouched
  const targets = targetsOf(scenario);
  const mentionedIn = mentionsOf(scenario);
  const presentInContext = followRun(targetsPresent(mentionedIn));
  const scenarioIds = new Set(scenario.messages.map((m) => m.id));
  const probesAt = probesByStep(scenario);
  const probes: ProbeRecord[] = [];
  const reference = { present: 0, total: 0 };
  let prefixCachedTokens = 0;
  // What each agent request of the session shares with the last, as sent: the provider's cached prefix.
  const cachePrefix = prefixFollower();
  let warnedNoUsage = false;

  let messages: readonly Message[] = first;
  // The session's history when the runner made it: appended in place while the strategy sends it
  // unchanged, copied once when the strategy returned another array (its edits), never per step.
  let history: Message[] | undefined;
  let appendedFrom = 0;
  let last: LastRequest | undefined;
  let sessionSteps = 0;
  let status: RunStatus = 'completed';
  let failure: string | undefined;
  let failedStep: number | undefined;
  let truncation: { step: number; failure: string } | undefined; // the first truncated request
  const reactive = options.replay
    ? createReactiveAgent({ scenario, caps: options.replay.caps, log, files, scenarioIds, mentionedIn, targets, probeAnswers: answersByStep(probesAt) })
    : undefined;

  const startSession = (): void => {
    log.session += 1;
    sessionSteps = 0;
    cachePrefix.reset();
  };
  /** Judges the probes due at `step` on the context sent there (and asks them, with askProbes). */
  const judgeProbes = async (context: readonly Message[], step: number): Promise<void> => {
    for (const probe of probesAt.get(step) ?? []) {
      // The recorded history unchanged holds every answer (scenario.ts checkProbes refuses a probe
      // whose answer is not in the history before its step): verbatim, no search.
      const verdict = exact ? { how: 'verbatim' as const, file: undefined } : judgeProbe(probe.answer, context, files.holding(probe.answer), scenarioIds, mentionedIn);
      const asked = options.askProbes ? await askProbe(context, probe) : {};
      probes.push({ probeId: probe.id, step, answer: probe.answer, how: verdict.how, file: verdict.file, ...asked });
    }
  };
  /** Counts the references the agent makes after `step` that the context sent there still holds. */
  const countReferences = (context: readonly Message[], step: number): void => {
    const used = targets.get(step) ?? [];
    // The recorded history unchanged holds every target: each first appeared in a tool output before
    // this step (reference-recall.test.ts checks it on every bundled scenario). No search needed.
    reference.present += exact ? used.length : presentInContext(used, context);
    reference.total += used.length;
  };
  /**
   * Warns (once) when the provider reported no usage (a count it sent that was none is warned about by
   * the log), and at each request its count suggests it truncated; the first such one makes the run truncated.
   */
  const checkUsage = (usage: Usage, response: ChatResponse, localTokens: number, step: number): void => {
    if (usage.promptTokens === undefined && !warnedNoUsage && !response.invalidUsage?.length) {
      warnedNoUsage = true;
      log.record([{ kind: 'warning', detail: `${backend.name} reported no usage: the local count is used (stored as local, never as 0)` }]);
    }
    // Calibration scales counts toward the recorded model's provider, not the live one: the tokenizer's own count is the estimate.
    const { factor, overhead } = options.calibration ?? { factor: 1, overhead: 0 };
    const estimate = Math.round((localTokens - overhead) / factor);
    if (response.usageSource === 'provider' && suspectTruncation(estimate, usage.promptTokens)) {
      // Ollama cuts the front of a prompt longer than num_ctx without an error: the only tell.
      log.record([{ kind: 'warning', detail: `suspected truncation: the provider counted ${usage.promptTokens} prompt tokens, the local estimate is ${estimate}` }]);
      truncation ??= {
        step,
        failure: `the provider counted ${usage.promptTokens} prompt tokens at step ${step}, the local estimate is ${estimate}: the server cut the prompt (Ollama: num_ctx above the model's context length)`,
      };
    }
  };

  /** Sends one request for recorded turn `turnIndex`: the recorded turn, or the re-read the context needs first (reactive). */
  const sendRequest = async (turn: Exchange, turnIndex: number): Promise<{ reread: boolean; promptTokens: number }> => {
    const { step, session } = log;
    const plan = await guard.beforeRequest(step, () => run.beforeRequest({ messages, step, session, sessionSteps, window, counter, last, systemPrompt, appendedFrom, llm, files }));
    if (plan.newSession) startSession();
    log.record(plan.events ?? []);
    if (plan.stop !== undefined) throw new RunEnded('stopped', plan.stop);
    const context = plan.messages;
    exact = exact && context === messages;
    const action = [...new Set((plan.events ?? []).map((e) => e.kind))].join(',');
    const localTokens = admit(context, 'agent', exact);
    const recovery = reactive?.next(context, turnIndex);
    const purpose = recovery ? REREAD_PURPOSE : 'agent';
    const recordedPrompt = recovery ? undefined : turn.assistant.usage?.promptTokens;
    if (localTokens > window) {
      log.addStep({ purpose, promptTokens: localTokens, usage: undefined, messageCount: context.length, source: 'local', action, recordedPrompt });
      throw new RunEnded('overflow', `context of ${localTokens} tokens exceeds the ${window}-token window`);
    }
    const answer = recovery ? reactive!.turnOf(recovery) : turn;
    if (!recovery) {
      if (probesAt.has(turnIndex)) await judgeProbes(context, turnIndex);
      countReferences(context, turnIndex);
    }
    const cached = cachePrefix.shared(context);
    cachePrefix.record(context, cached);
    prefixCachedTokens += prefixTokens(cached, context, counter, localTokens);
    const request = { messages: context, purpose: 'agent', tools: scenario.tools, recorded: answer.assistant, window, maxOutputTokens: options.maxOutputTokens };
    const response = await backend.complete(request).catch((error: unknown) => {
      // Retries are the backend's job: what reaches here ends this run, not the matrix.
      throw new RunEnded('error', `${backend.name}: ${(error as Error).message}`);
    });
    const usage = log.answered({ purpose, localTokens, response, messageCount: context.length, action, recordedPrompt });
    checkUsage(usage, response, localTokens, step);
    if (exact && !recovery) exactSteps.add(step);
    last = { promptTokens: usage.promptTokens, sentCount: context.length };
    sessionSteps += 1;

    const decision = await guard.afterResponse(step, () =>
      run.afterResponse?.({ messages: context, sent: context, response: answer.assistant, usage, step, session: log.session, sessionSteps, window, counter, systemPrompt, llm, files }),
    );
    if (decision) {
      log.record(decision.events ?? []);
      if (decision.stop !== undefined) throw new RunEnded('stopped', decision.stop);
      if (decision.newSession) startSession();
      messages = decision.messages;
      appendedFrom = messages.length;
      last = undefined;
      exact = false;
    } else {
      appendedFrom = context.length;
      if (context !== history) history = appendOnlyCopy(context, [answer.assistant, ...answer.after]);
      else history.push(answer.assistant, ...answer.after);
      messages = history;
      if (recovery) exact = false;
    }
    log.step += 1;
    return { reread: recovery !== undefined, promptTokens: usage.promptTokens ?? localTokens };
  };

  let run: StrategyRun;
  try {
    run = await guard.create(() => strategy.create(params));
    for (const [turnIndex, turn] of recorded.entries()) {
      let sent = await sendRequest(turn, turnIndex);
      while (sent.reread) sent = await sendRequest(turn, turnIndex);
      options.onStep?.(turnIndex + 1, recorded.length, sent.promptTokens);
    }
  } catch (error) {
    if (!(error instanceof RunEnded)) throw error;
    [status, failure, failedStep] = [error.status, error.failure, log.step];
    log.end(error);
  }
  // A run that ended otherwise keeps that status: it did not replay every step.
  if (status === 'completed' && truncation) [status, failure, failedStep] = ['truncated', truncation.failure, truncation.step];

  return runResult({ batchId: options.batchId, scenario, config, log, status, failure, failedStep, totalSteps: recorded.length, probes, askProbes: options.askProbes, reference, prefixCachedTokens, exactSteps, startedAt, recovery: reactive?.counts() });
}
