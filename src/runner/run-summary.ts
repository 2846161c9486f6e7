/**
 * A replayed run's result: its RunSummary (what it cost, how far it got, how much of the task it kept)
 * computed from what the replay logged, with the probes it never reached counted as lost.
 */
import { PROBE_PURPOSE } from '../core/probe-question.js';
import { runId, runLabel } from '../core/run-names.js';
import { REREAD_PURPOSE, type ProbeRecord, type RecoveryCounts, type RunConfig, type RunResult, type RunStatus } from '../core/run-records.js';
import { costUsd, priceFor } from '../metrics/cost.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { RunLog } from './run-log.js';
import { compareUsage } from './usage-comparison.js';

/** Everything a replay measured, as its loop left it. */
export interface Replayed {
  readonly batchId: string;
  readonly scenario: Scenario;
  readonly config: RunConfig;
  readonly log: RunLog;
  readonly status: RunStatus;
  readonly failure: string | undefined;
  readonly failedStep: number | undefined;
  /** The recorded agent turns: the steps a complete run replays. */
  readonly totalSteps: number;
  /** The probes judged at their steps, in the order they were; the unreached ones are added here. */
  readonly probes: ProbeRecord[];
  readonly askProbes: boolean | undefined;
  readonly reference: { readonly present: number; readonly total: number };
  /** The prompt-cache hits the local prefix estimate counts (metrics/prompt-cache.ts): the mock's, never mixed with a provider's counts. */
  readonly prefixCachedTokens: number;
  /** Steps that sent the recorded history unchanged: where local counts compare with the recorded usage. */
  readonly exactSteps: ReadonlySet<number>;
  readonly startedAt: Date;
  /** A reactive replay's re-reads and references (their tokens are summed here from the steps). */
  readonly recovery?: Omit<RecoveryCounts, 'rereadInputTokens'> | undefined;
}

/** The run's result; `replayed.probes` gets the unreached probes and is sorted by step. */
export function runResult(replayed: Replayed): RunResult {
  const { scenario, config, log, status, failedStep, probes } = replayed;
  const { steps, events } = log;
  const finishedAt = new Date();
  // The overflowing request was never sent: it is on the curve but not billed. Probe questions are the
  // benchmark's measurement, not the strategy's doing: stored as steps, left out of its cost.
  const sent = steps.filter((s) => s.purpose !== PROBE_PURPOSE && !(status === 'overflow' && s.step === failedStep && (s.purpose === 'agent' || s.purpose === REREAD_PURPOSE)));
  const agentSteps = sent.filter((s) => s.purpose === 'agent');
  // Re-reads are the agent's own requests (what forgetting cost), not the strategy's helper calls.
  const rereads = sent.filter((s) => s.purpose === REREAD_PURPOSE);
  const auxiliary = sent.filter((s) => s.purpose !== 'agent' && s.purpose !== REREAD_PURPOSE);
  const peak = steps.reduce((max, s) => (s.purpose === PROBE_PURPOSE ? max : Math.max(max, s.promptTokens)), 0);
  const asked = new Set(probes.map((p) => p.probeId));
  for (const probe of scenario.probes) {
    if (!asked.has(probe.id)) probes.push({ probeId: probe.id, step: probe.step, answer: probe.answer, how: 'unreached', ...(replayed.askProbes ? { answered: false } : {}) });
  }
  const count = (how: ProbeRecord['how']): number => probes.filter((p) => p.how === how).length;
  const inputTokens = sent.reduce((sum, s) => sum + s.promptTokens, 0);
  const outputTokens = sent.reduce((sum, s) => sum + s.completionTokens, 0);
  // A live run's cached input is the provider's (unknown when it reports none), never the local estimate.
  const cachedInputTokens = log.providerAnswered ? log.providerCachedTokens : replayed.prefixCachedTokens;
  return {
    runId: runId(replayed.batchId, runLabel(config.strategy, config.variant), scenario.id),
    batchId: replayed.batchId,
    config,
    summary: {
      status,
      failedStep,
      failure: replayed.failure,
      steps: agentSteps.length,
      totalSteps: replayed.totalSteps,
      sessions: log.session,
      restarts: events.filter((e) => e.kind === 'restart').length,
      inputTokens,
      outputTokens,
      llmCalls: sent.length,
      overheadTokens: auxiliary.reduce((sum, s) => sum + s.promptTokens + s.completionTokens, 0),
      peakContextTokens: peak,
      peakContextPct: peak / config.window,
      meanContextPct: agentSteps.length === 0 ? 0 : agentSteps.reduce((sum, s) => sum + s.contextPct, 0) / agentSteps.length,
      cachedInputTokens,
      // Unknown cache hits are billed as fresh input: nothing is known to have been cached.
      costUsd: costUsd(priceFor(config.priceModel), { input: inputTokens, cachedInput: cachedInputTokens ?? 0, output: outputTokens }),
      probes: {
        total: probes.length,
        verbatim: count('verbatim'),
        summary: count('summary'),
        recoverable: count('recoverable'),
        lost: count('lost') + count('unreached'),
        answered: replayed.askProbes ? probes.filter((p) => p.answered).length : undefined,
      },
      referenceRecall: replayed.reference.total === 0 ? undefined : replayed.reference,
      recovery: replayed.recovery && { ...replayed.recovery, rereadInputTokens: rereads.reduce((sum, s) => sum + s.promptTokens, 0) },
      usageComparison: compareUsage(steps.filter((s) => s.purpose === 'agent' && replayed.exactSteps.has(s.step))),
    },
    steps,
    events,
    probes: probes.sort((a, b) => a.step - b.step || a.probeId.localeCompare(b.probeId)),
    startedAt: replayed.startedAt,
    finishedAt,
  };
}
