/**
 * The report's header: what was run (batches, ctxbench version and commit, scenarios, strategies,
 * backends, models, windows, seeds, calibration, prices) and what the backends assumed.
 */
import { describeMock } from '../llm/mock.js';
import { isLocalPrice, priceFor } from '../metrics/cost.js';
import { LOCAL_PRICE_MODEL } from '../core/models.js';
import type { BatchInfo, CalibrationRecord, RunResult } from '../core/run-records.js';
import { calibrationError, calibrationModelText, calibrationWarning, type CalibrationModel } from '../metrics/calibration.js';
import type { ParamValue, Params } from '../core/params.js';
import { replayText } from '../gate/configuration.js';
import { strategyName } from './columns.js';
import { runLabel } from '../core/run-names.js';
import { distinct, fmtInt, sum, usd } from './format.js';

export interface Fact {
  readonly label: string;
  readonly value: string;
}

export const utcMinute = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function facts(runs: readonly RunResult[], batches: readonly BatchInfo[], fallbackVersion: string, calibration: readonly CalibrationRecord[] = []): Fact[] {
  const list = (pick: (r: RunResult) => string): string => distinct(runs.map(pick)).join(', ') || '—';
  const mockSeeds = distinct(runs.filter((r) => r.config.backend === 'mock').map((r) => r.config.backendOptions['seed'] ?? 'unrecorded'));
  return [
    ...batchFacts(batches, fallbackVersion),
    { label: 'Runs', value: fmtInt(runs.length) },
    { label: 'Scenarios', value: fmtInt(distinct(runs.map((r) => r.config.scenarioId)).length) },
    { label: 'Strategies', value: list(strategyName) },
    { label: 'Backends', value: list((r) => r.config.backend) },
    { label: 'Models', value: list((r) => r.config.model) },
    { label: 'Windows', value: list((r) => fmtInt(r.config.window)) },
    ...(mockSeeds.length ? [{ label: 'Mock seeds', value: mockSeeds.map(String).join(', ') }] : []),
    { label: 'Encodings', value: list((r) => r.config.encoding) },
    { label: 'Token calibration', value: calibrationFact(runs, calibration) },
    { label: 'Prices', value: priceFact(runs) },
    ...truncatedFact(runs),
    ...usageFact(runs),
  ];
}

/** How many runs the provider truncated (status truncated): their numbers are not what the strategy sent. */
function truncatedFact(runs: readonly RunResult[]): Fact[] {
  const truncated = runs.filter((r) => r.summary.status === 'truncated').length;
  if (truncated === 0) return [];
  const value = `${fmtInt(truncated)} of ${fmtInt(runs.length)} runs: the provider counted far fewer prompt tokens than were sent (it cut the prompts: Ollama past num_ctx), so the model did not see what the strategy sent`;
  return [{ label: 'Truncated', value }];
}

/** When and with which ctxbench (version, commit) the runs were made, and the command of a single batch. */
function batchFacts(batches: readonly BatchInfo[], fallbackVersion: string): Fact[] {
  const builds = distinct(batches.map((b) => (b.gitSha ? `${b.version} (git ${b.gitSha})` : b.version)));
  const version: Fact = { label: 'ctxbench', value: builds.join(', ') || fallbackVersion };
  if (batches.length === 0) return [version];
  if (batches.length === 1) {
    const [batch] = batches as [BatchInfo];
    return [{ label: 'Run', value: `${utcMinute(batch.createdAt)} · ${batch.command}` }, version];
  }
  const first = utcMinute(batches[0]!.createdAt);
  const last = utcMinute(batches.at(-1)!.createdAt);
  return [{ label: 'Batches', value: `${fmtInt(batches.length)}, ${first} to ${last}` }, version];
}

/**
 * Each calibration the batches used, with where it came from and its error (out of sample where it
 * could be measured so), as `bench run` prints it; without the batches' records, the factor and
 * overhead each model's runs recorded, or "uncalibrated"; "none" when no run was calibrated.
 */
