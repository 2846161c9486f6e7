/**
 * `bench run --json` and `bench sweep --json`: the batch as data, so a script needs no second
 * `bench report` call: how the command ended (its exit code), where the results are, the token
 * calibration, and per configuration and per run the numbers of the report's JSON (report/exports.ts).
 */
import { z } from 'zod';
import { RUN_STATUSES, type CalibrationSource, type RunStatus } from '../../core/run-records.js';
import { reportSummary } from '../../report/exports.js';
import type { BatchResult, BatchStart } from '../../runner/batch.js';
import { CALIBRATION_WARNING_PCT, calibrationWarning } from '../../metrics/calibration.js';
import type { Shard } from '../../runner/shard.js';
import { EXIT_CODES } from '../exit-codes.js';
import { VERSION } from '../paths.js';
import { usageAgreement } from '../summary.js';
import { count, documentHeader } from './document.js';

/** Bumped when a field changes meaning or goes away, the configurations' and runs' included. */
export const RUN_JSON_FORMAT = 1;

const CALIBRATION_SOURCES = Object.keys({ fitted: 0, 'built-in': 0, file: 0 } satisfies Record<CalibrationSource, 0>) as [CalibrationSource, ...CalibrationSource[]];
const nullableCount = () => count().nullable();
const PARAM_VALUE = z.union([z.number(), z.boolean(), z.string()]);
/** How far local token counts are from the provider's recorded counts. */
const PCT_ERRORS = z.strictObject({
  meanPctError: z.number().describe("mean signed error in percent: negative = below the provider's count"),
  meanAbsPctError: z.number().describe('mean absolute error in percent'),
});
const ERRORS = PCT_ERRORS.nullable();

const RECALL = z.strictObject({
  present: count().describe('references still in the context when used'),
  total: count().describe('references used'),
});

/** What forgetting cost a reactive replay (README "How a replay works"). */
const RECOVERY = {
  rereads: count().describe('requests the agent made to get back what the next recorded turn used: the extra steps'),
  rereadInputTokens: count().describe('their prompt tokens (part of inputTokens)'),
  summaryReferences: count().describe('references held only by a strategy\'s text (summary, checkpoint): trusted, not re-read'),
  lostReferences: count().describe('references neither held nor recovered when their turn went ahead'),
  capHits: count().describe('re-reads a cap (--max-rereads-per-turn, --max-rereads-per-run) stopped'),
};

const CONFIGURATION = z.strictObject({
  configuration: z.string().describe('its label, as the tables print it: the strategy or preset, and what sets it apart (a sweep\'s parameters)'),
  strategy: z.string().describe('the strategy or preset selected'),
  baseStrategy: z.string().describe('the strategy that ran (a preset\'s strategy)'),
  runs: count().describe('its runs: one per scenario'),
  completed: count().describe('runs that replayed every step'),
  overflowed: count().describe('runs whose context outgrew the window'),
  truncated: count().describe('live runs whose prompts the provider cut'),
  steps: count().describe('agent steps replayed'),
  totalSteps: count().describe('agent steps the scenarios hold'),
  sessions: count().describe('context windows used (a restart starts a new one)'),
  restarts: count().describe('sessions restarted'),
  probesPassed: count().describe('probes answered from the context: verbatim, summary or recoverable (live: the model\'s correct answers when probesAnswered)'),
  probesTotal: count().describe('probes asked'),
  probesVerbatim: count().describe('probes whose fact was verbatim in the context'),
  probesSummary: count().describe('only in a message a strategy wrote (summary, checkpoint)'),
  probesRecoverable: count().describe('only in an offload-store file the context points to'),
  probesAnswered: z.boolean().describe('the model was asked the probe questions (live): probesPassed counts its correct answers'),
  referencePresent: count().describe('recorded references still in the context when used'),
  referenceTotal: count().describe('recorded references used'),
  recallByOutcome: z
    .strictObject({
      resolved: RECALL.describe('over the scenarios whose recorded task was resolved'),
      unresolved: RECALL.describe('over those whose task was not'),
    })
    .describe('reference recall by the recorded outcome'),
  inputTokens: count().describe('billed input tokens, auxiliary requests included'),
  cachedInputTokens: nullableCount().describe('prompt-cache hits of the runs that know theirs; null when none does'),
  outputTokens: count().describe('completion tokens'),
  overheadTokens: count().describe('prompt and completion tokens of summary and checkpoint requests'),
  llmCalls: count().describe('requests sent, auxiliary ones included'),
  costUsd: z.number().nullable().describe('dollars over the priced runs (a lower bound when pricedRuns < runs); null when none is priced'),
  pricedRuns: count().describe('runs with a known price'),
  peakContextPct: z.number().describe('the fullest request of any run, as a fraction of the window'),
  meanPeakContextPct: z.number().describe('the mean over runs of each one\'s fullest request'),
  meanContextPct: z.number().describe('the mean over runs of each one\'s mean request'),
  success: z.number().nullable().describe('mean success over the scenarios every configuration ran (see successDefinition); null when there are none'),
  paretoFront: z.boolean().describe('no other configuration is both cheaper and more successful'),
  recovery: z
    .strictObject({
      ...RECOVERY,
      runs: count().describe('its reactive runs'),
      totalSteps: count().describe('the recorded turns of those runs (rereads / totalSteps: the extra steps)'),
    })
    .nullable()
    .describe('reactive replay: its runs\' re-reads and references, summed; null when replayed forced'),
});

