/**
 * The CI baseline: per run (`strategy|scenarioId`) the metrics a regression gate compares, in a stable,
 * pretty-printed JSON file meant to be committed. Deterministic: the same runs give the same bytes,
 * except the top-level `created` field, which `bench check` ignores.
 */
import { CtxbenchError } from '../core/errors.js';
import type { FileKind } from '../core/output-file.js';
import { runLabel } from '../core/run-names.js';
import type { RunResult } from '../core/run-records.js';
import { METRIC_FIELDS, NULLABLE_METRICS, runMetrics, type RunMetrics } from '../metrics/run-metrics.js';

export const BASELINE_FORMAT = 1;

export interface Baseline {
  readonly format: number;
  /** When the file was written; informational, never compared. */
  readonly created: string;
  /** The ctxbench version that ran the batch. */
  readonly version: string;
  /** The `bench run` command line of the batch. */
  readonly command: string;
  /** Keyed by `strategy|scenarioId`, sorted. */
  readonly runs: Readonly<Record<string, RunMetrics>>;
}

export interface BatchMeta {
  readonly version: string;
  readonly command: string;
}

/** A run's key in a baseline: its strategy or preset (with a sweep's setting) and scenario. */
export const runKey = (run: RunResult): string => `${runLabel(run.config.strategy, run.config.variant)}|${run.config.scenarioId}`;

/** One entry per run key; two runs with one key (the same strategy and scenario twice) is an error. */
export function metricsByKey(runs: readonly RunResult[], where: string): Map<string, RunMetrics> {
  const byKey = new Map<string, RunMetrics>();
  for (const run of runs) {
    const key = runKey(run);
    if (byKey.has(key)) throw new CtxbenchError('OPTION_INVALID', `${where}: more than one run of ${key}; a baseline needs one run per strategy and scenario`);
    byKey.set(key, runMetrics(run));
  }
  return byKey;
}

export function buildBaseline(runs: readonly RunResult[], batch: BatchMeta, created: Date, where: string): Baseline {
  const byKey = metricsByKey(runs, where);
  const sorted: Record<string, RunMetrics> = {};
  for (const key of [...byKey.keys()].sort()) sorted[key] = ordered(byKey.get(key)!);
  return { format: BASELINE_FORMAT, created: created.toISOString(), version: batch.version, command: batch.command, runs: sorted };
}

function ordered(metrics: RunMetrics): RunMetrics {
  const out: Record<string, unknown> = {};
  for (const field of METRIC_FIELDS) out[field] = metrics[field];
  return out as unknown as RunMetrics;
}

/** A file serializeBaseline wrote: a JSON object whose first fields are `format` (a number) and `created`. */
export const BASELINE_FILE: FileKind = {
  name: 'a baseline',
  matches: (head) => /^\{\s*"format"\s*:\s*\d+\s*,\s*"created"\s*:/.test(head.toString('utf8')),
};

export function serializeBaseline(baseline: Baseline): string {
  const { format, created, version, command, runs } = baseline;
  return `${JSON.stringify({ format, created, version, command, runs }, null, 2)}\n`;
}

const STATUSES: readonly string[] = ['completed', 'overflow', 'invalid_context', 'stopped', 'error'];

/** Validates a baseline file's text; every problem is a one-line error naming `file`. */
export function parseBaseline(text: string, file: string): Baseline {
  const bad = (problem: string): CtxbenchError => new CtxbenchError('BASELINE_INVALID', `${file}: ${problem}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw bad(`not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isObject(data)) throw bad('expected a JSON object written by `bench baseline`');
  if (data.format !== BASELINE_FORMAT) throw bad(`unsupported format ${JSON.stringify(data.format)} (expected ${BASELINE_FORMAT}); rewrite it with \`bench baseline\``);
  if (!isObject(data.runs)) throw bad('"runs" must be an object of runs keyed by strategy|scenarioId');
  const runs: Record<string, RunMetrics> = {};
  for (const [key, value] of Object.entries(data.runs)) {
    if (!isObject(value)) throw bad(`runs["${key}"] must be an object`);
    for (const field of METRIC_FIELDS) {
      const v = value[field];
      if (field === 'status') {
        if (typeof v !== 'string' || !STATUSES.includes(v)) throw bad(`runs["${key}"].status must be one of ${STATUSES.join(', ')}`);
      } else if (!(typeof v === 'number' && Number.isFinite(v)) && !(v === null && NULLABLE_METRICS.has(field))) {
        throw bad(`runs["${key}"].${field} must be a number${NULLABLE_METRICS.has(field) ? ' or null' : ''}`);
      }
    }
    runs[key] = ordered(value as unknown as RunMetrics);
  }
  return {
    format: BASELINE_FORMAT,
    created: typeof data.created === 'string' ? data.created : '',
    version: typeof data.version === 'string' ? data.version : '',
    command: typeof data.command === 'string' ? data.command : '',
    runs,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
