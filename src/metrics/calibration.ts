/**
 * Token-count calibration: per model (as the registry resolves it) and tokenizer, a linear model that
 * brings local counts (a stand-in tokenizer plus OpenAI's chat framing and the tool definitions) in
 * line with what the provider billed (its own tokenizer, chat template and tool prompt), fitted on the
 * provider usage recorded scenarios carry.
 *
 * Each recorded assistant turn's `usage.promptTokens` is the size of the request that produced it: the
 * history before that turn, with the tool definitions. Comparing it with the local count of the same
 * request gives one sample. Two models are fitted over the samples pooled across scenarios (every
 * request weighs the same, as in `compareUsage`): a factor (provider = factor x local), and an overhead
 * plus a factor (provider = overhead + factor x local: a fixed cost per request, such as a tool-use
 * system prompt, which a factor alone gets wrong on small requests). Each is scored out of sample, the
 * requests of every scenario estimated by the model fitted on other scenarios, and the better one there
 * is kept. Pure: callers load scenarios and create counters.
 */
import { resolveModel } from '../core/models.js';
import { contextCounting, PER_CONTEXT_TOKENS, withTools, type Encoding, type TokenCounter } from '../core/tokens.js';
import type { Message } from '../core/messages.js';
import type { CalibrationRecord, PctErrors } from '../core/run-records.js';
import type { Scenario } from '../scenarios/scenario.js';

/** One recorded request: the local count of what it sent, and what the provider billed. */
export interface UsageSample {
  /** Index in `scenario.messages` of the assistant turn the request produced. */
  readonly index: number;
  readonly local: number;
  readonly recorded: number;
}

/** The provider's count of a request, estimated from the local one: overhead + factor x local. */
export interface CalibrationModel {
  readonly factor: number;
  /** Tokens per request on top of the scaled count (0: the factor alone). */
  readonly overhead: number;
}

export interface Calibration extends CalibrationModel {
  /** Recorded requests it was fitted on, and the scenarios they came from. */
  readonly samples: number;
  readonly scenarios: number;
  /** Errors of the raw local counts. */
  readonly before: PctErrors;
  /** Errors of the calibrated counts on the requests it was fitted on (in sample; unrounded). */
  readonly after: PctErrors;
  /**
   * Errors of the calibrated counts out of sample: each scenario's requests estimated by the model
   * fitted on other scenarios (crossValidate). Undefined with fewer than two scenarios.
   */
  readonly outOfSample?: PctErrors | undefined;
}

/** Above this mean absolute error (percent), calibrated counts get a warning wherever they are shown. */
export const CALIBRATION_WARNING_PCT = 5;

/** "x1.170", or "x1.234 + 510 tokens per request". */
export function calibrationModelText({ factor, overhead }: CalibrationModel): string {
  return `x${factor.toFixed(3)}${overhead > 0 ? ` + ${Math.round(overhead)} tokens per request` : ''}`;
}

/**
 * The error a batch's calibration is judged by, and how it was measured: out of sample when it could
 * be (fitted on two scenarios or more); else on the recorded requests it was fitted on (in sample) or,
 * for a stored one, checked on. Undefined when no recorded request measured it.
 */
export function calibrationError(c: CalibrationRecord): { readonly errors: PctErrors; readonly how: string } | undefined {
  if (c.outOfSample) return { errors: c.outOfSample, how: 'out of sample' };
  if (!c.after) return undefined;
  return { errors: c.after, how: c.source === 'fitted' ? 'in sample' : "on these scenarios' recorded requests" };
}

/**
 * A warning when the calibrated counts of a model are off by more than CALIBRATION_WARNING_PCT:
 * "the token calibration of claude-3-5-sonnet is off by 7.3% out of sample (above 5%)".
 */
export function calibrationWarning(c: CalibrationRecord): string | undefined {
  const error = calibrationError(c);
  if (error === undefined || error.errors.meanAbsPctError <= CALIBRATION_WARNING_PCT) return undefined;
  return `the token calibration of ${c.model} is off by ${error.errors.meanAbsPctError.toFixed(1)}% ${error.how} (above ${CALIBRATION_WARNING_PCT}%)`;
}