const RUN = z.strictObject({
  runId: z.string().describe('the run\'s id in the results database'),
  batchId: z.string().describe('its batch'),
  scenarioId: z.string().describe('the scenario replayed'),
  scenarioGroup: z.string().describe('the folder the scenario came from'),
  outcome: z.string().nullable().describe('the recorded task\'s result (resolved, unresolved); null when unknown'),
  configuration: z.string().describe('its configuration\'s label (configurations[].configuration)'),
  strategy: z.string().describe('the strategy or preset selected'),
  strategySource: z
    .strictObject({
      file: z.string().describe('the file, relative to the folder bench ran in'),
      digest: z.string().describe('the first 12 hex characters of the sha256 of its source'),
    })
    .nullable()
    .describe('an outside strategy (--strategy ./x.ts): its file and source digest; null for a built-in'),
  backend: z.string().describe('mock, or the live backend (ollama:chat:MODEL, openai:chat:MODEL)'),
  model: z.string().describe('the model whose window and prices it used'),
  window: count().describe('the context window in tokens'),
  params: z.record(z.string(), PARAM_VALUE).describe('every parameter of its strategy, by name'),
  status: z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]).describe('how it ended'),
  steps: count().describe('agent steps replayed'),
  inputTokens: count().describe('billed input tokens, auxiliary requests included'),
  outputTokens: count().describe('completion tokens'),
  overheadTokens: count().describe('prompt and completion tokens of summary and checkpoint requests'),
  cachedInputTokens: nullableCount().describe('prompt-cache hits; null when a live provider reported none'),
  peakContextPct: z.number().describe('the fullest request as a fraction of the window'),
  probesPassed: count().describe('probes answered from the context'),
  probesTotal: count().describe('probes asked'),
  referencePresent: nullableCount().describe('recorded references still in the context when used; null when the scenario records none'),
  referenceTotal: nullableCount().describe('recorded references used; null when the scenario records none'),
  rereads: nullableCount().describe('reactive replay: the agent\'s re-read requests; null when replayed forced'),
  rereadInputTokens: nullableCount().describe('reactive replay: their prompt tokens; null when replayed forced'),
  costUsd: z.number().nullable().describe('dollars at the price model\'s list prices; null when its price is unknown'),
  replay: z.string().describe('"forced" (teacher forcing), or "reactive" with its caps'),
  recovery: z.strictObject(RECOVERY).nullable().describe('reactive replay: its re-reads and how its references were held; null when replayed forced'),
  failedStep: nullableCount().describe('the step it failed at (a truncated run: the first truncated step); null when it completed'),
  failure: z.string().nullable().describe('why it failed; null when it completed'),
  totalSteps: count().describe('agent steps the scenario holds'),
  sessions: count().describe('context windows used'),
  restarts: count().describe('sessions restarted'),
  llmCalls: count().describe('requests sent, auxiliary ones included'),
  meanContextPct: z.number().describe('the mean request as a fraction of the window'),
  success: z.number().describe('0 when it did not complete, else the share of what it had to keep that it kept'),
});

