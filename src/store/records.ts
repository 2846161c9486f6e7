/**
 * Mapping between the runner's records and table rows. Optional fields map to NULL and back to
 * undefined; nothing else is lost, so a stored run reads back equal to the one that was saved.
 */
import type { Encoding } from '../core/tokens.js';
import type { BatchInfo, CalibrationRecord, CalibrationSource, EventKind, EventRecord, ProbeOutcome, ProbeRecord, ReactiveReplay, RunResult, RunStatus, PctErrors, StepRecord, Threshold } from '../core/run-records.js';
import type { Params } from '../core/params.js';
import type { BATCHES, CALIBRATION, EVENTS, PROBES, Row, RUNS, STEPS } from './schema.js';

export type BatchRow = Row<typeof BATCHES>;
export type RunRow = Row<typeof RUNS>;
export type StepRow = Row<typeof STEPS>;
export type EventRow = Row<typeof EVENTS>;
export type ProbeRow = Row<typeof PROBES>;
export type CalibrationRow = Row<typeof CALIBRATION>;

export function batchRow(batch: BatchInfo): BatchRow {
  return {
    batch_id: batch.batchId,
    created_at: batch.createdAt,
    command: batch.command,
    version: batch.version,
    matrix_fingerprint: batch.fingerprint ?? null,
    git_sha: batch.gitSha ?? null,
  };
}

export function calibrationRow(record: CalibrationRecord): CalibrationRow {
  return {
    batch_id: record.batchId,
    model: record.model,
    encoding: record.encoding,
    factor: record.factor,
    overhead: record.overhead,
    source: record.source,
    samples: record.samples,
    scenarios: record.scenarios,
    mape_before: record.before?.meanAbsPctError ?? null,
    mpe_before: record.before?.meanPctError ?? null,
    mape_after: record.after?.meanAbsPctError ?? null,
    mpe_after: record.after?.meanPctError ?? null,
    mape_oos: record.outOfSample?.meanAbsPctError ?? null,
    mpe_oos: record.outOfSample?.meanPctError ?? null,
  };
}

const errors = (abs: number | null, signed: number | null): PctErrors | undefined =>
  abs === null || signed === null ? undefined : { meanAbsPctError: abs, meanPctError: signed };

export function calibrationFromRow(row: CalibrationRow): CalibrationRecord {
  return {
    batchId: row.batch_id,
    model: row.model,
    encoding: row.encoding,
    factor: row.factor,
    overhead: row.overhead,
    source: row.source as CalibrationSource,
    samples: row.samples,
    scenarios: row.scenarios,
    before: errors(row.mape_before, row.mpe_before),
    after: errors(row.mape_after, row.mpe_after),
    outOfSample: errors(row.mape_oos, row.mpe_oos),
  };
}

