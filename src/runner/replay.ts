/**
 * Replays one scenario through one strategy (design DEFINITION "Replay semantics").
 *
 * Teacher forcing: at each step the strategy builds the context, the backend answers, and the
 * RECORDED assistant turn and its results are appended, whatever the backend said. A context that
 * exceeds the window or breaks tool-call pairing fails the run at that step, as a provider would.
 */
import type { Message } from '../core/messages.js';
import { checkPairing, describeViolations } from '../core/pairing.js';
import type { TokenCounter } from '../core/tokens.js';
import type { Backend } from '../llm/types.js';
import { prelude, turns, type Scenario } from '../scenarios/scenario.js';
import type { LastRequest, StrategyDefinition, StrategyEvent } from '../strategies/types.js';
import { compareUsage } from './usage-comparison.js';
import type { EventRecord, Params, RunConfig, RunResult, RunStatus, StepRecord } from './types.js';

export interface ReplayOptions {
  readonly scenario: Scenario;
  readonly sourceFormat: string;
  readonly strategy: StrategyDefinition;
  readonly params: Params;
  readonly backend: Backend;
  readonly counter: TokenCounter;
  readonly model: string;
  readonly window: number;
  readonly batchId: string;
  /** Called after every step (progress bars). */
  readonly onStep?: (step: number, total: number) => void;
}

export function runId(batchId: string, strategy: string, scenarioId: string): string {
  return `${batchId}/${strategy}/${scenarioId}`;
}

export async function replayScenario(options: ReplayOptions): Promise<RunResult> {
  const { scenario, strategy, params, backend, counter, window } = options;
  const startedAt = new Date();
  const config: RunConfig = {
    scenarioId: scenario.id,
    scenarioTitle: scenario.title,
    scenarioFile: scenario.file,
    sourceFormat: options.sourceFormat,
    outcome: scenario.outcome,
    strategy: strategy.name,
    params,
    backend: backend.name,
    model: options.model,
    window,
    encoding: counter.encoding,
    thresholds: strategy.thresholds(params),
  };
  const recorded = turns(scenario);
  const first = prelude(scenario);
  const systemPrompt = first[0]?.role === 'system' ? first[0] : undefined;
  const run = strategy.create(params);
  const steps: StepRecord[] = [];
  const events: EventRecord[] = [];
  const exactSteps = new Set<number>(); // steps that sent the recorded history unchanged
  let exact = true; // the session's messages are still the recorded history, untouched

  let messages: readonly Message[] = first;
  let last: LastRequest | undefined;
  let session = 1;
  let sessionSteps = 0;
  let status: RunStatus = 'completed';
  let failure: string | undefined;
  let failedStep: number | undefined;

  const record = (step: number, list: readonly StrategyEvent[]): void => {
    for (const e of list) events.push({ ...e, step, session });
  };

  for (const [step, turn] of recorded.entries()) {
    const plan = await run.beforeRequest({ messages, step, session, sessionSteps, window, counter, last, systemPrompt });
    if (plan.newSession) {
      session += 1;
      sessionSteps = 0;
    }
    record(step, plan.events ?? []);
    if (plan.stop !== undefined) {
      [status, failure, failedStep] = ['stopped', plan.stop, step];
      record(step, [{ kind: 'stopped', detail: plan.stop }]);
      break;
    }
    const context = plan.messages;
    exact = exact && context === messages;
    const violations = checkPairing(context, { request: true });
    if (violations.length > 0) {
      [status, failure, failedStep] = ['invalid_context', describeViolations(violations), step];
      record(step, [{ kind: 'pairing_violation', detail: failure }]);
      break;
    }
    const localTokens = counter.countContext(context);
    const action = [...new Set((plan.events ?? []).map((e) => e.kind))].join(',');
    if (localTokens > window) {
      [status, failedStep] = ['overflow', step];
      failure = `context of ${localTokens} tokens exceeds the ${window}-token window`;
      steps.push(stepRecord(step, session, localTokens, 0, window, context.length, 'local', turn.assistant.usage?.promptTokens, action));
      record(step, [{ kind: 'overflow', detail: failure, tokensBefore: localTokens }]);
      break;
    }
    const response = await backend.complete({ messages: context, purpose: 'agent', recorded: turn.assistant });
    const promptTokens = response.usage.promptTokens ?? localTokens;
    const source = response.usage.promptTokens === undefined ? 'local' : response.usageSource;
    steps.push(
      stepRecord(step, session, promptTokens, response.usage.completionTokens ?? 0, window, context.length, source, turn.assistant.usage?.promptTokens, action),
    );
    if (exact) exactSteps.add(step);
    last = { promptTokens: response.usage.promptTokens, sentCount: context.length };
    sessionSteps += 1;
    messages = [...context, turn.assistant, ...turn.after];
    options.onStep?.(step + 1, recorded.length);
  }

  const finishedAt = new Date();
  const sent = steps.filter((s) => status !== 'overflow' || s.step !== failedStep);
  const peak = steps.reduce((max, s) => Math.max(max, s.promptTokens), 0);
  return {
    runId: runId(options.batchId, strategy.name, scenario.id),
    batchId: options.batchId,
    config,
    summary: {
      status,
      failedStep,
      failure,
      steps: sent.length,
      totalSteps: recorded.length,
      sessions: session,
      restarts: events.filter((e) => e.kind === 'restart').length,
      inputTokens: sent.reduce((sum, s) => sum + s.promptTokens, 0),
      outputTokens: sent.reduce((sum, s) => sum + s.completionTokens, 0),
      peakContextTokens: peak,
      peakContextPct: peak / window,
      usageComparison: compareUsage(steps.filter((s) => exactSteps.has(s.step))),
    },
    steps,
    events,
    startedAt,
    finishedAt,
  };
}

function stepRecord(
  step: number,
  session: number,
  promptTokens: number,
  completionTokens: number,
  window: number,
  messageCount: number,
  usageSource: 'local' | 'provider',
  recordedPromptTokens: number | undefined,
  action: string,
): StepRecord {
  return { step, session, purpose: 'agent', promptTokens, completionTokens, contextPct: promptTokens / window, messageCount, usageSource, recordedPromptTokens, action };
}