export const RUN_DOCUMENT = z
  .strictObject({
    ...documentHeader(['run', 'sweep'], RUN_JSON_FORMAT),
    generatedAt: z.string().describe('when the command finished (ISO 8601)'),
    exitCode: z
      .union([z.literal(EXIT_CODES.ok), z.literal(EXIT_CODES.runErrors), z.literal(EXIT_CODES.interrupted), z.literal(EXIT_CODES.terminated)])
      .describe(
        `the command's exit code: ${EXIT_CODES.ok} success, ${EXIT_CODES.runErrors} some runs ended with status error, ${EXIT_CODES.interrupted} or ${EXIT_CODES.terminated} stopped by Ctrl-C or SIGTERM (the runs here are those that finished)`,
      ),
    interrupted: z.boolean().describe('Ctrl-C or SIGTERM stopped the matrix: the same command with --resume runs the rest'),
    database: z.string().describe('the results database (absolute path)'),
    report: z.string().nullable().describe('the HTML report written (absolute path); null with --no-report'),
    batch: z
      .strictObject({
        batchId: z.string().describe('the batch the runs are stored under'),
        createdAt: z.string().describe('when it was started (ISO 8601)'),
        command: z.string().describe('the command line that started it'),
        version: z.string().describe('the ctxbench version that started it'),
        gitSha: z.string().nullable().describe('the ctxbench commit, when run from a git checkout (-dirty with local changes)'),
      })
      .nullable()
      .describe('the batch; null when no run was stored'),
    shard: z
      .strictObject({
        index: count().describe('this shard, from 1'),
        count: count().describe('the shards of the matrix'),
        runs: count().describe('the matrix\'s runs this shard owns'),
        matrixRuns: count().describe('the runs of the whole matrix'),
      })
      .nullable()
      .describe('with --shard; null otherwise'),
    resumed: z
      .strictObject({
        kept: count().describe('finished runs the batch already held: kept'),
        ran: count().describe('runs run now'),
        redone: count().describe('of those, runs a backend error had ended: run again'),
      })
      .nullable()
      .describe('with --resume, when it continued a batch; null otherwise'),
    calibrationFile: z.string().nullable().describe('the calibration file written (--save-calibration; absolute path); null without it'),
    calibration: z
      .array(
        z.strictObject({
          model: z.string().describe('the model it scales counts for'),
          encoding: z.string().describe('the tokenizer it scales'),
          factor: z.number().describe('local counts are multiplied by it'),
          overhead: z.number().describe('tokens added to every request (0: the factor alone)'),
          source: z
            .enum(CALIBRATION_SOURCES)
            .describe("fitted on these scenarios' recorded usage, built in (fitted on the shared trajectories), or from the --calibration file"),
          samples: count().describe('recorded requests the errors are over: fitted on them, or a stored one checked on them; 0 when none'),
          scenarios: count().describe('the scenarios those requests came from'),
          before: ERRORS.describe('the uncalibrated counts\' error on those requests; null without any'),
          after: ERRORS.describe('the calibrated counts\' error on those requests (in sample when fitted); null without any'),
          outOfSample: ERRORS.describe('fitted on two scenarios or more: the error on each scenario by a fit on the others; null otherwise'),
          warning: z.string().nullable().describe(`its error is above ${CALIBRATION_WARNING_PCT}%: what the warning line says (also a note, and a line on stderr); null otherwise`),
        }),
      )
      .describe('the token calibration the runs counted with, one per model (the Token calibration lines); empty with --no-calibrate'),
    usage: z
      .strictObject({
        encoding: z.string().describe('the tokenizer'),
        calibrated: z.boolean().describe('counts were calibrated'),
        steps: count().describe('raw replay steps compared'),
        scenarios: count().describe('scenarios they came from'),
        ...PCT_ERRORS.shape,
      })
      .nullable()
      .describe('replayed token counts against the provider usage the scenarios recorded (raw runs only); null without such data'),
    cache: z
      .strictObject({
        dir: z.string().describe('the cache folder (absolute path)'),
        hits: count().describe('requests answered from it'),
        sent: count().describe('requests sent to the server'),
      })
      .nullable()
      .describe('live runs: the record/replay cache; null for the mock or with --no-cache'),
    notes: z.array(z.string()).describe('what the backends assumed (the mock\'s recall, summary length and seed; a live mode)'),
    recommended: z
      .strictObject({
        configuration: z.string().nullable().describe('the recommended default\'s label; null when nothing can be recommended'),
        rule: z.string().describe('how it was picked, with the numbers'),
        costAxis: z.enum(['dollars', 'billed input tokens']).describe('what cost means: dollars, or tokens when some run has no price or all ran on a local model'),
        note: z.string().describe('scenarios left out so every configuration is compared on the same ones; empty when none'),
      })
      .describe('the cheapest configuration within 1 percentage point of the best success'),
    successDefinition: z.string().describe('how a run\'s and a configuration\'s success are computed'),
    configurations: z.array(CONFIGURATION).describe('per run configuration (the tables\' rows), in table order'),
    runs: z.array(RUN).describe('every run of the batch, in matrix order'),
  })
  .describe('bench run --json and bench sweep --json: the batch, its totals and every run');

