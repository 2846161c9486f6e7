/**
 * `bench check --json`: the gate's comparison as data: the verdict and its exit code, what was
 * compared against what, the regressions and improvements, and what was not compared and why.
 */
import { z } from 'zod';
import type { Baseline } from '../../gate/baseline.js';
import { passed, type Comparison, type Finding } from '../../gate/compare.js';
import { verdictLine, type GateOutcome } from '../../gate/output.js';
import { COMPARED_METRICS, unitOf, type ComparedMetric } from '../../metrics/run-metrics.js';
import { checkExitCode, EXIT_CODES } from '../exit-codes.js';
import { VERSION } from '../paths.js';
import { count, documentHeader } from './document.js';

/** Bumped when a field changes meaning or goes away. */
export const CHECK_JSON_FORMAT = 1;

const VALUE = z.union([z.number(), z.string()]);

const FINDING = z.strictObject({
  key: z.string().describe('the run: strategy|scenarioId'),
  metric: z.enum(COMPARED_METRICS as [ComparedMetric, ...ComparedMetric[]]).describe('what got worse or better'),
  unit: z.enum(['status', 'count', 'fraction', 'usd']).describe('how to read the values: a run status, a count, a fraction (0.5 = 50%), dollars'),
  baseline: VALUE.describe('the baseline\'s value (a run status for status)'),
  candidate: VALUE.describe('the checked batch\'s value; `"none"` for a metric it lost (the baseline has one)'),
  delta: z.number().nullable().describe('candidate - baseline; null for a status and a lost metric'),
});

export const CHECK_DOCUMENT = z
  .strictObject({
    ...documentHeader(['check'], CHECK_JSON_FORMAT),
    exitCode: z
      .union([z.literal(EXIT_CODES.ok), z.literal(EXIT_CODES.regressions), z.literal(EXIT_CODES.incomparable)])
      .describe(`the command's exit code: ${EXIT_CODES.ok} passed, ${EXIT_CODES.regressions} regressions, ${EXIT_CODES.incomparable} not like with like (and no regression)`),
    passed: z.boolean().describe('no regression, and everything the baseline holds was compared (or allowed not to be)'),
    fails: z
      .strictObject({
        regressions: z.boolean().describe('some run got worse beyond its tolerance'),
        missingRuns: z.boolean().describe('baseline runs are missing from the batch (and --allow-missing was not given, or none is there)'),
        changedConfigurations: z.boolean().describe('runs are configured otherwise than in the baseline (and --accept-changes was not given)'),
      })
      .describe('what fails the gate'),
    verdict: z.string().nullable().describe('the last line the text output prints (FAIL: ... with the fix for each failure, or Accepted: ...); null for a plain pass'),
    baseline: z
      .strictObject({
        file: z.string().describe('as --baseline named it'),
        format: count().describe('the baseline file\'s format (1 keeps no configurations)'),
        created: z.string().describe('when it was written'),
        version: z.string().describe('the ctxbench version that ran its batch'),
        command: z.string().describe('the command line of its batch'),
        runs: count().describe('its runs'),
      })
      .describe('what the batch was checked against'),
    candidate: z
      .strictObject({
        database: z.string().describe('as --db named it'),
        batchId: z.string().describe('the batch checked (--batch, else the latest)'),
        runs: count().describe('its runs'),
      })
      .describe('what was checked'),
    tolerances: z.string().nullable().describe('the tolerance file read (--tolerances, or one beside the baseline); null when none'),
    compared: count().describe('runs compared metric by metric'),
    configurationKnown: z.boolean().describe('false when the baseline keeps no configurations (format 1): a changed setting cannot be named'),
    regressions: z.array(FINDING).describe('each run and metric that got worse beyond its tolerance; a changed status alone when it changed'),
    improvements: z.array(FINDING).describe('each run and metric that got better beyond its tolerance'),
    missingFromCandidate: z.array(z.string()).describe('baseline runs the batch lacks'),
    newInCandidate: z.array(z.string()).describe('runs of the batch the baseline lacks: not compared'),
    configurationChanged: z
      .array(
        z.strictObject({
          key: z.string().describe('the run: strategy|scenarioId'),
          changes: z.array(z.string()).describe('each setting that differs: name, baseline value -> batch value'),
        }),
      )
      .describe('runs configured otherwise than in the baseline: named, not compared'),
    update: z.string().describe('the command that makes the checked batch the baseline'),
  })
  .describe('bench check --json: the batch against the baseline, run by run and metric by metric');

export type CheckDocument = z.infer<typeof CHECK_DOCUMENT>;

/** What the check was about: the baseline file and the batch of the database. */
export interface CheckInputs {
  readonly baselineFile: string;
  readonly baseline: Baseline;
  readonly database: string;
  readonly batchId: string;
  readonly candidateRuns: number;
  readonly tolerancesFile: string | undefined;
}

const findingOf = ({ key, metric, baseline, candidate, delta }: Finding): z.infer<typeof FINDING> => ({ key, metric, unit: unitOf(metric), baseline, candidate, delta });

/** The document of a check; its exit code is the one the command ends with. */
export function checkDocument(c: Comparison, gate: GateOutcome & { readonly update: string }, inputs: CheckInputs): CheckDocument {
  const { verdict } = gate;
  const { baseline } = inputs;
  return {
    kind: 'check',
    format: CHECK_JSON_FORMAT,
    ctxbench: VERSION,
    exitCode: checkExitCode(verdict),
    passed: passed(verdict),
    fails: { regressions: verdict.regressed, missingRuns: verdict.missingFails, changedConfigurations: verdict.changesFail },
    verdict: verdictLine(c, gate) ?? null,
    baseline: { file: inputs.baselineFile, format: baseline.format, created: baseline.created, version: baseline.version, command: baseline.command, runs: c.baselineRuns },
    candidate: { database: inputs.database, batchId: inputs.batchId, runs: inputs.candidateRuns },
    tolerances: inputs.tolerancesFile ?? null,
    compared: c.compared,
    configurationKnown: c.configurationKnown,
    regressions: c.regressions.map(findingOf),
    improvements: c.improvements.map(findingOf),
    missingFromCandidate: [...c.missingFromCandidate],
    newInCandidate: [...c.newInCandidate],
    configurationChanged: c.changed.map(({ key, changes }) => ({ key, changes: [...changes] })),
    update: gate.update,
  };
}
