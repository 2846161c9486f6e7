/**
 * Hand-built runs for the report's unit and browser tests: two scenarios x three columns (raw,
 * masking, and the codex preset of summarization on a live backend), one overflow, one restart,
 * probes, reference recall, costs (one column unpriced), an auxiliary summary call, a step answered
 * from the record/replay cache, and a scenario whose title and id try to break out of the page.
 */
import { costUsd, priceFor } from '../../src/metrics/cost.js';
import type { ParamValue } from '../../src/core/params.js';
import type { EventRecord, ProbeOutcome, ProbeRecord, RunResult, RunStatus, StepRecord, Threshold } from '../../src/core/run-records.js';

export const WINDOW = 8000;
export const INJECTION = '</script><script>window.__pwned=1</script>';
export const HOSTILE_TITLE = `Fix "auth" <b>bug</b> ${INJECTION}\u2028& more`;
/** What the codex preset's summary says: the timeline shows it, as text. */
export const SUMMARY_TEXT = `## Handoff\n- rate limit in auth/limits.py\n- <img src=x onerror="window.__pwned=2"> ${INJECTION}`;
/** The mock's settings, on purpose not its defaults, so the header shows what was stored. */
export const MOCK_OPTIONS = { recall: 0.7, summaryTokens: 600, seed: 3 };
export const CALIBRATION = 1.16;
export const LIVE_BACKEND = 'ollama:chat:qwen2.5-coder:7b';
/** Has no price in the registry: the preset's cost is unknown. */
export const UNPRICED_MODEL = 'in-house-llm';

type Strategy = 'raw' | 'masking' | 'codex';

interface RunSpec {
  readonly scenarioId: string;
  readonly scenarioTitle: string;
  readonly outcome: 'resolved' | 'unresolved';
  readonly strategy: Strategy;
  readonly tokens: readonly number[];
  readonly sessions?: readonly number[];
  readonly recorded?: readonly number[];
  readonly status: RunStatus;
  readonly failedStep?: number;
  readonly events?: readonly EventRecord[];
  /** Auxiliary (summary) requests sent before the agent request of `step`. */
  readonly aux?: readonly { step: number; prompt: number; completion: number }[];
  /** Agent steps answered from the record/replay cache. */
  readonly cachedSteps?: readonly number[];
  readonly probes: readonly { step: number; how: ProbeOutcome }[];
  /** Reference recall: [present, total]. */
  readonly recall: readonly [number, number];
}

const THRESHOLDS: Record<Strategy, readonly Threshold[]> = {
  raw: [],
  masking: [{ label: 'mask_at', fraction: 0.6 }],
  codex: [{ label: 'summarizationThreshold', fraction: 0.9 }],
};

const PARAMS: Record<Strategy, RunResult['config']['params']> = {
  raw: {},
  masking: { keep_last: 2 },
  codex: { summarizationThreshold: 0.9, template: 'handoff' },
};