/**
 * One sample per assistant turn with a recorded prompt size: the local count of the request before it
 * (the history, and the scenario's tool definitions). Linear: a running sum of the prefix's message
 * counts plus the request's fixed part (its count of an empty context), so it equals
 * `withTools(counter, scenario.tools).countContext(messages.slice(0, index))`.
 */
export function usageSamples(scenario: Scenario, counter: TokenCounter): UsageSample[] {
  const samples: UsageSample[] = [];
  let local = withTools(counter, scenario.tools).countContext([]);
  scenario.messages.forEach((message, index) => {
    const recorded = message.role === 'assistant' ? message.usage?.promptTokens : undefined;
    if (recorded !== undefined && recorded > 0) samples.push({ index, local, recorded });
    local += counter.countMessage(message);
  });
  return samples;
}

/** Errors of overhead + factor x local against recorded, in percent; zeros when there are no samples. */
export function pctErrors(samples: readonly UsageSample[], factor = 1, overhead = 0): PctErrors {
  return errorsOf(samples.map((sample) => ({ sample, estimate: overhead + factor * sample.local })));
}

function errorsOf(estimates: readonly { sample: UsageSample; estimate: number }[]): PctErrors {
  if (estimates.length === 0) return { meanAbsPctError: 0, meanPctError: 0 };
  let abs = 0;
  let signed = 0;
  for (const { sample, estimate } of estimates) {
    const error = (estimate - sample.recorded) / sample.recorded;
    abs += Math.abs(error);
    signed += error;
  }
  return { meanAbsPctError: (abs / estimates.length) * 100, meanPctError: (signed / estimates.length) * 100 };
}

/**
 * The factor that, with `overhead` (default 0), minimizes the mean absolute percentage error, exactly.
 *
 * MAPE(f) = mean |a + f*l - r| / r = mean (l/r) * |f - (r-a)/l|: convex and piecewise linear in f, so
 * its minimum is the weighted median of (r-a)/l with weights l/r. (A least-squares fit of the relative
 * error minimizes the squared error instead and lets outliers pull it.) Samples whose local count is 0
 * carry no information about a factor and are left out; undefined when none is left.
 */
export function fitFactor(samples: readonly UsageSample[], overhead = 0): number | undefined {
  const usable = samples.filter((s) => s.recorded > 0 && s.local > 0);
  if (usable.length === 0) return undefined;
  return weightedMedian(usable.map((s) => ({ value: (s.recorded - overhead) / s.local, weight: s.local / s.recorded })));
}

/**
 * The whole-token overhead and the factor that minimize the mean absolute percentage error together.
 * MAPE(a, f) is convex in both, so its minimum over f for each a is convex in a: a ternary search over
 * the whole numbers from 0 (no overhead) to the smallest request (a larger fixed cost would exceed a
 * request) finds it, each a costing one weighted median.
 */
export function fitOverheadAndFactor(samples: readonly UsageSample[]): CalibrationModel | undefined {
  const usable = samples.filter((s) => s.recorded > 0 && s.local > 0);
  if (usable.length === 0) return undefined;
  const error = (overhead: number): number => {
    const factor = fitFactor(usable, overhead)!;
    return pctErrors(usable, factor, overhead).meanAbsPctError;
  };
  let [low, high] = [0, Math.floor(Math.min(...usable.map((s) => s.recorded)))];
  while (high - low > 2) {
    const third = Math.floor((high - low) / 3);
    const [a, b] = [low + third, high - third];
    // Equal values of a convex function bracket a minimum between them.
    if (error(a) < error(b)) high = b;
    else if (error(a) > error(b)) low = a;
    else [low, high] = [a, b];
  }
  let overhead = low;
  for (let a = low + 1; a <= high; a++) if (error(a) < error(overhead)) overhead = a;
  return { factor: fitFactor(usable, overhead)!, overhead };
}

const FITS: readonly ((samples: readonly UsageSample[]) => CalibrationModel | undefined)[] = [
  (samples) => {
    const factor = fitFactor(samples);
    return factor === undefined ? undefined : { factor, overhead: 0 };
  },
  fitOverheadAndFactor,
];

/**
 * Fits the calibration of one model on the recorded requests of its scenarios (one list per scenario):
 * the factor alone, and the overhead with a factor, each scored out of sample (crossValidate);
 * the overhead model is kept only when it does better there. With a single scenario nothing can be
 * scored out of sample, and the factor alone (one parameter) is kept. Undefined without usable samples.
 */
