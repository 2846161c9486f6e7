/**
 * Model registry: context windows and prices of the models scenarios name.
 *
 * Seed 001 (REQ-BED-022): an unknown model gets the smallest known window, so a strategy that keys
 * its thresholds off the window errs on the safe side. Prices are USD per million tokens, list prices
 * of the provider's API (local models cost zero dollars but the same tokens).
 */

export interface Price {
  readonly input: number;
  readonly cachedInput: number;
  readonly output: number;
}

export interface ModelInfo {
  readonly name: string;
  readonly contextWindow: number;
  readonly price?: Price;
}

export interface ResolvedModel extends ModelInfo {
  /** False when the name was not in the registry and the fallback window was used. */
  readonly known: boolean;
}

/** A model on the user's own machine costs nothing (but the same tokens). */
export const LOCAL_PRICE: Price = { input: 0, cachedInput: 0, output: 0 };

/** The price model of runs on a model served locally (any Ollama model): $0, shown as "local". */
export const LOCAL_PRICE_MODEL = 'local';

export const MODELS: readonly ModelInfo[] = [
  { name: 'gpt-4o', contextWindow: 128_000, price: { input: 2.5, cachedInput: 1.25, output: 10 } },
  { name: 'gpt-4o-mini', contextWindow: 128_000, price: { input: 0.15, cachedInput: 0.075, output: 0.6 } },
  { name: 'gpt-4.1', contextWindow: 1_047_576, price: { input: 2, cachedInput: 0.5, output: 8 } },
  { name: 'gpt-4.1-mini', contextWindow: 1_047_576, price: { input: 0.4, cachedInput: 0.1, output: 1.6 } },
  { name: 'claude-3-5-sonnet', contextWindow: 200_000, price: { input: 3, cachedInput: 0.3, output: 15 } },
  { name: 'claude-sonnet-4', contextWindow: 200_000, price: { input: 3, cachedInput: 0.3, output: 15 } },
  { name: 'gemini-3-pro-preview', contextWindow: 1_048_576, price: { input: 2, cachedInput: 0.2, output: 12 } },
  { name: 'gemini-2.5-flash', contextWindow: 1_048_576, price: { input: 0.3, cachedInput: 0.03, output: 2.5 } },
  { name: 'qwen2.5-coder:7b', contextWindow: 32_768, price: LOCAL_PRICE },
  { name: 'qwen3-coder:30b', contextWindow: 262_144, price: LOCAL_PRICE },
  { name: 'llama3.1:8b', contextWindow: 131_072, price: LOCAL_PRICE },
];

export const SMALLEST_KNOWN_WINDOW = Math.min(...MODELS.map((m) => m.contextWindow));

/**
 * Drops routing prefixes ("openrouter/google/", "litellm_proxy/", "ollama/"), AWS Bedrock's vendor
 * prefix ("anthropic.claude-..."), and case.
 */
export function normalizeModelName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.slice(lower.lastIndexOf('/') + 1).replace(/^(anthropic|meta|amazon|mistral|cohere|ai21|us\.anthropic)\./, '');
}

/** Finds a model by exact name, else by the longest registry name that prefixes it (dated snapshots). */
export function resolveModel(name: string, registry: readonly ModelInfo[] = MODELS): ResolvedModel {
  const wanted = normalizeModelName(name);
  const exact = registry.find((m) => m.name === wanted);
  const prefixed = registry
    .filter((m) => wanted.startsWith(m.name))
    .sort((a, b) => b.name.length - a.name.length)[0];
  const found = exact ?? prefixed;
  if (found) return { ...found, known: true };
  const smallest = Math.min(...registry.map((m) => m.contextWindow));
  return { name: wanted, contextWindow: smallest, known: false };
}