function run(spec: RunSpec, totalSteps: number): RunResult {
  const live = spec.strategy === 'codex';
  const agent: StepRecord[] = spec.tokens.map((promptTokens, i) => ({
    step: i + 1,
    session: spec.sessions?.[i] ?? 1,
    purpose: 'agent',
    promptTokens,
    completionTokens: 50,
    contextPct: promptTokens / WINDOW,
    messageCount: 2 * i + 2,
    usageSource: live ? 'provider' : 'local',
    recordedPromptTokens: spec.recorded?.[i],
    action: (spec.events ?? [])
      .filter((e) => e.step === i + 1)
      .map((e) => e.kind)
      .join(','),
    cached: live ? (spec.cachedSteps ?? []).includes(i + 1) : undefined,
  }));
  const auxiliary: StepRecord[] = (spec.aux ?? []).map((a) => ({
    step: a.step,
    session: spec.sessions?.[a.step - 1] ?? 1,
    purpose: 'summary',
    promptTokens: a.prompt,
    completionTokens: a.completion,
    contextPct: a.prompt / WINDOW,
    messageCount: 2 * a.step,
    usageSource: 'provider',
    action: '',
    cached: false,
  }));
  // Each auxiliary request goes just before the agent request of its step.
  const steps = [...agent, ...auxiliary].sort((x, y) => x.step - y.step || Number(x.purpose === 'agent') - Number(y.purpose === 'agent'));
  const peak = Math.max(...spec.tokens);
  const sessions = Math.max(1, ...(spec.sessions ?? []));
  const usage = spec.recorded && {
    meanAbsPctError: 4,
    meanPctError: -2,
    comparedSteps: spec.recorded.length,
  };
  // Prompt-cache hits: an agent request repeats the previous one's prefix when its context grew.
  const cachedInputTokens = agent.reduce((n, s, i) => {
    const previous = agent[i - 1];
    return previous && previous.session === s.session && s.promptTokens >= previous.promptTokens ? n + previous.promptTokens : n;
  }, 0);
  const inputTokens = steps.reduce((n, s) => n + s.promptTokens, 0);
  const outputTokens = steps.reduce((n, s) => n + s.completionTokens, 0);
  const priceModel = live ? UNPRICED_MODEL : 'gpt-4o';
  // The hostile scenario's planted facts are markup too: they reach the timeline as probe answers.
  const hostile = spec.scenarioTitle === HOSTILE_TITLE ? ` ${INJECTION}` : '';
  const probes: ProbeRecord[] = spec.probes.map((p, i) => ({ probeId: `probe-${i + 1}`, step: p.step, answer: `answer ${i + 1}${hostile}`, how: p.how }));
  const count = (how: ProbeOutcome): number => probes.filter((p) => p.how === how).length;
  return {
    runId: `${spec.scenarioId}-${spec.strategy}`,
    batchId: 'batch-1',
    config: {
      scenarioId: spec.scenarioId,
      scenarioTitle: spec.scenarioTitle,
      scenarioFile: `scenarios/${spec.scenarioId}.json`,
      sourceFormat: 'ctxbench',
      outcome: spec.outcome,
      strategy: spec.strategy,
      baseStrategy: live ? 'summarization' : spec.strategy,
      params: PARAMS[spec.strategy],
      backend: live ? LIVE_BACKEND : 'mock',
      backendOptions: live
        ? { url: 'http://127.0.0.1:11434', model: 'qwen2.5-coder:7b', stream: false, live: 'measure' }
        : MOCK_OPTIONS,
      priceModel,
      model: 'gpt-4o',
      window: WINDOW,
      encoding: 'o200k_base',
      calibrationFactor: CALIBRATION,
      thresholds: THRESHOLDS[spec.strategy],
    },
    summary: {
      status: spec.status,
      failedStep: spec.failedStep,
      failure: spec.status === 'overflow' ? `context of ${peak} tokens exceeds the ${WINDOW} window` : undefined,
      steps: spec.tokens.length,
      totalSteps,
      sessions,
      restarts: sessions - 1,
      inputTokens,
      llmCalls: steps.length,
      overheadTokens: auxiliary.reduce((n, s) => n + s.promptTokens + s.completionTokens, 0),
      meanContextPct: agent.reduce((n, s) => n + s.contextPct, 0) / agent.length,
      cachedInputTokens,
      costUsd: costUsd(priceFor(priceModel), { input: inputTokens, cachedInput: cachedInputTokens, output: outputTokens }),
      probes: {
        total: probes.length,
        verbatim: count('verbatim'),
        summary: count('summary'),
        recoverable: count('recoverable'),
        lost: count('lost') + count('unreached'),
      },
      referenceRecall: { present: spec.recall[0], total: spec.recall[1] },
      outputTokens,
      peakContextTokens: peak,
      peakContextPct: peak / WINDOW,
      usageComparison: usage,
    },
    steps,
    events: spec.events ?? [],
    probes,
    startedAt: new Date('2025-01-02T03:04:05Z'),
    finishedAt: new Date('2025-01-02T03:04:09Z'),
  };
}

const event = (step: number, session: number, kind: EventRecord['kind'], detail: string): EventRecord => ({
  step,
  session,
  kind,
  detail,
});

