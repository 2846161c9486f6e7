/**
 * Token-count calibration: a per-model, per-tokenizer factor that brings local counts (a stand-in
 * tokenizer plus OpenAI's chat framing) in line with what the provider billed (its own tokenizer and
 * chat template), fitted from the provider usage recorded scenarios carry.
 *
 * Each recorded assistant turn's `usage.promptTokens` is the size of the request that produced it: the
 * history before that turn. Comparing it with the local count of the same history gives one sample;
 * the factor is fitted over samples pooled across scenarios (every request weighs the same, as in
 * `compareUsage`). Pure: callers load scenarios and create counters.
 */
import { normalizeModelName } from '../core/models.js';
import { contextCounting, type Encoding, type TokenCounter } from '../core/tokens.js';
import type { Message } from '../core/messages.js';
import type { PctErrors } from '../core/run-records.js';
import type { Scenario } from '../scenarios/scenario.js';

/** One recorded request: the local count of the history it sent, and what the provider billed. */
export interface UsageSample {
  /** Index in `scenario.messages` of the assistant turn the request produced. */
  readonly index: number;
  readonly local: number;
  readonly recorded: number;
}

export interface Calibration {
  /** Multiply local counts by this to estimate the provider's. */
  readonly factor: number;
  readonly samples: number;
  /** Errors of the raw local counts. */
  readonly before: PctErrors;
  /** Errors of factor * local (unrounded; `scaledCounter` rounds per message, which moves them by ~0). */
  readonly after: PctErrors;
}

/**
 * One sample per assistant turn with a recorded prompt size: the local count of the history before it.
 * Linear: a running sum of the prefix's message counts plus the counter's per-context priming (its
 * count of an empty context), so it equals `counter.countContext(messages.slice(0, index))`.
 */
export function usageSamples(scenario: Scenario, counter: TokenCounter): UsageSample[] {
  const samples: UsageSample[] = [];
  let local = counter.countContext([]);
  scenario.messages.forEach((message, index) => {
    const recorded = message.role === 'assistant' ? message.usage?.promptTokens : undefined;
    if (recorded !== undefined && recorded > 0) samples.push({ index, local, recorded });
    local += counter.countMessage(message);
  });
  return samples;
}

/** Errors of factor * local against recorded, in percent; zeros when there are no samples. */
export function pctErrors(samples: readonly UsageSample[], factor = 1): PctErrors {
  if (samples.length === 0) return { meanAbsPctError: 0, meanPctError: 0 };
  let abs = 0;
  let signed = 0;
  for (const { local, recorded } of samples) {
    const error = (factor * local - recorded) / recorded;
    abs += Math.abs(error);
    signed += error;
  }
  return { meanAbsPctError: (abs / samples.length) * 100, meanPctError: (signed / samples.length) * 100 };
}

/**
 * The factor that minimizes the mean absolute percentage error of factor * local, exactly.
 *
 * MAPE(f) = mean |f*l - r| / r = mean (l/r) * |f - r/l|: convex and piecewise linear in f, so its
 * minimum is the weighted median of the ratios r/l with weights l/r. (The plain median of the ratios
 * is the equal-weights approximation; a least-squares fit of the relative error, f = sum(l/r) /
 * sum((l/r)^2), minimizes the squared error instead and lets outliers pull it.) Samples whose local
 * count is 0 carry no information about a factor and are ignored for the fit. Undefined when there are
 * no usable samples.
 */
export function fitCalibration(samples: readonly UsageSample[]): Calibration | undefined {
  const usable = samples.filter((s) => s.recorded > 0 && s.local > 0);
  if (usable.length === 0) return undefined;
  const factor = weightedMedian(usable.map((s) => ({ value: s.recorded / s.local, weight: s.local / s.recorded })));
  return { factor, samples: usable.length, before: pctErrors(usable), after: pctErrors(usable, factor) };
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

/** Factors are per model per tokenizer: "gemini-3-pro-preview|o200k_base". */
export function calibrationKey(model: string, encoding: Encoding): string {
  return `${normalizeModelName(model)}|${encoding}`;
}

/**
 * Fits one calibration per (model, encoding) over the scenarios, pooling the samples of scenarios that
 * name the same model. Models without recorded usage get no entry.
 */
export function fitByModel(scenarios: readonly Scenario[], counter: TokenCounter): Map<string, Calibration> {
  const pooled = new Map<string, UsageSample[]>();
  for (const scenario of scenarios) {
    const key = calibrationKey(scenario.model.name, counter.encoding);
    const list = pooled.get(key) ?? [];
    list.push(...usageSamples(scenario, counter));
    pooled.set(key, list);
  }
  const out = new Map<string, Calibration>();
  for (const [key, samples] of pooled) {
    const fit = fitCalibration(samples);
    if (fit) out.set(key, fit);
  }
  return out;
}

/**
 * Factors fitted on the 18 mini-swe-agent + Gemini 3 Pro trajectories in ../shared/data (735 recorded
 * requests; src/metrics/calibration.test.ts re-fits them and checks these). Errors on those requests:
 *   o200k_base  factor 1.1477: before -12.84% signed, 12.84% abs -> after  2.51% abs, +0.04% signed
 *   cl100k_base factor 1.1461: before -12.90% signed, 12.90% abs -> after  2.76% abs, -0.17% signed
 *   chars4      factor 1.1461: before -11.88% signed, 12.07% abs -> after  5.73% abs, +1.00% signed
 */
export const FITTED_FACTORS: Readonly<Record<string, number>> = Object.freeze({
  'gemini-3-pro-preview|o200k_base': 1.1477,
  'gemini-3-pro-preview|cl100k_base': 1.1461,
  'gemini-3-pro-preview|chars4': 1.1461,
});

/** The stored factor for a model and tokenizer, if one was fitted. */
export function storedFactor(model: string, encoding: Encoding, factors: Readonly<Record<string, number>> = FITTED_FACTORS): number | undefined {
  return factors[calibrationKey(model, encoding)];
}

/**
 * A counter whose message counts are the base counter's times `factor`, rounded per message; the
 * per-context priming stays as is, so countContext = PER_CONTEXT_TOKENS + the sum of countMessage.
 * It shares the base counter's cache and stats: each message is still tokenized once.
 */
export function scaledCounter(counter: TokenCounter, factor: number): TokenCounter {
  if (!Number.isFinite(factor) || factor <= 0) throw new RangeError(`calibration factor must be a positive number, got ${factor}`);
  if (factor === 1) return counter;
  const countMessage = (message: Message): number => Math.round(counter.countMessage(message) * factor);
  return {
    encoding: counter.encoding,
    countText: (text) => Math.round(counter.countText(text) * factor),
    countMessage,
    ...contextCounting(countMessage),
    toolTokens: 0,
    stats: counter.stats,
  };
}

/** The counter to replay `model` with: scaled by its stored factor for this tokenizer, else unchanged. */
export function calibratedCounter(counter: TokenCounter, model: string, factors: Readonly<Record<string, number>> = FITTED_FACTORS): TokenCounter {
  const factor = storedFactor(model, counter.encoding, factors);
  return factor === undefined ? counter : scaledCounter(counter, factor);
}
