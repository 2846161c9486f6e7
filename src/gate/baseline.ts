/**
 * The CI baseline: per run (`strategy|scenarioId`) its configuration and the metrics a regression gate
 * compares, in a stable, pretty-printed JSON file meant to be committed. Deterministic: the same runs
 * give the same bytes, except the top-level `created` field, which `bench check` ignores.
 */
import { CtxbenchError } from '../core/errors.js';
import { withoutByteOrderMark } from '../core/text-file.js';
import type { FileKind } from '../core/output-file.js';
import { runLabel } from '../core/run-names.js';
import { RUN_STATUSES, type RunResult } from '../core/run-records.js';
import { METRIC_FIELDS, NULLABLE_METRICS, runMetrics, unitOf, type RunMetrics, type StoredMetric } from '../metrics/run-metrics.js';
import { runConfiguration, runConfigurationSchema, type RunConfiguration } from './configuration.js';

/**
 * 2: each run keeps its configuration. Format 1 files (metrics only) are still read: their metrics
 * compare as before, and `bench check` says once that configuration changes cannot be named.
 */
export const BASELINE_FORMAT = 2;
const READABLE_FORMATS: readonly number[] = [1, BASELINE_FORMAT];

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
  /** Each run's configuration, keyed like `runs`; undefined for a format 1 file, which kept none. */
  readonly configs?: Readonly<Record<string, RunConfiguration>> | undefined;
}

export interface BatchMeta {
  readonly version: string;
  readonly command: string;
}

/** A run's key in a baseline: its strategy or preset (with a sweep's setting) and scenario. */
export const runKey = (run: RunResult): string => `${runLabel(run.config.strategy, run.config.variant)}|${run.config.scenarioId}`;

/** One entry per run key; two runs with one key (the same strategy and scenario twice) is an error. */
function runsByKey(runs: readonly RunResult[], where: string): Map<string, RunResult> {
  const byKey = new Map<string, RunResult>();
  for (const run of runs) {
    const key = runKey(run);
    if (byKey.has(key)) throw new CtxbenchError('OPTION_INVALID', `${where}: more than one run of ${key}; a baseline needs one run per strategy and scenario`);
    byKey.set(key, run);
  }
  return byKey;
}

const mapValues = <A, B>(map: ReadonlyMap<string, A>, f: (value: A) => B): Map<string, B> => new Map([...map].map(([key, value]) => [key, f(value)]));

/** Each run's metrics by key (see runsByKey). */
export const metricsByKey = (runs: readonly RunResult[], where: string): Map<string, RunMetrics> => mapValues(runsByKey(runs, where), runMetrics);

/** Each run's configuration by key (see runsByKey). */
export const configsByKey = (runs: readonly RunResult[], where: string): Map<string, RunConfiguration> =>
  mapValues(runsByKey(runs, where), runConfiguration);

export function buildBaseline(runs: readonly RunResult[], batch: BatchMeta, created: Date, where: string): Baseline {
  const byKey = runsByKey(runs, where);
  const keys = [...byKey.keys()].sort();
  const runsOut = Object.fromEntries(keys.map((key) => [key, ordered(runMetrics(byKey.get(key)!))]));
  const configs = Object.fromEntries(keys.map((key) => [key, runConfiguration(byKey.get(key)!)]));
  return { format: BASELINE_FORMAT, created: created.toISOString(), version: batch.version, command: batch.command, runs: runsOut, configs };
}

/**
 * Why a batch cannot be a baseline, or undefined: runs missing from its matrix (every strategy runs
 * every scenario; fewer runs means an interrupted batch, or one shard of it), which would make every
 * later check gate fewer runs without a word; or runs that ended with an error, whose numbers gate
 * nothing.
 */