function calibrationFact(runs: readonly RunResult[], calibration: readonly CalibrationRecord[]): string {
  if (runs.length === 0) return '—';
  if (runs.every((r) => r.config.calibrationFactor === undefined)) return 'none (local tokenizer counts as they are)';
  // With --batch all, batches that fitted the same calibration list it once.
  if (calibration.length > 0) return distinct(calibration.map(calibrationText)).join('; ');
  return distinct(runs.map((r) => r.config.model))
    .map((model) => {
      const own = runs.filter((r) => r.config.model === model);
      const models = distinct(own.map((r) => (r.config.calibrationFactor === undefined ? 'uncalibrated' : shown({ factor: r.config.calibrationFactor, overhead: r.config.calibrationOverhead ?? 0 }))));
      return `${model} ${models.join(' / ')}`;
    })
    .join(', ');
}

/** "claude-3-5-sonnet ×1.234 + 510 tokens per request (fitted on 25 requests of 22 scenarios; 2.2% off out of sample)". */
function calibrationText(c: CalibrationRecord): string {
  const error = calibrationError(c);
  const scenarios = `${fmtInt(c.scenarios)} scenario${c.scenarios === 1 ? '' : 's'}`;
  const origin = c.source === 'fitted' ? `fitted on ${fmtInt(c.samples)} requests of ${scenarios}` : c.source === 'file' ? 'from a calibration file' : 'built in';
  const off = error ? `; ${error.errors.meanAbsPctError.toFixed(1)}% off ${error.how}` : '';
  return `${c.model} ${shown(c)} (${origin}${off})`;
}

/** "×1.234 + 510 tokens per request": the page's multiplication sign. */
const shown = (model: CalibrationModel): string => calibrationModelText(model).replace(/^x/, '×');

/** A warning per calibration whose counts are off by more than 5%: the page shows it above everything else. */
export function calibrationNotes(calibration: readonly CalibrationRecord[]): string[] {
  return distinct(
    calibration.flatMap((c) => {
      const warning = calibrationWarning(c);
      return warning ? [`Warning: ${warning}: the token counts of its scenarios, and the thresholds they cross, are that uncertain.`] : [];
    }),
  );
}

/** Whose list prices the costs use, with the rates; which are local ($0); or that a cost is unknown. */
function priceFact(runs: readonly RunResult[]): string {
  const models = distinct(runs.map((r) => r.config.priceModel));
  const priced = models.filter((model) => runs.some((r) => r.config.priceModel === model && r.summary.costUsd !== undefined));
  const local = priced.filter(isLocalPrice);
  const rates = priced.filter((model) => !isLocalPrice(model)).map((model) => {
    const price = priceFor(model);
    return price ? `${model} ${usd(price.input)} / ${usd(price.cachedInput)} / ${usd(price.output)}` : model;
  });
  const parts = [
    ...(rates.length ? [`${rates.join(', ')} per 1M tokens of input / cached input / output`] : []),
    ...local.map((model) => (model === LOCAL_PRICE_MODEL ? 'local (a model on your own hardware): $0' : `${model} local: $0`)),
    ...models.filter((model) => !priced.includes(model)).map((model) => `${model} unknown (no cost)`),
  ];
  return parts.join('; ') || '—';
}

/**
 * How far local token counts are from the provider usage the scenarios recorded, as the terminal
 * summary states it: over the raw replays' steps (the recorded history sent unchanged), weighted by
 * compared steps; other strategies' runs when no raw run compared any.
 */
function usageFact(runs: readonly RunResult[]): Fact[] {
  const compared = runs.filter((r) => r.summary.usageComparison);
  const raw = compared.filter((r) => r.config.strategy === 'raw');
  const used = raw.length ? raw : compared;
  const steps = sum(used, (r) => r.summary.usageComparison!.comparedSteps);
  if (steps === 0) return [];
  // Already in percent (compareUsage multiplies by 100), unlike the context fractions.
  const error = sum(used, (r) => r.summary.usageComparison!.meanAbsPctError * r.summary.usageComparison!.comparedSteps) / steps;
  const calibrated = used.some((r) => r.config.calibrationFactor !== undefined) ? 'calibrated ' : '';
  return [
    {
      label: 'Token count error',
      value: `${error.toFixed(1)}% mean absolute vs recorded provider usage (${calibrated}${raw.length ? 'raw replay, ' : ''}${fmtInt(steps)} steps)`,
    },
  ];
}