export function fitCalibration(groups: readonly (readonly UsageSample[])[]): Calibration | undefined {
  const scenarios = groups.map((g) => g.filter((s) => s.recorded > 0 && s.local > 0)).filter((g) => g.length > 0);
  const pooled = scenarios.flat();
  if (pooled.length === 0) return undefined;
  const [factorOnly, withOverhead] = FITS.map((fit) => ({ model: fit(pooled)!, outOfSample: scenarios.length > 1 ? crossValidate(scenarios, fit) : undefined }));
  const better = (a?: PctErrors, b?: PctErrors): boolean => a !== undefined && b !== undefined && a.meanAbsPctError < b.meanAbsPctError - 1e-9;
  const chosen = better(withOverhead!.outOfSample, factorOnly!.outOfSample) ? withOverhead! : factorOnly!;
  const { factor, overhead } = chosen.model;
  return { factor, overhead, samples: pooled.length, scenarios: scenarios.length, before: pctErrors(pooled), after: pctErrors(pooled, factor, overhead), outOfSample: chosen.outOfSample };
}

/** Scenarios are split into at most this many folds to be scored out of sample: one scenario each up to 10. */
export const CALIBRATION_FOLDS = 10;

/**
 * Every scenario's requests estimated by `fit` on the requests of the scenarios outside its fold:
 * scenario i is in fold i mod k, k = min(scenarios, CALIBRATION_FOLDS) (leave one scenario out when
 * there are 10 or fewer; k-fold by scenario beyond, so the cost stays k fits whatever the count).
 */
function crossValidate(scenarios: readonly (readonly UsageSample[])[], fit: (samples: readonly UsageSample[]) => CalibrationModel | undefined): PctErrors {
  const folds = Math.min(scenarios.length, CALIBRATION_FOLDS);
  const estimates: { sample: UsageSample; estimate: number }[] = [];
  for (let fold = 0; fold < folds; fold++) {
    const model = fit(scenarios.filter((_, i) => i % folds !== fold).flat())!;
    for (const own of scenarios.filter((_, i) => i % folds === fold)) {
      for (const sample of own) estimates.push({ sample, estimate: model.overhead + model.factor * sample.local });
    }
  }
  return errorsOf(estimates);
}

/**
 * The smallest value at which the cumulative weight reaches half the total; when it reaches exactly
 * half, every value up to the next one is optimal too, and the midpoint is returned (as a median of an
 * even count is).
 */
function weightedMedian(points: { value: number; weight: number }[]): number {
  const sorted = [...points].sort((a, b) => a.value - b.value);
  const half = sorted.reduce((sum, p) => sum + p.weight, 0) / 2;
  let cumulative = 0;
  for (let i = 0; i < sorted.length; i++) {
    cumulative += sorted[i]!.weight;
    if (cumulative < half) continue;
    const next = sorted[i + 1];
    return cumulative === half && next ? (sorted[i]!.value + next.value) / 2 : sorted[i]!.value;
  }
  return sorted.at(-1)!.value; // unreachable: the weights sum to 2 * half
}

/**
 * Calibrations are per model and tokenizer: "claude-3-5-sonnet|o200k_base". The model is the one the
 * registry resolves the name to (routing prefixes, Bedrock ids and dated snapshots are one model), or
 * the normalized name of a model it does not know.
 */
export function calibrationKey(model: string, encoding: Encoding): string {
  return `${resolveModel(model).name}|${encoding}`;
}

/** Fits one calibration per model and encoding over the scenarios; models without recorded usage get none. */
export function fitByModel(scenarios: readonly Scenario[], counter: TokenCounter): Map<string, Calibration> {
  const groups = new Map<string, UsageSample[][]>();
  for (const scenario of scenarios) {
    const key = calibrationKey(scenario.model.name, counter.encoding);
    groups.set(key, [...(groups.get(key) ?? []), usageSamples(scenario, counter)]);
  }
  const out = new Map<string, Calibration>();
  for (const [key, samples] of groups) {
    const fit = fitCalibration(samples);
    if (fit) out.set(key, fit);
  }
  return out;
}

