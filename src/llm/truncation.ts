/**
 * Ollama cuts the front of a prompt longer than num_ctx without an error (HTTP 200): the only tell is
 * a prompt count far below what was sent. Any backend's usage can be checked the same way.
 */

/** Below this share of the local estimate, a provider's prompt count suggests truncation. */
export const TRUNCATION_RATIO = 0.85;

/**
 * True when the provider counted far fewer prompt tokens than the local estimate (below `ratio` of
 * it): the tell of Ollama's silent truncation to num_ctx. False when the provider gave no count.
 */
export function suspectTruncation(localTokens: number, providerPromptTokens: number | undefined, ratio = TRUNCATION_RATIO): boolean {
  return providerPromptTokens !== undefined && providerPromptTokens < localTokens * ratio;
}