export function sampleRuns(): RunResult[] {
  const a = { scenarioId: 'swe-auth-001', scenarioTitle: 'Add login rate limiting', outcome: 'resolved' } as const;
  const b = { scenarioId: 'bad"id<i>', scenarioTitle: HOSTILE_TITLE, outcome: 'unresolved' } as const;
  const probesA = (first: ProbeOutcome, second: ProbeOutcome) => [{ step: 3, how: first }, { step: 6, how: second }];
  const probesB = (first: ProbeOutcome, second: ProbeOutcome) => [{ step: 4, how: first }, { step: 7, how: second }];
  return [
    run(
      {
        ...a,
        strategy: 'raw',
        tokens: [900, 2100, 3300, 4400, 5200, 6100],
        recorded: [950, 2180, 3390, 4520, 5350, 6240],
        status: 'completed',
        probes: probesA('verbatim', 'verbatim'),
        recall: [10, 10],
      },
      6,
    ),
    run(
      {
        ...a,
        strategy: 'masking',
        tokens: [900, 2100, 3300, 4400, 3900, 4300],
        status: 'completed',
        events: [
          { ...event(5, 1, 'masked', 'bash output masked'), messageId: 'm7' },
          { ...event(6, 1, 'masked', `masked m9 ${INJECTION}`), messageId: 'm9' },
        ],
        probes: probesA('verbatim', 'lost'),
        recall: [9, 10],
      },
      6,
    ),
    run(
      {
        ...a,
        strategy: 'codex',
        tokens: [900, 2100, 3300, 4400, 2000, 2600],
        status: 'completed',
        aux: [{ step: 5, prompt: 4500, completion: 300 }],
        events: [{ ...event(5, 1, 'summarized', 'steps 1-4 replaced by a handoff summary'), messageId: 's5', messageIds: ['m1', 'm2', 'm3'], text: SUMMARY_TEXT }],
        probes: probesA('verbatim', 'summary'),
        recall: [8, 10],
      },
      6,
    ),
    run(
      {
        ...b,
        strategy: 'raw',
        tokens: [1500, 3200, 5100, 7000],
        status: 'overflow',
        failedStep: 5,
        events: [{ ...event(5, 1, 'overflow', `context exceeds window ${INJECTION}`), tokensBefore: 8900 }],
        probes: probesB('verbatim', 'unreached'),
        recall: [6, 6],
      },
      7,
    ),
    run(
      {
        ...b,
        strategy: 'masking',
        tokens: [1500, 3200, 4700, 5600, 1200, 2600, 3900],
        sessions: [1, 1, 1, 1, 2, 2, 2],
        status: 'completed',
        events: [
          event(4, 1, 'wind_down', 'asked the agent to wrap up'),
          { ...event(5, 2, 'restart', `new session with handoff: ${'x'.repeat(400)}`), tokensBefore: 6400, tokensAfter: 1200 },
        ],
        probes: probesB('verbatim', 'verbatim'),
        recall: [7, 8],
      },
      7,
    ),
    run(
      {
        ...b,
        strategy: 'codex',
        tokens: [1500, 3200, 4700, 5600, 2100, 3000, 4200],
        status: 'completed',
        aux: [{ step: 5, prompt: 5700, completion: 350 }],
        cachedSteps: [2],
        events: [event(5, 1, 'summarized', 'steps 1-4 replaced by a handoff summary')],
        probes: probesB('verbatim', 'recoverable'),
        recall: [7, 8],
      },
      7,
    ),
  ];
}

/** A sweep of masking on the first scenario: one completed run per setting, passing `passed` of its 4 probes. */
export function sweepRuns(settings: readonly (readonly [params: Record<string, ParamValue>, passed: number])[]): RunResult[] {
  const template = sampleRuns()[1]!;
  return settings.map(([params, passed], i) => ({
    ...template,
    runId: `sweep-${i}`,
    config: { ...template.config, params },
    summary: { ...template.summary, status: 'completed', referenceRecall: undefined, probes: { total: 4, verbatim: passed, summary: 0, recoverable: 0, lost: 4 - passed } },
  }));
}