export function runRow(run: RunResult): RunRow {
  const { config, summary } = run;
  const usage = summary.usageComparison;
  return {
    run_id: run.runId,
    batch_id: run.batchId,
    matrix_index: run.matrixIndex ?? null,
    scenario_id: config.scenarioId,
    scenario_title: config.scenarioTitle,
    scenario_file: config.scenarioFile,
    source_format: config.sourceFormat,
    scenario_digest: config.scenarioDigest ?? null,
    outcome: config.outcome ?? null,
    strategy: config.strategy,
    base_strategy: config.baseStrategy,
    strategy_file: config.strategySource?.file ?? null,
    strategy_digest: config.strategySource?.digest ?? null,
    params_json: JSON.stringify(config.params),
    variant: config.variant ?? null,
    backend: config.backend,
    backend_options_json: JSON.stringify(config.backendOptions),
    model: config.model,
    context_window: config.window,
    encoding: config.encoding,
    calibration_factor: config.calibrationFactor ?? null,
    calibration_overhead: config.calibrationOverhead ?? null,
    price_model: config.priceModel,
    thresholds_json: JSON.stringify(config.thresholds),
    replay_json: config.replay ? JSON.stringify(config.replay) : null,
    status: summary.status,
    failed_step: summary.failedStep ?? null,
    failure: summary.failure ?? null,
    steps: summary.steps,
    total_steps: summary.totalSteps,
    sessions: summary.sessions,
    restarts: summary.restarts,
    input_tokens: summary.inputTokens,
    output_tokens: summary.outputTokens,
    llm_calls: summary.llmCalls,
    overhead_tokens: summary.overheadTokens,
    peak_context_tokens: summary.peakContextTokens,
    peak_context_pct: summary.peakContextPct,
    mean_context_pct: summary.meanContextPct,
    cached_input_tokens: summary.cachedInputTokens ?? null,
    cost_usd: summary.costUsd ?? null,
    probes_total: summary.probes.total,
    probes_verbatim: summary.probes.verbatim,
    probes_summary: summary.probes.summary,
    probes_recoverable: summary.probes.recoverable,
    probes_lost: summary.probes.lost,
    probes_answered: summary.probes.answered ?? null,
    ref_present: summary.referenceRecall?.present ?? null,
    ref_total: summary.referenceRecall?.total ?? null,
    rereads: summary.recovery?.rereads ?? null,
    reread_input_tokens: summary.recovery?.rereadInputTokens ?? null,
    ref_summary: summary.recovery?.summaryReferences ?? null,
    ref_lost: summary.recovery?.lostReferences ?? null,
    reread_cap_hits: summary.recovery?.capHits ?? null,
    usage_mape: usage?.meanAbsPctError ?? null,
    usage_mpe: usage?.meanPctError ?? null,
    usage_compared_steps: usage?.comparedSteps ?? null,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    duration_ms: run.finishedAt.getTime() - run.startedAt.getTime(),
  };
}

/** Rows made one at a time as an appender takes them: `row` of each record and its position. */
function* rowsOf<T, R>(records: readonly T[], row: (record: T, seq: number) => R): Generator<R> {
  for (let seq = 0; seq < records.length; seq++) yield row(records[seq]!, seq);
}

/** A run's step rows, made one at a time as they are appended. */
export const stepRows = (run: RunResult): Generator<StepRow> =>
  rowsOf(run.steps, (step, seq) => ({
    run_id: run.runId,
    seq,
    step: step.step,
    session: step.session,
    purpose: step.purpose,
    prompt_tokens: step.promptTokens,
    completion_tokens: step.completionTokens,
    context_pct: step.contextPct,
    message_count: step.messageCount,
    usage_source: step.usageSource,
    recorded_prompt_tokens: step.recordedPromptTokens ?? null,
    action: step.action,
    cache_hit: step.cached === undefined ? null : Number(step.cached),
    provider_prompt_tokens: step.providerPromptTokens ?? null,
    finish_reason: step.finishReason ?? null,
  }));

/** A run's event rows, made one at a time as they are appended. */
export const eventRows = (run: RunResult): Generator<EventRow> =>
  rowsOf(run.events, (event, seq) => ({
    run_id: run.runId,
    seq,
    step: event.step,
    session: event.session,
    kind: event.kind,
    message_id: event.messageId ?? null,
    detail: event.detail,
    tokens_before: event.tokensBefore ?? null,
    tokens_after: event.tokensAfter ?? null,
    message_ids_json: event.messageIds === undefined ? null : JSON.stringify(event.messageIds),
    text: event.text ?? null,
  }));

export function probeRows(run: RunResult): ProbeRow[] {
  return run.probes.map((p) => ({
    run_id: run.runId,
    probe_id: p.probeId,
    step: p.step,
    answer: p.answer,
    how: p.how,
    file: p.file ?? null,
    reply: p.reply ?? null,
    answered: p.answered === undefined ? null : Number(p.answered),
  }));
}

function probeFromRow(row: ProbeRow): ProbeRecord {
  return {
    probeId: row.probe_id,
    step: row.step,
    answer: row.answer,
    how: row.how as ProbeOutcome,
    file: row.file ?? undefined,
    reply: row.reply ?? undefined,
    answered: row.answered === null ? undefined : row.answered === 1,
  };
}