export function baselineProblem(runs: readonly RunResult[], where: string): string | undefined {
  const labels = new Set(runs.map((run) => runLabel(run.config.strategy, run.config.variant)));
  const scenarios = new Set(runs.map((run) => run.config.scenarioId));
  const planned = labels.size * scenarios.size;
  if (runs.length < planned) {
    return `${where} lacks ${planned - runs.length} of the ${planned} runs of its ${labels.size} strategies x ${scenarios.size} scenarios: it was interrupted (finish it with --resume) or is one shard (merge the shards first); a baseline of it would gate the rest of the matrix no more`;
  }
  const failed = runs.filter((run) => run.summary.status === 'error');
  if (failed.length > 0) {
    return `${where}: ${failed.length} run(s) ended with an error (the first: ${runKey(failed[0]!)}): run them again (--resume) before making a baseline of it`;
  }
  return undefined;
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

/** The file's text: each run's configuration first, then its metrics. */
export function serializeBaseline(baseline: Baseline): string {
  const { format, created, version, command, configs } = baseline;
  const runs = Object.fromEntries(Object.entries(baseline.runs).map(([key, metrics]) => [key, configs ? { config: configs[key], ...metrics } : metrics]));
  return `${JSON.stringify({ format, created, version, command, runs }, null, 2)}\n`;
}

const STATUSES: readonly string[] = RUN_STATUSES;

/** Nullable metrics added after format 2 files were first written (reactive replay's re-reads). */
const NEWER_THAN_FORMAT_2: ReadonlySet<string> = new Set(['rereads', 'rereadInputTokens']);

/** A count is a whole number; every stored metric is >= 0. */
const validNumber = (field: StoredMetric, v: unknown): boolean =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && (unitOf(field) !== 'count' || Number.isInteger(v));

/** Validates a baseline file's text; every problem is a one-line error naming `file`. */
export function parseBaseline(text: string, file: string): Baseline {
  const bad = (problem: string): CtxbenchError => new CtxbenchError('BASELINE_INVALID', `${file}: ${problem}`);
  let data: unknown;
  try {
    data = JSON.parse(withoutByteOrderMark(text));
  } catch (error) {
    throw bad(`not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isObject(data)) throw bad('expected a JSON object written by `bench baseline`');
  const format = data.format;
  if (typeof format !== 'number' || !READABLE_FORMATS.includes(format)) {
    throw bad(`unsupported format ${JSON.stringify(format)} (expected ${READABLE_FORMATS.join(' or ')}); rewrite it with \`bench baseline\``);
  }
  if (!isObject(data.runs)) throw bad('"runs" must be an object of runs keyed by strategy|scenarioId');
  if (Object.keys(data.runs).length === 0) throw bad('"runs" is empty: a baseline without runs gates nothing; write it with `bench baseline` from a batch that has runs');
  const runs: Record<string, RunMetrics> = {};
  const configs: Record<string, RunConfiguration> = {};
  for (const [key, value] of Object.entries(data.runs)) {
    if (!isObject(value)) throw bad(`runs["${key}"] must be an object`);
    if (format !== 1) configs[key] = parseConfiguration(value.config, `runs["${key}"].config`, bad);
    for (const field of METRIC_FIELDS) {
      if (value[field] === undefined) {
        // A metric the file's format did not always write is one the run had none of; any other
        // missing field was lost (a hand edit), and a check would skip it silently.
        if (!NULLABLE_METRICS.has(field) || (format !== 1 && !NEWER_THAN_FORMAT_2.has(field))) throw bad(`runs["${key}"].${field} is missing`);
        value[field] = null;
      }
      const v = value[field];
      if (field === 'status') {
        if (typeof v !== 'string' || !STATUSES.includes(v)) throw bad(`runs["${key}"].status must be one of ${STATUSES.join(', ')}`);
      } else if (!(v === null && NULLABLE_METRICS.has(field)) && !validNumber(field, v)) {
        throw bad(`runs["${key}"].${field} must be ${unitOf(field) === 'count' ? 'a whole number >= 0' : 'a number >= 0'}${NULLABLE_METRICS.has(field) ? ' or null' : ''}`);
      }
    }
    runs[key] = ordered(value as unknown as RunMetrics);
  }
  return {
    format,
    created: typeof data.created === 'string' ? data.created : '',
    version: typeof data.version === 'string' ? data.version : '',
    command: typeof data.command === 'string' ? data.command : '',
    runs,
    configs: format === 1 ? undefined : configs,
  };
}

function parseConfiguration(value: unknown, where: string, bad: (problem: string) => CtxbenchError): RunConfiguration {
  const parsed = runConfigurationSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = [where, ...issue.path.map(String)].join('.');
  throw bad(issue.code === 'unrecognized_keys' ? `${field}: unknown setting ${issue.keys.join(', ')}` : `${field}: ${issue.message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