/** What a stored calibration was fitted on: requests, scenarios, and its mean absolute errors (percent). */
export interface FitSummary {
  readonly requests: number;
  readonly scenarios: number;
  readonly inSample: number;
  readonly outOfSample?: number | undefined;
}

/** A calibration fitted earlier: built in (below) or read from a --calibration file. */
export interface StoredCalibration extends CalibrationModel {
  /** The model as calibrationKey resolves it. */
  readonly model: string;
  readonly encoding: Encoding;
  readonly fitted?: FitSummary | undefined;
}

/**
 * Calibrations fitted on every recorded trajectory in ../shared/data: the 18 mini-swe-agent + Gemini 3
 * Pro runs (735 requests) and the 25 OpenHands + Claude 3.5 Sonnet runs (their last calls: one request
 * each), per tokenizer. `npx tsx scripts/calibration-figures.ts` prints them; calibration.test.ts
 * re-fits them and checks these. Used for a model whose scenarios recorded no usage.
 */
export const BUILT_IN_CALIBRATIONS: readonly StoredCalibration[] = Object.freeze([
  { model: 'gemini-3-pro-preview', encoding: 'o200k_base', factor: 1.1477, overhead: 0, fitted: { requests: 735, scenarios: 18, inSample: 2.51, outOfSample: 2.63 } },
  { model: 'gemini-3-pro-preview', encoding: 'cl100k_base', factor: 1.1461, overhead: 0, fitted: { requests: 735, scenarios: 18, inSample: 2.76, outOfSample: 2.98 } },
  { model: 'gemini-3-pro-preview', encoding: 'chars4', factor: 1.1461, overhead: 0, fitted: { requests: 735, scenarios: 18, inSample: 5.73, outOfSample: 6.3 } },
  { model: 'claude-3-5-sonnet', encoding: 'o200k_base', factor: 1.2331, overhead: 519, fitted: { requests: 25, scenarios: 25, inSample: 1.81, outOfSample: 2.08 } },
  { model: 'claude-3-5-sonnet', encoding: 'cl100k_base', factor: 1.25, overhead: 463, fitted: { requests: 25, scenarios: 25, inSample: 2.34, outOfSample: 2.66 } },
  { model: 'claude-3-5-sonnet', encoding: 'chars4', factor: 1.3053, overhead: 538, fitted: { requests: 25, scenarios: 25, inSample: 3.3, outOfSample: 3.55 } },
] satisfies StoredCalibration[]);

/** The stored calibration of a model and tokenizer, if there is one. */
export function storedCalibration(model: string, encoding: Encoding, stored: readonly StoredCalibration[] = BUILT_IN_CALIBRATIONS): StoredCalibration | undefined {
  const key = calibrationKey(model, encoding);
  return stored.find((c) => calibrationKey(c.model, c.encoding) === key);
}

/**
 * A counter whose message counts are the base counter's times `factor`, rounded per message, and
 * whose requests cost `overhead` more (rounded; the reply priming stays as is): countContext =
 * PER_CONTEXT_TOKENS + overhead + the sum of countMessage. It shares the base counter's cache and
 * stats: each message is still tokenized once.
 */
export function scaledCounter(counter: TokenCounter, factor: number, overhead = 0): TokenCounter {
  if (!Number.isFinite(factor) || factor <= 0) throw new RangeError(`calibration factor must be a positive number, got ${factor}`);
  if (!Number.isFinite(overhead) || overhead < 0) throw new RangeError(`calibration overhead must be a number >= 0, got ${overhead}`);
  if (factor === 1 && overhead === 0) return counter;
  const countMessage = (message: Message): number => Math.round(counter.countMessage(message) * factor);
  return {
    encoding: counter.encoding,
    countText: (text) => Math.round(counter.countText(text) * factor),
    countMessage,
    ...contextCounting(countMessage, PER_CONTEXT_TOKENS + Math.round(overhead)),
    toolTokens: 0,
    stats: counter.stats,
  };
}

/** The counter to replay `model` with: calibrated by its stored calibration for this tokenizer, else unchanged. */
export function calibratedCounter(counter: TokenCounter, model: string, stored: readonly StoredCalibration[] = BUILT_IN_CALIBRATIONS): TokenCounter {
  const calibration = storedCalibration(model, counter.encoding, stored);
  return calibration === undefined ? counter : scaledCounter(counter, calibration.factor, calibration.overhead);
}