/** Rebuilds a run from its row and its step and event rows, each already in stored order. */
export function runFromRows(row: RunRow, steps: readonly StepRow[], events: readonly EventRow[], probes: readonly ProbeRow[] = []): RunResult {
  return {
    runId: row.run_id,
    batchId: row.batch_id,
    matrixIndex: row.matrix_index ?? undefined,
    config: {
      scenarioId: row.scenario_id,
      scenarioTitle: row.scenario_title,
      scenarioFile: row.scenario_file,
      sourceFormat: row.source_format,
      scenarioDigest: row.scenario_digest ?? undefined,
      outcome: row.outcome ?? undefined,
      strategy: row.strategy,
      baseStrategy: row.base_strategy,
      strategySource: row.strategy_file === null || row.strategy_digest === null ? undefined : { file: row.strategy_file, digest: row.strategy_digest },
      params: JSON.parse(row.params_json) as Params,
      variant: row.variant ?? undefined,
      backend: row.backend,
      backendOptions: JSON.parse(row.backend_options_json) as Params,
      model: row.model,
      window: row.context_window,
      encoding: row.encoding as Encoding,
      calibrationFactor: row.calibration_factor ?? undefined,
      calibrationOverhead: row.calibration_overhead ?? undefined,
      priceModel: row.price_model,
      thresholds: JSON.parse(row.thresholds_json) as Threshold[],
      replay: row.replay_json === null ? undefined : (JSON.parse(row.replay_json) as ReactiveReplay),
    },
    summary: {
      status: row.status as RunStatus,
      failedStep: row.failed_step ?? undefined,
      failure: row.failure ?? undefined,
      steps: row.steps,
      totalSteps: row.total_steps,
      sessions: row.sessions,
      restarts: row.restarts,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      llmCalls: row.llm_calls,
      overheadTokens: row.overhead_tokens,
      peakContextTokens: row.peak_context_tokens,
      peakContextPct: row.peak_context_pct,
      meanContextPct: row.mean_context_pct,
      cachedInputTokens: row.cached_input_tokens ?? undefined,
      costUsd: row.cost_usd ?? undefined,
      probes: {
        total: row.probes_total,
        verbatim: row.probes_verbatim,
        summary: row.probes_summary,
        recoverable: row.probes_recoverable,
        lost: row.probes_lost,
        answered: row.probes_answered ?? undefined,
      },
      referenceRecall: row.ref_present === null || row.ref_total === null ? undefined : { present: row.ref_present, total: row.ref_total },
      recovery:
        row.rereads === null
          ? undefined
          : { rereads: row.rereads, rereadInputTokens: row.reread_input_tokens ?? 0, summaryReferences: row.ref_summary ?? 0, lostReferences: row.ref_lost ?? 0, capHits: row.reread_cap_hits ?? 0 },
      usageComparison:
        row.usage_mape === null || row.usage_mpe === null || row.usage_compared_steps === null
          ? undefined
          : { meanAbsPctError: row.usage_mape, meanPctError: row.usage_mpe, comparedSteps: row.usage_compared_steps },
    },
    steps: steps.map(stepFromRow),
    events: events.map(eventFromRow),
    probes: probes.map(probeFromRow),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

function stepFromRow(row: StepRow): StepRecord {
  return {
    step: row.step,
    session: row.session,
    purpose: row.purpose,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    contextPct: row.context_pct,
    messageCount: row.message_count,
    usageSource: row.usage_source as StepRecord['usageSource'],
    recordedPromptTokens: row.recorded_prompt_tokens ?? undefined,
    action: row.action,
    cached: row.cache_hit === null ? undefined : row.cache_hit === 1,
    providerPromptTokens: row.provider_prompt_tokens ?? undefined,
    finishReason: row.finish_reason ?? undefined,
  };
}

function eventFromRow(row: EventRow): EventRecord {
  return {
    step: row.step,
    session: row.session,
    kind: row.kind as EventKind,
    messageId: row.message_id ?? undefined,
    detail: row.detail,
    tokensBefore: row.tokens_before ?? undefined,
    tokensAfter: row.tokens_after ?? undefined,
    messageIds: row.message_ids_json === null ? undefined : (JSON.parse(row.message_ids_json) as string[]),
    text: row.text ?? undefined,
  };
}

export function batchFromRow(row: BatchRow): BatchInfo {
  return { batchId: row.batch_id, createdAt: row.created_at, command: row.command, version: row.version, gitSha: row.git_sha ?? undefined, fingerprint: row.matrix_fingerprint ?? undefined };
}
