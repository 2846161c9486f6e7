/**
 * Hand-built runs for the report's unit and browser tests: two scenarios x two strategies, one
 * overflow, one restart, and a scenario whose title and id try to break out of the page.
 */
import type { EventRecord, RunResult, RunStatus, StepRecord, Threshold } from '../../src/runner/types.js';

export const WINDOW = 8000;
export const INJECTION = '</script><script>window.__pwned=1</script>';
export const HOSTILE_TITLE = `Fix "auth" <b>bug</b> ${INJECTION}\u2028& more`;

interface RunSpec {
  readonly scenarioId: string;
  readonly scenarioTitle: string;
  readonly strategy: 'raw' | 'masking';
  readonly tokens: readonly number[];
  readonly sessions?: readonly number[];
  readonly recorded?: readonly number[];
  readonly status: RunStatus;
  readonly failedStep?: number;
  readonly events?: readonly EventRecord[];
}

const THRESHOLDS: Record<RunSpec['strategy'], readonly Threshold[]> = {
  raw: [],
  masking: [{ label: 'mask_at', fraction: 0.6 }],
};

function run(spec: RunSpec, totalSteps: number): RunResult {
  const steps: StepRecord[] = spec.tokens.map((promptTokens, i) => ({
    step: i + 1,
    session: spec.sessions?.[i] ?? 1,
    purpose: 'agent',
    promptTokens,
    completionTokens: 50,
    contextPct: promptTokens / WINDOW,
    messageCount: 2 * i + 2,
    usageSource: 'local',
    recordedPromptTokens: spec.recorded?.[i],
    action: (spec.events ?? [])
      .filter((e) => e.step === i + 1)
      .map((e) => e.kind)
      .join(','),
  }));
  const peak = Math.max(...spec.tokens);
  const sessions = Math.max(1, ...(spec.sessions ?? []));
  const usage = spec.recorded && {
    meanAbsPctError: 4,
    meanPctError: -2,
    comparedSteps: spec.recorded.length,
  };
  return {
    runId: `${spec.scenarioId}-${spec.strategy}`,
    batchId: 'batch-1',
    config: {
      scenarioId: spec.scenarioId,
      scenarioTitle: spec.scenarioTitle,
      scenarioFile: `scenarios/${spec.scenarioId}.json`,
      sourceFormat: 'ctxbench',
      strategy: spec.strategy,
      baseStrategy: spec.strategy,
      params: spec.strategy === 'masking' ? { keep_last: 2 } : {},
      backend: 'mock',
      backendOptions: {},
      priceModel: 'gpt-4o',
      model: 'gpt-4o',
      window: WINDOW,
      encoding: 'o200k_base',
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
      inputTokens: spec.tokens.reduce((a, b) => a + b, 0),
      llmCalls: spec.tokens.length,
      overheadTokens: 0,
      meanContextPct: 0.5,
      cachedInputTokens: 0,
      probes: { total: 0, verbatim: 0, summary: 0, recoverable: 0, lost: 0 },
      outputTokens: 50 * spec.tokens.length,
      peakContextTokens: peak,
      peakContextPct: peak / WINDOW,
      usageComparison: usage,
    },
    steps,
    events: spec.events ?? [],
    probes: [],
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
  const a = { scenarioId: 'swe-auth-001', scenarioTitle: 'Add login rate limiting' };
  const b = { scenarioId: 'bad"id<i>', scenarioTitle: HOSTILE_TITLE };
  return [
    run({ ...a, strategy: 'raw', tokens: [900, 2100, 3300, 4400, 5200, 6100], recorded: [950, 2180, 3390, 4520, 5350, 6240], status: 'completed' }, 6),
    run(
      {
        ...a,
        strategy: 'masking',
        tokens: [900, 2100, 3300, 4400, 3900, 4300],
        status: 'completed',
        events: [event(5, 1, 'masked', 'masked tool output m7 (1,200 tokens)'), event(6, 1, 'masked', `masked m9 ${INJECTION}`)],
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
      },
      7,
    ),
  ];
}