const share = (part: number, whole: number): string => (part === whole ? '' : ` (${fmtInt(part)} of ${fmtInt(whole)} runs)`);

/**
 * What the report says above everything else: the runs that ended in an error (their numbers are no
 * result), the calibration warnings, then the backends' and the replay's assumptions.
 */
export function reportNotes(runs: readonly RunResult[], calibration: readonly CalibrationRecord[]): string[] {
  return [...errorNotes(runs), ...calibrationNotes(calibration), ...backendNotes(runs), ...replayNotes(runs)];
}

/** "Warning: 3 of 24 runs ended with an error ...": a configuration whose runs all errored shows only as "Other" in the tables. */
export function errorNotes(runs: readonly RunResult[]): string[] {
  const failed = runs.filter((r) => r.summary.status === 'error');
  if (failed.length === 0) return [];
  const first = failed[0]!;
  return [
    `Warning: ${fmtInt(failed.length)} of ${fmtInt(runs.length)} runs ended with an error, so their numbers are no result (the first: ${runLabel(first.config.strategy, first.config.variant)} on ${first.config.scenarioId}: ${first.summary.failure ?? 'no reason recorded'}); bench run --resume runs them again.`,
  ];
}

/** What a reactive replay adds to the teacher forcing every note assumes, when some runs were reactive. */
export function replayNotes(runs: readonly RunResult[]): string[] {
  const reactive = runs.filter((r) => r.config.replay);
  if (reactive.length === 0) return [];
  const caps = distinct(reactive.map((r) => replayText(r.config.replay)));
  return [
    `Reactive replay${share(reactive.length, runs.length)}: before each recorded turn, the agent re-reads what that turn uses and the context lost ` +
      '(an offloaded file through its pointer, else the recorded tool call again), as extra billed requests the strategy manages; ' +
      `what only a summary holds is trusted. ${caps.join('; ')}.`,
  ];
}

/** One note per backend setting: the mock's assumptions with its recall, summary length and seed; a live server's mode. */
export function backendNotes(runs: readonly RunResult[]): string[] {
  const groups = new Map<string, RunResult[]>();
  for (const run of runs) {
    const key = JSON.stringify([run.config.backend, run.config.backendOptions]);
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups.values()].map((own) => {
    const { backend, backendOptions } = own[0]!.config;
    const of = share(own.length, runs.length);
    if (backend === 'mock') {
      // Runs stored without the mock's settings say so rather than print "undefined".
      const settings: Record<string, ParamValue> = {};
      for (const key of ['recall', 'summaryTokens', 'seed']) settings[key] = backendOptions[key] ?? 'unrecorded';
      return describeMock(settings).replace(/^Mock LLM:/, `Mock LLM${of}:`);
    }
    return liveNote(backend, backendOptions, own, of);
  });
}

function liveNote(backend: string, options: Params, runs: readonly RunResult[], of: string): string {
  const parts: string[] = [];
  // The page names no URL (it is self-contained, and a reader shouldn't take one for a link): host and path only.
  if (typeof options['url'] === 'string') parts.push(`server ${options['url'].replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/$/, '')}`);
  if (options['live'] !== undefined) {
    parts.push(`live mode ${String(options['live'])}${options['live'] === 'measure' ? ' (one output token per agent step)' : ''}`);
  }
  const rest = Object.entries(options).filter(([k]) => !['url', 'live', 'model'].includes(k));
  if (rest.length) parts.push(rest.map(([k, v]) => `${k}=${String(v)}`).join(', '));
  const requests = sum(runs, (r) => r.steps.length);
  const cached = sum(runs, (r) => r.steps.filter((s) => s.cached === true).length);
  parts.push(`${fmtInt(cached)} of ${fmtInt(requests)} requests answered from the record/replay cache`);
  return `${backend}${of}: ${parts.join('; ')}.`;
}