export type RunDocument = z.infer<typeof RUN_DOCUMENT>;

/** The absolute paths a matrix command wrote: the results database, and the report and calibration file when asked for. */
export interface WrittenFiles {
  readonly database: string;
  readonly report: string | undefined;
  readonly calibration: string | undefined;
}

/** What a matrix command knows when it ends, beside its runs. */
export interface MatrixEnd {
  readonly kind: RunDocument['kind'];
  readonly exitCode: RunDocument['exitCode'];
  readonly result: BatchResult;
  /** How the batch started (undefined when it never did). */
  readonly start: BatchStart | undefined;
  readonly shard: Shard | undefined;
  /** --resume was given. */
  readonly resume: boolean;
  readonly cache: RunDocument['cache'];
  readonly files: WrittenFiles;
  readonly generatedAt: Date;
}

export function runDocument(end: MatrixEnd): RunDocument {
  const { result, start, files } = end;
  const usage = usageAgreement(result.runs);
  return {
    kind: end.kind,
    format: RUN_JSON_FORMAT,
    ctxbench: VERSION,
    generatedAt: end.generatedAt.toISOString(),
    exitCode: end.exitCode,
    interrupted: result.interrupted,
    database: files.database,
    report: files.report ?? null,
    batch: result.batch ? { batchId: result.batch.batchId, createdAt: result.batch.createdAt.toISOString(), command: result.batch.command, version: result.batch.version, gitSha: result.batch.gitSha ?? null } : null,
    shard: end.shard && start ? { index: end.shard.index, count: end.shard.count, runs: start.ownJobs, matrixRuns: start.matrixJobs } : null,
    resumed: end.resume && start && !start.isNew ? { kept: start.kept, ran: start.toRun, redone: start.redo } : null,
    calibrationFile: files.calibration ?? null,
    calibration: result.calibration.map((c) => ({
      model: c.model,
      encoding: c.encoding,
      factor: c.factor,
      overhead: c.overhead,
      source: c.source,
      samples: c.samples,
      scenarios: c.scenarios,
      before: c.before ?? null,
      after: c.after ?? null,
      outOfSample: c.outOfSample ?? null,
      warning: calibrationWarning(c) ?? null,
    })),
    usage: usage ?? null,
    cache: end.cache,
    ...reportSummary(result.runs, result.calibration),
  };
}
