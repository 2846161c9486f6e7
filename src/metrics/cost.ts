/**
 * Dollar cost of a run's tokens (design DEFINITION "Success": cost = billed input, cached input,
 * output, at a price table).
 *
 * Prices are USD per million tokens (core/models.ts). `input` is ALL billed input, the cached part
 * included; the cached part is billed at `cachedInput` instead of `input`:
 *
 *     dollars = (input - cached) * price.input / 1e6 + cached * price.cachedInput / 1e6 + output * price.output / 1e6
 *
 * An unknown model has an unknown cost (`undefined`), never 0: only a model the registry lists at zero
 * dollars (local models) and LOCAL_PRICE_MODEL (what an Ollama run is priced at) cost 0.
 */
import { LOCAL_PRICE, LOCAL_PRICE_MODEL, resolveModel, type ModelInfo, MODELS, type Price } from '../core/models.js';

export interface BilledTokens {
  /** Every billed input token, the cached ones included. */
  readonly input: number;
  /** The part of `input` that repeated a cached prefix. */
  readonly cachedInput: number;
  readonly output: number;
}

const PER_MILLION = 1_000_000;

/**
 * The dollars `tokens` cost at `price`; undefined when the price is unknown.
 *
 * Cached input above `input` is billed as all cached: `min(cachedInput, input)` (a run's counts are
 * checked, llm/usage.ts, so it does not arise from them). Negative or non-finite counts are a caller
 * bug and throw.
 */
/** Whether `model` prices a run at nothing: a local model (shown as "local", not "$0.00"). */
export function isLocalPrice(model: string): boolean {
  const price = priceFor(model);
  return price !== undefined && price.input === 0 && price.cachedInput === 0 && price.output === 0;
}

export function costUsd(price: Price | undefined, tokens: BilledTokens): number | undefined {
  for (const [name, value] of Object.entries(tokens)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`costUsd: ${name} tokens must be a finite number >= 0, got ${value}`);
  }
  if (price === undefined) return undefined;
  const cached = Math.min(tokens.cachedInput, tokens.input);
  const fresh = tokens.input - cached;
  return (fresh * price.input + cached * price.cachedInput + tokens.output * price.output) / PER_MILLION;
}

/**
 * The price of `model` as the registry resolves it (routing prefixes, dated snapshots); zero for
 * LOCAL_PRICE_MODEL; undefined for a model the registry does not know, or knows without a price.
 */
export function priceFor(model: string, registry: readonly ModelInfo[] = MODELS): Price | undefined {
  if (model === LOCAL_PRICE_MODEL) return LOCAL_PRICE;
  const resolved = resolveModel(model, registry);
  return resolved.known ? resolved.price : undefined;
}
